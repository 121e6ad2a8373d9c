public import LMDB

/// How to open a `Store`.
public struct StoreOptions: Sendable, Hashable {
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

  /// Opens without LMDB's lock file, for a process that holds the store alone (a repair; see
  /// `ExclusiveAccess`).
  var exclusive = false

  public init() {}

  var environmentOptions: EnvironmentOptions {
    var options = EnvironmentOptions()
    options.durability = durability
    options.mapSize = mapSize
    options.maximumMapSize = maximumMapSize
    options.readOnly = readOnly
    options.maxReaders = maxReaders
    options.withoutLock = exclusive
    options.maxDatabases = 32
    return options
  }
}
