import LMDB

/// Reading records. A record is stored once, as the payload of its upsert event in the log; the
/// state only says which event holds each row's current version (a recent row's entry, or the
/// row table). So every read of a record checks its event's checksum, and a state that names an
/// event of another row or collection — damage, or a state from another log — is refused
/// rather than answered with someone else's record.
extension StoredCollection {
  /// The current record at `row`, pointing into the map; `nil` when the row holds none.
  func record(at row: UInt64, _ txn: some ReadableTransaction) throws -> UnsafeRawBufferPointer? {
    guard row <= UInt64(Row.max), let lsn = try currentLSN(of: Row(row), txn) else { return nil }
    return try record(at: row, lsn: lsn, txn)
  }

  /// The record of `row` in the upsert event at `lsn`.
  func record(at row: UInt64, lsn: UInt64, _ txn: some ReadableTransaction) throws -> UnsafeRawBufferPointer {
    guard let bytes = try txn.get(log.database, lsn) else {
      throw StoreError.corruptState(
        reason: "\(name): row \(row) names event \(lsn), which the log lacks")
    }
    return try record(in: bytes, lsn: lsn, row: row)
  }

  /// The record inside the event `bytes` at `lsn`, once it is checked to be `row`'s upsert.
  func record(in bytes: UnsafeRawBufferPointer, lsn: UInt64, row: UInt64) throws -> UnsafeRawBufferPointer {
    let header = try EventCodec.header(bytes, lsn: lsn)
    guard header.isUpsert, owns(header), header.row == row else {
      throw StoreError.corruptState(
        reason: "\(name): row \(row) names event \(lsn), which is not an upsert of that row")
    }
    return header.payload
  }

  /// Calls `body` with the current record of each of `rows` (ascending), reading the row table,
  /// the recent rows and the log with one cursor each: rows written together have neighbouring
  /// events, so most reads step to the next event instead of searching for it.
  func forEachRecord(
    of rows: [Row], _ txn: some ReadableTransaction, recent: RecentRows,
    _ body: (Row, UnsafeRawBufferPointer) throws -> Bool
  ) throws {
    let table = rowTable
    try txn.withCursor(log.database) { logCursor in
      var block: RowTable.Block?
      var lastLSN: UInt64 = 0
      for row in rows {
        let lsn: UInt64
        if let entry = recent.entry(of: row) {
          guard !entry.isDeleted else {
            throw StoreError.corruptState(reason: "\(name): an index names row \(row), which was deleted")
          }
          lsn = entry.lsn
        } else {
          let index = RowTable.block(of: row)
          if block?.index != index {
            do {
              block = try table.block(index, txn)
            } catch let damage as PageDamage {
              throw damaged("the row table", damage)
            }
          }
          guard let found = try block?.lsn(of: row) else {
            throw StoreError.corruptState(reason: "\(name): an index names row \(row), which has no record")
          }
          lsn = found
        }
        var found = lastLSN != 0 && lsn == lastLSN + 1 ? try logCursor.next() : nil
        if found?.integerKey != lsn { found = try logCursor.seek(to: lsn) }
        guard let event = found else {
          throw StoreError.corruptState(
            reason: "\(name): row \(row) names event \(lsn), which the log lacks")
        }
        lastLSN = lsn
        guard try body(row, try record(in: event.value, lsn: lsn, row: UInt64(row))) else { return }
      }
    }
  }
}
