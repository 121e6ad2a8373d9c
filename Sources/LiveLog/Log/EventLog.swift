import LMDB

/// The append-only log: events keyed by LSN in the `log` database.
///
/// LSNs start at 1 and are contiguous; appends use `MDB_APPEND`, which both skips the B-tree
/// search and refuses any key that is not past the end, so the log can only grow at its end.
struct EventLog: Sendable {
  let database: Database

  /// The last LSN in the log, 0 when it is empty: the store's version.
  func lastLSN(_ txn: some ReadableTransaction) throws -> UInt64 {
    try txn.withCursor(database) { cursor in try cursor.last()?.integerKey ?? 0 }
  }

  /// Appends an encoded event at `lsn`, which must be one past the end.
  func append(_ bytes: [UInt8], at lsn: UInt64, _ txn: WriteTransaction) throws {
    try txn.put(database, lsn, bytes, flags: .append)
  }

  /// `append(_:at:_:)` of bytes read from another map.
  func append(_ bytes: UnsafeRawBufferPointer, at lsn: UInt64, _ txn: WriteTransaction) throws {
    try txn.put(database, lsn, bytes, flags: .append)
  }

  /// Calls `body` with each event's raw bytes from `first` through `last`, in order, until it
  /// returns false; checks that LSNs are contiguous and that none is missing. Every other reader of
  /// the log is built on this one.
  func forEachRaw(
    from first: UInt64, through last: UInt64, _ txn: some ReadableTransaction,
    _ body: (UInt64, UnsafeRawBufferPointer) throws -> Bool
  ) throws {
    guard first <= last else { return }
    try txn.withCursor(database) { cursor in
      var expected = first
      var entry = try cursor.seek(atLeast: first)
      while let current = entry, expected <= last {
        guard let lsn = current.integerKey else {
          throw StoreError.corruptEvent(lsn: expected, reason: "log key of \(current.key.count) bytes")
        }
        guard lsn == expected else {
          throw StoreError.corruptEvent(
            lsn: expected, reason: "missing: the log jumps from \(expected - 1) to \(lsn)")
        }
        guard try body(lsn, current.value) else { return }
        expected += 1
        entry = try cursor.next()
      }
      if expected <= last { throw StoreError.corruptEvent(lsn: expected, reason: "missing from the log") }
    }
  }

  /// Calls `body` with each decoded, checked event from `first` through `last`, until it returns
  /// false; records are decoded with the schemas of `catalog`.
  func forEach(
    from first: UInt64, through last: UInt64, catalog: CatalogState, _ txn: some ReadableTransaction,
    _ body: (Event) throws -> Bool
  ) throws {
    try forEachRaw(from: first, through: last, txn) { lsn, bytes in
      try body(try EventCodec.header(bytes, lsn: lsn).event(in: catalog))
    }
  }

  /// Calls `body` with the checked header of each event from `first` through `last`.
  func forEachHeader(
    from first: UInt64, through last: UInt64, _ txn: some ReadableTransaction,
    _ body: (EventHeader) throws -> Void
  ) throws {
    try forEachRaw(from: first, through: last, txn) { lsn, bytes in
      try body(try EventCodec.header(bytes, lsn: lsn))
      return true
    }
  }
}
