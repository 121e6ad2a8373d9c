import LMDB

/// Writing a whole state at once, for a replay: every record is inserted once, in row order,
/// into an empty collection, so records and keys go in with `MDB_APPEND` and each posting list
/// grows by one ascending run per transaction.
extension StoredCollection {
  /// Inserts the records of `chunk` — ascending rows, all past the rows already written — with
  /// their records and the index entries computed from them.
  func insertInRowOrder(
    _ chunk: ArraySlice<StoredRow>, records: [UnsafeRawBufferPointer], entries: [IndexEntries],
    _ txn: WriteTransaction
  ) throws {
    var indexes = indexWriter()
    for (index, stored) in zip(records.indices, chunk) {
      guard stored.row <= UInt64(Row.max) else {
        throw StoreError.corruptState(
          reason: "\(name): row \(stored.row) of key \(stored.key) is past the last row an index can hold")
      }
      indexes.change(row: Row(stored.row), old: nil, new: entries[index])
      try putRecord(records[index], at: stored.row, txn, flags: .append)
      try putKey(stored.key, at: stored.row, txn)
    }
    try indexes.flush(txn)
  }

  /// Writes the key → (row, version) table of `stored` and the next row to hand out.
  func insertRowsByKey(_ stored: [StoredRow], nextRow: UInt64, _ txn: WriteTransaction) throws {
    // Integer keys order as unsigned 64-bit values; string keys bytewise.
    let sorted = stored.sorted { a, b in
      switch (a.key, b.key) {
      case (.integer(let x), .integer(let y)): UInt64(bitPattern: x) < UInt64(bitPattern: y)
      case (.string(let x), .string(let y)): x.utf8.lexicographicallyPrecedes(y.utf8)
      default: a.key < b.key
      }
    }
    for entry in sorted {
      var pair = (entry.row, entry.lsn)
      try withUnsafeBytes(of: &pair) { value in
        try withKeyBytes(entry.key) { try txn.put(databases.rows, $0, value, flags: .append) }
      }
    }
    try setNextRow(nextRow, txn)
  }
}
