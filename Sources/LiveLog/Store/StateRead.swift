import LMDB

/// One short read of a store: its catalog and log as one read transaction sees them, and each
/// collection as of any version up to the log's end (`CollectionVersion`).
///
/// The one internal view of a state: results, as-of queries, version diffs, live subscriptions
/// and replay read through it, so none of them chooses between the current state and the log, or
/// reads the log's database, itself.
struct StateRead {
  let store: Store
  let txn: Transaction
  let catalog: CatalogState
  /// The log's last LSN in this transaction: the store's version.
  let current: UInt64

  init(store: Store, txn: Transaction, catalog: CatalogState) throws {
    self.store = store
    self.txn = txn
    self.catalog = catalog
    current = try store.log.lastLSN(txn)
  }

  /// `collection` as of `version`, with the schema it is given; throws when `version` is after
  /// the log's end.
  func collection(_ collection: StoredCollection, at version: UInt64) throws -> CollectionVersion {
    let history = try HistoricalState.at(
      version, current: current, log: store.log, collection: collection, checkpoints: store.checkpoints, txn)
    return CollectionVersion(
      records: VersionRecords(
        txn: txn, collection: collection, log: store.log, versions: history.versions,
        basedOnCurrent: history.basedOnCurrent, base: history.base, rowKeys: store.rowKeys),
      history: history, current: current)
  }

  /// The collection `name` as of `version` (the store's version when `nil`), with its schema of
  /// then; `nil` when it did not exist then. Throws when `version` is after the log's end.
  func collection(named name: String, at version: UInt64?) throws -> CollectionVersion? {
    let version = version ?? current
    guard version <= current else { throw StoreError.lsnOutOfRange(requested: version, version: current) }
    guard let stored = catalog.collection(named: name) else { return nil }
    guard version != current else { return try collection(stored, at: version) }
    return try stored.asOf(version).map { try collection($0, at: version) }
  }

  /// The log's events `first ... last`, as stored (see `EventLog.forEachRaw`).
  func forEachEvent(
    from first: UInt64, through last: UInt64, _ body: (UInt64, UnsafeRawBufferPointer) throws -> Bool
  ) throws {
    try store.log.forEachRaw(from: first, through: last, txn, body)
  }

  /// The record of the upsert event at `lsn`, pointing into the map.
  func record(at lsn: UInt64) throws -> UnsafeRawBufferPointer {
    try store.log.record(at: lsn, txn)
  }

  /// Readies this read for `record(at:)` from several threads at once
  /// (`Transaction.prepareForReadsOnEveryCore`).
  func prepareForRecordsOnEveryCore() throws {
    try txn.prepareForReadsOnEveryCore([store.log.database])
  }

  /// The commits after `version`, through the log's end, that touch `collections`.
  func commits(after version: UInt64, collections: Set<String>) throws -> [CommittedBatch] {
    try store.log.commits(after: version, through: current, catalog: catalog, collections: collections, txn)
  }
}

extension Store {
  /// Runs `body` in one short read of the store's state.
  func readState<T>(_ body: (StateRead) throws -> T) throws -> T {
    try read { txn, catalog in try body(StateRead(store: self, txn: txn, catalog: catalog)) }
  }

  /// Runs `body` in a read of `snapshot`, whose catalog is `catalog` (`makeSnapshot()`).
  func readState<T>(_ snapshot: Snapshot, _ catalog: CatalogState, _ body: (StateRead) throws -> T) throws
    -> T
  {
    try snapshot.read { txn in try body(StateRead(store: self, txn: txn, catalog: catalog)) }
  }
}
