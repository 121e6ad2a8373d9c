import LMDB

extension QueryExecutor {
  /// Every row of the collection, ascending.
  func everyRow() throws -> [Row] { try collection.everyRow(txn, recent: indexes.recent) }

  /// The candidates whose records match `predicate`, checked one record at a time; `checked`
  /// counts the records read.
  func check(_ candidates: [Row], _ predicate: Predicate, limit: Int?, checked: inout Int) throws -> [Row] {
    let compiled = CompiledPredicate(predicate)
    var rows: [Row] = []
    var scratch: [UInt8] = []
    scratch.reserveCapacity(256)
    var count = 0
    try collection.forEachRecord(of: candidates, txn, recent: indexes.recent) { row, record in
      count += 1
      if try compiled.matches(RecordView(bytes: record, row: row), scratch: &scratch) {
        rows.append(row)
        if let limit, rows.count >= limit { return false }
      }
      return true
    }
    checked += count
    return rows
  }
}
