import LMDB

extension HistoricalState {
  /// The state of `collection` at `lsn` from the checkpoint at or after it, or `nil` when the
  /// checkpoints cannot serve: none yet, a summary that does not reach the log's end (events
  /// appended by a LiveLog without checkpoints), or an LSN after the last checkpoint, where
  /// reading back from now costs fewer than an interval of events anyway.
  static func fromCheckpoint(
    _ lsn: UInt64, current: UInt64, log: EventLog, collection: StoredCollection, _ checkpoints: Checkpoints,
    _ txn: some ReadableTransaction
  ) throws -> HistoricalState? {
    guard let header = try checkpoints.header(txn), header.through == current else { return nil }
    let interval = header.interval
    let (quotient, remainder) = lsn.quotientAndRemainder(dividingBy: interval)
    let firstInterval = quotient + (remainder == 0 ? 0 : 1)
    let checkpoint = firstInterval * interval
    guard checkpoint < current else { return nil }
    var state = HistoricalState(lsn: lsn, basedOnCurrent: true)
    var seen: Set<Row> = []
    var firstNewRow: UInt64?
    try log.forEachHeader(from: lsn + 1, through: checkpoint, txn) { header in
      guard collection.owns(header) else { return }
      let row = Row(truncatingIfNeeded: header.row)
      guard seen.insert(row).inserted else { return }
      if let previous = header.previousLSN {
        state.versions[row] = previous
      } else if firstNewRow == nil {
        // Rows count up: the first one created after the LSN bounds them all.
        firstNewRow = header.row
      }
    }
    if firstNewRow == nil {
      firstNewRow = try checkpoints.firstCreatedRow(collection: collection.id, from: firstInterval, txn)
    }
    state.base = CheckpointBase(
      checkpoints: checkpoints, collection: collection.id, firstInterval: firstInterval,
      lastInterval: (current - 1) / interval, firstNewRow: firstNewRow)
    return state
  }
}
