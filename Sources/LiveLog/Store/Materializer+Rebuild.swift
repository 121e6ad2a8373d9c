import LMDB

/// Writing a whole state at once, for a replay: every repository is inserted once, in row order,
/// into an empty store, so records and ids go in with `MDB_APPEND` and each posting list grows by
/// one ascending run per transaction.
extension Materializer {
  /// Marks a store whose log a replay has copied but whose state it has not finished: such a
  /// store refuses to open, since its queries would miss rows.
  static let incompleteReplayKey = Array("replay_incomplete".utf8)

  /// Inserts the repositories of `chunk` — ascending rows, all past the rows already written —
  /// with their records and the index entries computed from them.
  func insertInRowOrder(
    _ chunk: ArraySlice<StoredRow>, records: [UnsafeRawBufferPointer], entries: [IndexEntries],
    _ txn: WriteTransaction
  ) throws {
    var indexes = IndexWriter(trigrams: trigrams, terms: terms, ordered: ordered)
    for (index, stored) in zip(records.indices, chunk) {
      guard stored.row <= UInt64(Row.max) else {
        throw StoreError.corruptState(
          reason: "row \(stored.row) of id \(stored.id) is past the last row an index can hold")
      }
      indexes.change(row: Row(stored.row), old: nil, new: entries[index])
      try txn.put(self.records, stored.row, records[index], flags: .append)
      var id = stored.id
      try withUnsafeBytes(of: &id) { try txn.put(ids, stored.row, $0, flags: .append) }
    }
    try indexes.flush(txn)
  }

  /// Writes the id → (row, version) table of `stored` and the next row to hand out, and clears
  /// the mark of an unfinished replay.
  func insertRowsById(_ stored: [StoredRow], nextRow: UInt64, _ txn: WriteTransaction) throws {
    // The table's integer keys order as unsigned 64-bit values.
    for entry in stored.sorted(by: { UInt64(bitPattern: $0.id) < UInt64(bitPattern: $1.id) }) {
      var pair = (entry.row, entry.lsn)
      try withUnsafeBytes(of: &pair) {
        try txn.put(rows, UInt64(bitPattern: entry.id), $0, flags: .append)
      }
    }
    var next = nextRow
    try withUnsafeBytes(of: &next) { bytes in
      try Materializer.nextRowKey.withUnsafeBytes { try txn.put(meta, $0, bytes) }
    }
    try txn.delete(meta, Materializer.incompleteReplayKey)
  }

  /// Marks the store as the target of a replay that has not finished.
  func markReplayIncomplete(_ txn: WriteTransaction) throws {
    try txn.put(meta, Materializer.incompleteReplayKey, [1])
  }
}
