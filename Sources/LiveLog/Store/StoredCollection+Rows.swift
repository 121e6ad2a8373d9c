import LMDB

extension StoredCollection {
  /// Every row of the collection, ascending (the first `limit` of them when given). Rows are
  /// numbered from one in insertion order and keep their number through updates, so while
  /// nothing was deleted they are the run from the first to the last, known from three lookups;
  /// otherwise the records' keys are walked.
  func everyRow(_ txn: some ReadableTransaction, limit: Int? = nil) throws -> [Row] {
    try txn.withCursor(records) { cursor in
      guard let first = try cursor.first()?.integerKey, let last = try cursor.last()?.integerKey,
        first <= last, last <= UInt64(Row.max)
      else { return [] }
      if try count(txn) == Int(last - first + 1) {
        let end = limit.map { min(last, first + UInt64(max($0, 1)) - 1) } ?? last
        return limit == 0 ? [] : Array(Row(first)...Row(end))
      }
      var rows: [Row] = []
      var entry = try cursor.first()
      while let current = entry, rows.count < limit ?? .max {
        rows.append(Row(truncatingIfNeeded: current.integerKey ?? 0))
        entry = try cursor.next()
      }
      return rows
    }
  }
}
