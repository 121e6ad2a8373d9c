import LMDB

/// Where a checkpoint recorder's entries go (`Checkpoints.Recorder`): a commit's write
/// transaction (`TransactionEntries`), or a summary in memory (`Checkpoints.Summary`).
protocol CheckpointEntries {
  /// Notes `row` as the first row interval `interval` created. A recorder notes one per interval
  /// and collection in its run; an earlier run (a commit before) may have noted one already.
  mutating func noteCreated(collection: UInt32, interval: UInt64, row: UInt64) throws
  /// Notes `previous` as `row`'s version at interval `interval`'s checkpoint.
  mutating func noteVersion(collection: UInt32, row: UInt64, interval: UInt64, previous: UInt64) throws
  /// Whether a version of `row` is noted for interval `interval`.
  func hasVersion(collection: UInt32, row: UInt64, interval: UInt64) throws -> Bool
  /// Notes that an event of interval `interval` changed `row`'s value in `slot`.
  mutating func noteChanged(collection: UInt32, interval: UInt64, slot: UInt16, row: UInt64) throws
}

/// A commit's checkpoint entries, put in its write transaction beside those of earlier commits.
struct TransactionEntries: CheckpointEntries {
  let checkpoints: Checkpoints
  let txn: WriteTransaction

  func noteCreated(collection: UInt32, interval: UInt64, row: UInt64) throws {
    let key = Checkpoints.createdKey(collection: collection, interval: interval)
    // An earlier commit of the interval may have noted its first row.
    guard try txn.get(checkpoints.database, key) == nil else { return }
    var value: [UInt8] = []
    value.appendLittleEndian(row)
    try txn.put(checkpoints.database, key, value)
  }

  func noteVersion(collection: UInt32, row: UInt64, interval: UInt64, previous: UInt64) throws {
    var value: [UInt8] = []
    value.appendLittleEndian(previous)
    try txn.put(
      checkpoints.database, Checkpoints.versionKey(collection: collection, row: row, interval: interval),
      value)
  }

  func hasVersion(collection: UInt32, row: UInt64, interval: UInt64) throws -> Bool {
    try txn.get(
      checkpoints.database, Checkpoints.versionKey(collection: collection, row: row, interval: interval))
      != nil
  }

  func noteChanged(collection: UInt32, interval: UInt64, slot: UInt16, row: UInt64) throws {
    try txn.put(
      checkpoints.database,
      Checkpoints.changedKey(collection: collection, interval: interval, slot: slot, row: row),
      Checkpoints.changedValue)
  }
}
