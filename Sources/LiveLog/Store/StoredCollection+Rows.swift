import LMDB

extension StoredCollection {
  /// Every row of the collection, ascending (the first `limit` of them when given). Rows are
  /// numbered from one in insertion order and keep their number through updates, so while
  /// nothing was deleted they are the run from the first to the next row, known from the count;
  /// otherwise the row table's blocks are read, with the recent rows on top.
  func everyRow(_ txn: some ReadableTransaction, limit: Int? = nil, recent: RecentRows? = nil) throws -> [Row]
  {
    let next = try nextRow(txn)
    let total = try count(txn)
    // A count and a next row that agree are taken at their word only within the rows there can
    // be: damaged ones must not make an array of billions.
    if next <= UInt64(Row.max), total == Int(next) - 1 {
      let end = limit.map { min(next, 1 + UInt64(max($0, 0))) } ?? next
      return end <= 1 ? [] : Array(1..<Row(truncatingIfNeeded: end))
    }
    let recent = try recent ?? RecentRows.load(self, txn)
    var rows: [Row] = []
    rows.reserveCapacity(min(total, 1 << 20))
    do {
      try rowTable.forEachBlock(txn) { block in
        var bits = block.mask
        while bits != 0 {
          rows.append(Row(truncatingIfNeeded: block.index << 6) + Row(bits.trailingZeroBitCount))
          bits &= bits - 1
        }
        return true
      }
    } catch let damage as PageDamage {
      throw damaged("the row table", damage)
    }
    rows = recent.overlay(rows, matching: recent.presentRows)
    if let limit, rows.count > limit { rows.removeLast(rows.count - limit) }
    return rows
  }
}
