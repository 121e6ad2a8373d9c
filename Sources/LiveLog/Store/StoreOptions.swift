public import LMDB

/// How to open a `Store`.
public struct StoreOptions: Sendable {
  /// When commits reach the disk. `.durable` (the default) survives power loss; see `Durability`
  /// for what the faster modes risk.
  public var durability: Durability = .durable
  /// Initial size of the memory map; it grows on demand (see `maximumMapSize`).
  public var mapSize: Int = 256 << 20
  /// The largest the store's map may grow to, or `nil` for no limit but the disk. A commit that
  /// would need more fails with an error, and nothing of it is written.
  public var maximumMapSize: Int? = nil
  /// Opens for reading only: queries, logs and watches work; writes fail with `StoreError.readOnly`.
  public var readOnly: Bool = false
  /// The most read transactions open at once across all processes.
  public var maxReaders: Int = 126
  /// The most collections the store may hold. Each takes five LMDB databases, and LMDB fixes
  /// their number when the environment opens; every process that opens the store must allow at
  /// least as many as the store holds.
  public var maximumCollections: Int = 40
  /// Record types whose collections are opened (created, or evolved to their declarations) when
  /// the store opens, so that a wrong declaration fails there. Others open on first use.
  public var recordTypes: [any Record.Type] = []
  /// What to do with collections whose declarations changed in a way the store cannot follow
  /// on its own (see `Migration`).
  public var migrations: [Migration] = []
  /// Called with the progress of long work: an upgrade, an index build, a migration.
  public var progress: (@Sendable (StoreProgress) -> Void)? = nil
  /// Whether results' ids come from an in-memory table of each integer-keyed collection's keys by
  /// row, built once reading them from the store has cost about as much as building it (about 10 ms
  /// per million rows, in the read that reaches that point). It takes 8 bytes and a bit per row
  /// number of each collection whose ids are read often, for as long as the store is open, and
  /// makes the ids of a result of thousands of rows several times faster (Docs/Architecture.md,
  /// "Row key cache"). A row keeps its key for life, so the table never goes stale.
  public var cachesRowKeys = true

  /// Events per checkpoint interval for a store whose checkpoints are made now (a new store, or
  /// one made before checkpoints); a store keeps the interval it was given, and its replays too.
  var checkpointInterval: UInt64 = Checkpoints.defaultInterval

  /// Opens without LMDB's lock file, for a process that holds the store alone (a repair; see
  /// `ExclusiveAccess`).
  var exclusive = false
  /// Opens the log alone, leaving the collections' databases closed: how an upgrade reads a store
  /// of an older format, whose state it rebuilds (`StoreUpgrade`).
  var logOnly = false
  /// How many rows the recent rows hold before a fold (`RecentRows.capacity`); tests lower it to
  /// fold, edit segments in place and merge them often.
  var recentCapacity = RecentRows.capacity
  /// The fewest keys read from the row table that start a build of the row key cache
  /// (`RowKeyCache.minimumMisses`); tests lower it.
  var rowKeyCacheMinimumMisses = RowKeyCache.defaultMinimumMisses

  public init() {}

  var environmentOptions: EnvironmentOptions {
    var options = EnvironmentOptions()
    options.durability = durability
    options.mapSize = mapSize
    options.maximumMapSize = maximumMapSize
    options.readOnly = readOnly
    options.maxReaders = maxReaders
    options.withoutLock = exclusive
    // The log and the meta, catalog and checkpoints databases, and the four of each collection;
    // an older store being upgraded may hold six of each and, for format 1, six more.
    options.maxDatabases = 4 + 6 * max(maximumCollections, 1) + 6
    return options
  }
}
