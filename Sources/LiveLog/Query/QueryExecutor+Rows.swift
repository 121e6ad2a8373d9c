import LMDB

extension QueryExecutor {
  /// Every row of the collection, ascending.
  func everyRow() throws -> [Row] { try collection.everyRow(txn) }

  /// The candidates whose records match `predicate`, checked one record at a time; `checked`
  /// counts the records read.
  func check(_ candidates: [Row], _ predicate: Predicate, limit: Int?, checked: inout Int) throws -> [Row] {
    let compiled = CompiledPredicate(predicate)
    var rows: [Row] = []
    var scratch: [UInt8] = []
    scratch.reserveCapacity(256)
    // Candidates ascend, so one cursor reads them with short hops between neighbouring pages.
    try txn.withCursor(collection.records) { cursor in
      for row in candidates {
        guard let entry = try cursor.seek(to: UInt64(row)) else {
          throw StoreError.corruptState(reason: "an index names row \(row), which has no record")
        }
        checked += 1
        let record = try collection.verifiedRecord(entry.value, row: UInt64(row))
        if try compiled.matches(RecordView(bytes: record, row: row), scratch: &scratch) {
          rows.append(row)
          if let limit, rows.count >= limit { break }
        }
      }
    }
    return rows
  }
}
