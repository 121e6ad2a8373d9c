import LMDB

extension QueryExecutor {
  /// Every row of the collection, ascending. Rows are numbered from one in insertion order and
  /// keep their number through updates, so while nothing was deleted they are the run from the
  /// first to the last, known from three lookups; otherwise the records' keys are walked.
  func everyRow() throws -> [Row] {
    try txn.withCursor(collection.records) { cursor in
      guard let first = try cursor.first()?.integerKey, let last = try cursor.last()?.integerKey,
        first <= last, last <= UInt64(Row.max)
      else { return [] }
      if try collection.count(txn) == Int(last - first + 1) { return Array(Row(first)...Row(last)) }
      var rows: [Row] = []
      var entry = try cursor.first()
      while let current = entry {
        rows.append(Row(truncatingIfNeeded: current.integerKey ?? 0))
        entry = try cursor.next()
      }
      return rows
    }
  }

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
        if try compiled.matches(RecordView(bytes: entry.value, row: row), scratch: &scratch) {
          rows.append(row)
          if let limit, rows.count >= limit { break }
        }
      }
    }
    return rows
  }
}
