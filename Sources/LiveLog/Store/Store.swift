import Foundation
import LMDB
import Synchronization

/// A LiveLog store: an append-only log of changes to records of any number of collections, and
/// the materialized state built from it, in one LMDB environment in one directory.
///
/// ```swift
/// let store = try Store(directory: "app.store")
/// try store.write([.upsert(bookmark), .upsert(repository), .delete(Bookmark.self, id: old)])
/// let swift = try store.objects(Repository.self).filter("language == 'Swift'")
/// ```
///
/// A `Store` may be shared by every thread of a process, and several processes may open the same
/// directory: reads never wait, and writes are serialized (one at a time in this process, and by
/// LMDB's lock across processes).
public final class Store: Sendable {
  /// The store's directory.
  public let directory: String
  /// The options it was opened with.
  public let options: StoreOptions
  /// The format of its state as opened: the current one, or an older one read as it is by a
  /// read-only open (`StoreDirectory.oldestFormatReadAsIs`).
  let format: Int
  let environment: Environment
  let log: EventLog
  let meta: Database
  let catalog: Catalog
  /// The summaries of the log that as-of queries start from; `nil` in a store opened read-only
  /// that no writable open has given them yet (as-of queries then read the log alone).
  let checkpoints: Checkpoints?
  /// Keeps live queries up to date (see `Results.changes`).
  let hub = LiveHub()
  /// Its integer-keyed collections' keys by row, once results have read many (`RowKeyCache`);
  /// `nil` when `options.cachesRowKeys` is false.
  let rowKeys: RowKeyCache?
  /// The thread of the `async` writes: LMDB wants a write transaction begun and ended on one
  /// thread, and a serial queue runs each transaction within one block.
  let writerQueue = DispatchQueue(label: "LiveLog.Store.writer", qos: .userInitiated)
  /// Each record type's binding to its collection, by type.
  let bindings = Mutex<[ObjectIdentifier: any Sendable]>([:])
  /// The gate every commit passes when the store replicates (`Store+Replication.swift`).
  let replicationLink = Mutex<ReplicationLink?>(nil)

  /// Opens the store in `directory`, creating it if the directory does not exist or is empty,
  /// and opens the collections of `options.recordTypes` (creating or evolving them as declared).
  ///
  /// Throws `StoreError.notAStore` for a directory that holds something else,
  /// `StoreError.unsupportedFormat` for a store of a newer format, and `SchemaError` for a record
  /// type declared wrongly or changed in a way that needs a migration; nothing in the directory
  /// is changed then. A store of an older format is upgraded on its first writable open: its
  /// state is rebuilt from its log into a new data file, swapped in as a repair swaps it
  /// (`Store.repair`), with progress reported as `.upgrading`; a store of format 8, whose state
  /// this format reads as it is, has its marker rewritten alone (see `Docs/Operations.md`).
  public init(directory: String, options: StoreOptions = StoreOptions()) throws {
    self.directory = directory
    self.options = options
    rowKeys = options.cachesRowKeys ? RowKeyCache(minimumMisses: options.rowKeyCacheMinimumMisses) : nil
    var format = try StoreDirectory(path: directory).prepare(readOnly: options.readOnly)
    try InterruptedRepair.check(directory: directory)
    if format < StoreDirectory.currentFormat && !options.readOnly && !options.logOnly {
      if format >= StoreDirectory.oldestFormatMarkedUp {
        try StoreUpgrade.markUp(directory: directory)
      } else {
        try StoreUpgrade.rebuild(directory: directory, options: options)
      }
      format = StoreDirectory.currentFormat
    }
    self.format = format
    let environment: Environment
    do {
      environment = try Environment.open(path: directory, options: options.environmentOptions)
    } catch let error as LMDBError where error.isAccessDenied {
      // A write open needs write access; a read-only open needs only read access (without it,
      // not even the lock-free fallback of `Environment` can read).
      throw options.readOnly
        ? StoreError.accessDenied(path: directory, reason: error.description)
        : StoreError.readOnly(path: directory)
    } catch let error as LMDBError where error.isDiskFull {
      throw StoreError.diskFull(path: directory, reason: error.description)
    } catch let error as LMDBError where error.isAlreadyOpen {
      throw StoreError.alreadyOpen(path: directory, reason: error.message)
    } catch let error as LMDBError where error.isInvalidFile {
      throw StoreError.notAStore(path: directory, reason: "its data.mdb is not an LMDB file")
    } catch let error as LMDBError where error.isDamagedFile {
      throw StoreError.damagedFile(path: directory, damage: error.message)
    }
    self.environment = environment
    let open = {
      (txn: any ReadableTransaction, create: Bool) throws -> (Database, Database, Database, Database?) in
      let log = try environment.openDatabase(StoreLayout.log, flags: .integerKey, create: create, in: txn)
      let meta = try environment.openDatabase(StoreLayout.meta, create: create, in: txn)
      let catalog = try environment.openDatabase(
        StoreLayout.catalog, flags: .integerKey, create: create, in: txn)
      if try txn.get(meta, StoreLayout.incompleteReplayKey) != nil {
        throw StoreError.notAStore(
          path: directory,
          reason: "it is the target of a replay that did not finish (its log is ahead of its state); "
            + "delete it and replay again")
      }
      var checkpoints: Database?
      do {
        checkpoints = try environment.openDatabase(StoreLayout.checkpoints, create: create, in: txn)
      } catch let error as LMDBError where error.isNotFound && !create {
        // A store no writable open has given checkpoints yet.
      }
      return (log, meta, catalog, checkpoints)
    }
    let databases: (log: Database, meta: Database, catalog: Database, checkpoints: Database?)
    do {
      if options.readOnly {
        guard format >= StoreDirectory.oldestFormatReadAsIs else {
          throw StoreError.upgradeRequired(path: directory, found: format)
        }
        databases = try environment.readOpeningDatabases { try open($0, false) }
      } else {
        databases = try environment.write { txn in try open(txn, true) }
      }
    } catch let error as LMDBError where error.isNotFound {
      throw StoreError.notAStore(path: directory, reason: "its databases are missing")
    }
    log = EventLog(database: databases.log)
    meta = databases.meta
    catalog = Catalog(
      database: databases.catalog, meta: databases.meta, log: log, environment: environment,
      opensCollections: !options.logOnly)
    checkpoints = databases.checkpoints.map(Checkpoints.init)
    // A store opened for its log alone (an upgrade's source) has the state of an older format.
    guard !options.logOnly else { return }
    try catalog.refresh()
    if !options.readOnly { try catchUpCheckpoints() }
    hub.attach(self)
    environment.addCommitObserver(hub)
    for type in options.recordTypes { try type.open(in: self) }
  }

  /// Whether the store was opened read-only without LMDB's lock file, because this process may
  /// not write it: safe while no other process writes the store (see `Environment.isUnlocked`).
  public var isUnlocked: Bool { environment.isUnlocked }

  /// The store's version: the LSN of the last committed event, 0 for an empty store.
  public func version() throws -> UInt64 {
    try environment.read { try log.lastLSN($0) }
  }

  // MARK: Reading the state

  /// Runs `body` in a read transaction with the catalog as that transaction sees it.
  func read<T>(_ body: (Transaction, CatalogState) throws -> T) throws -> T {
    while true {
      let outcome: T?? = try environment.read { txn in
        guard let state = try catalog.state(in: txn) else { return nil }
        return .some(try body(txn, state))
      }
      if let outcome { return outcome! }
      try catalog.refresh()
    }
  }

  /// A snapshot and the catalog it sees, for results that read one state across many calls.
  func makeSnapshot() throws -> (Snapshot, CatalogState) {
    while true {
      let snapshot = try environment.makeSnapshot()
      if let state = try snapshot.read({ try catalog.state(in: $0) }) { return (snapshot, state) }
      try catalog.refresh()
    }
  }

  /// The record of type `R` with `id`, as of now, or `nil`.
  public func record<R: Record>(_ type: R.Type, id: R.ID) throws -> R? {
    let binding = try self.binding(for: type)
    return try read { txn, state in
      guard let collection = try binding.collection(in: state, store: self),
        let (row, _) = try collection.row(of: id.primaryKey, txn),
        let bytes = try collection.record(at: row, txn)
      else { return nil }
      return try binding.decode(bytes, row: row, collection: collection)
    }
  }

  /// The record of collection `name` with `key`, as of now, or `nil`.
  public func record(in name: String, key: PrimaryKey) throws -> RecordValues? {
    try read { txn, state in
      guard let collection = state.collection(named: name), let (row, _) = try collection.row(of: key, txn),
        let bytes = try collection.record(at: row, txn)
      else { return nil }
      return RecordValues(schema: collection.schema, values: try collection.values(bytes, row: row))
    }
  }

  /// Number of records of type `R` (0 when its collection does not exist yet).
  public func count<R: Record>(_ type: R.Type) throws -> Int {
    try count(in: R.schema.declaration.name)
  }

  /// Number of records in collection `name` (0 when it does not exist).
  public func count(in name: String) throws -> Int {
    try read { txn, state in try state.collection(named: name)?.count(txn) ?? 0 }
  }

  /// The collections, in the order they were created.
  public func collections() throws -> [CollectionInfo] {
    try read { txn, state in
      try state.all.map { collection in
        CollectionInfo(
          name: collection.name, schema: collection.schema, schemaVersion: collection.version,
          records: try collection.count(txn))
      }
    }
  }

  /// The current schema of collection `name`, or `nil` when there is none.
  public func schema(of name: String) throws -> CollectionSchema? {
    try read { _, state in state.collection(named: name)?.schema }
  }

  /// Every version of collection `name`'s schema, oldest first, with the LSN of the event that
  /// made it (0 for the schema of a store upgraded from format 1).
  public func schemaHistory(of name: String) throws -> [(version: Int, lsn: UInt64, schema: CollectionSchema)]
  {
    try read { _, state in
      (state.collection(named: name)?.versions ?? []).map { ($0.version, $0.lsn, $0.schema) }
    }
  }
}

/// A collection of a store, as `Store.collections()` lists them.
public struct CollectionInfo: Sendable, Hashable {
  public var name: String
  public var schema: CollectionSchema
  public var schemaVersion: Int
  public var records: Int
}

/// Names of the store's LMDB databases; each collection has `CollectionDatabases.suffixes.count`
/// more, named after it (`CollectionDatabases`).
enum StoreLayout {
  static let log = "log"
  static let meta = "meta"
  static let catalog = "catalog"
  /// Summaries of the log for as-of queries (`Checkpoints`): derived data, like the state.
  static let checkpoints = "checkpoints"
  /// Where a replicating store stands in its stream (`ReplicationLink`): not derived from the
  /// log, so a rebuild copies it (`InPlaceRepair`).
  static let replication = "replication"
  /// Marks a store whose log a replay has copied but whose state it has not finished: such a
  /// store refuses to open, since its queries would miss rows.
  static let incompleteReplayKey = Array("replay_incomplete".utf8)

  /// The databases named the same in every store of this format.
  static let fixedNames = [log, meta, catalog, checkpoints, replication]

  /// Whether a database of this format's layout is rebuilt by a replay that reads none of it:
  /// the catalog, the checkpoints and each collection's databases. The log is the source; `meta`
  /// is read by every open, and `replication` is copied, not rebuilt.
  static func isRebuiltWithoutReading(_ name: String) -> Bool {
    // `NAME.index` is the same database in a store of format 5 or 6 not upgraded yet.
    name == catalog || name == checkpoints || collectionSuffix(of: name) != nil || name.hasSuffix(".index")
  }

  /// Whether `name` is a database of this format's layout: a data file holding any other one is
  /// of an earlier format (whose collections had `records`, `ids` and `index.*` databases before
  /// format 5, and `index` before format 7).
  static func isCurrent(_ name: String) -> Bool {
    fixedNames.contains(name) || collectionSuffix(of: name) != nil
  }

  /// The suffix of a collection's database name (`keys` of `repositories.keys`), or `nil`.
  private static func collectionSuffix(of name: String) -> String? {
    guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return nil }
    let suffix = String(name[name.index(after: dot)...])
    return CollectionDatabases.suffixes.contains(suffix) ? suffix : nil
  }
}

extension Store {
  /// Whether damage confined to the database `name` is repaired by `Store.repair` (`livelog
  /// replay --in-place`), which rebuilds it from the log without reading it; otherwise the store
  /// needs a salvage.
  public static func repairRebuilds(database name: String) -> Bool {
    StoreLayout.isRebuiltWithoutReading(name)
  }
}

extension Store {
  /// Returns once every live query of this store has taken every commit up to the store's
  /// version now (including other processes' commits): their changes are then on the way.
  public func synchronizeLiveQueries() {
    hub.catchUp()
  }

  /// Flushes every commit to the disk: after writes in `.noSync` or `.noMetaSync` mode, this
  /// makes them durable.
  public func sync() throws {
    try environment.sync()
  }
}

extension Store {
  /// Marks the store as the target of a replay that has not finished.
  func markReplayIncomplete(_ txn: WriteTransaction) throws {
    try txn.put(meta, StoreLayout.incompleteReplayKey, [1])
  }
}
