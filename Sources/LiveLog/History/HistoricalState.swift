import LMDB

/// Which rows of one collection existed at an earlier LSN, and where their records of then are,
/// relative to the current state: what an as-of query needs, found without replaying into a new
/// store.
///
/// Three ways:
/// - **from a checkpoint** (`Checkpoints`), when the store has them and the LSN is before the last
///   one: the events from the LSN to its checkpoint, as below, and beyond it the checkpoints' own
///   summary (`base`), which a query reads for the fields it uses (`CollectionVersion`).
/// - **back from now**: every event after the LSN names its row and the version it replaced, so the
///   first event after the LSN for each row tells that row's version then (or that it did not
///   exist). Rows no event touched since are as they are now.
/// - **forward from the start**: the events up to the LSN, applied to an empty map of rows.
///
/// Without checkpoints, whichever of the last two reads fewer events.
struct HistoricalState: Sendable {
  /// The LSN the state is as of.
  let lsn: UInt64
  /// Whether rows not in `versions` or `absent` are as they are now (`true`), or did not exist.
  let basedOnCurrent: Bool
  /// Rows whose record at `lsn` is the upsert event at this LSN.
  var versions: [Row: UInt64] = [:]
  /// Rows that exist now but did not exist at `lsn`.
  var absent: Set<Row> = []
  /// From a checkpoint: `versions` holds the rows changed between `lsn` and the checkpoint, and
  /// the rows changed after it are the checkpoints' to tell.
  var base: CheckpointBase?

  /// Rows whose state at `lsn` is not the current one (from a checkpoint: as far as `versions` and
  /// the rows created since tell).
  func isTouched(_ row: Row) -> Bool {
    versions[row] != nil || absent.contains(row) || base?.isNew(row) == true
  }

  /// The state of `collection` at `lsn`, read from the log inside `txn`, whose last LSN is
  /// `current`.
  static func at(
    _ lsn: UInt64, current: UInt64, log: EventLog, collection: StoredCollection,
    checkpoints: Checkpoints? = nil, _ txn: some ReadableTransaction
  ) throws -> HistoricalState {
    guard lsn <= current else { throw StoreError.lsnOutOfRange(requested: lsn, version: current) }
    if lsn == current { return HistoricalState(lsn: lsn, basedOnCurrent: true) }
    if let checkpoints,
      let state = try fromCheckpoint(
        lsn, current: current, log: log, collection: collection, checkpoints, txn)
    {
      return state
    }
    if current - lsn <= lsn {
      var state = HistoricalState(lsn: lsn, basedOnCurrent: true)
      var seen: Set<Row> = []
      try log.forEachHeader(from: lsn + 1, through: current, txn) { header in
        guard collection.owns(header) else { return }
        let row = Row(truncatingIfNeeded: header.row)
        if seen.insert(row).inserted {
          if let previous = header.previousLSN {
            state.versions[row] = previous
          } else {
            state.absent.insert(row)
          }
        }
      }
      return state
    }
    var state = HistoricalState(lsn: lsn, basedOnCurrent: false)
    try log.forEachHeader(from: 1, through: lsn, txn) { header in
      guard collection.owns(header) else { return }
      let row = Row(truncatingIfNeeded: header.row)
      if header.isUpsert { state.versions[row] = header.lsn } else { state.versions[row] = nil }
    }
    return state
  }
}

extension EventLog {
  /// The record of the upsert event at `lsn`, pointing into the map.
  func record(at lsn: UInt64, _ txn: some ReadableTransaction) throws -> UnsafeRawBufferPointer {
    guard let bytes = try txn.get(database, lsn) else {
      throw StoreError.corruptEvent(lsn: lsn, reason: "missing from the log")
    }
    let header = try EventCodec.header(bytes, lsn: lsn)
    guard header.isUpsert else { throw StoreError.corruptEvent(lsn: lsn, reason: "expected an upsert") }
    return header.payload
  }
}

extension StoredCollection {
  /// Whether the event with `header` is a change of this collection's records (events of format
  /// 1 are `repositories`'; schema events change no record).
  func owns(_ header: EventHeader) -> Bool {
    header.kind != .schema
      && (header.collection == id || (header.collection == 0 && name == LegacySchemas.repositoriesName))
  }
}
