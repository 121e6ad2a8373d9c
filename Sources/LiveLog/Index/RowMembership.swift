/// A set of rows asked about one row at a time, in no order: the members a top-k walk keeps as
/// it reads an ordered index, which lists rows by value rather than by row.
///
/// Dense members (no more than 256 rows of span per member, as an equality's rows among a
/// million) are set as bits of one bitmap over their span, so that each question costs one
/// load; sparse ones are searched. A walk asks about every row it passes, a thousand or more
/// for a top 20 of a 2% filter, and a binary search among 20,000 members misses the cache at
/// most of its 15 steps.
struct RowMembership {
  private enum Storage {
    /// Bit `row - low` of the words is set for each member.
    case bitmap(low: Row, words: [UInt64])
    /// The members, ascending.
    case sorted([Row])
  }

  private let storage: Storage

  /// The members `rows`, ascending and distinct (a `RowSet`).
  init(_ rows: [Row]) {
    guard let low = rows.first, let high = rows.last, rows.count >= 64,
      Int(high - low) / 256 <= rows.count
    else {
      storage = .sorted(rows)
      return
    }
    var words = [UInt64](repeating: 0, count: Int(high - low) / 64 + 1)
    words.withUnsafeMutableBufferPointer { words in
      for row in rows {
        let offset = Int(row - low)
        words[offset >> 6] |= 1 << UInt64(offset & 63)
      }
    }
    storage = .bitmap(low: low, words: words)
  }

  /// Whether `row` is a member.
  func contains(_ row: Row) -> Bool {
    switch storage {
    case .bitmap(let low, let words):
      guard row >= low else { return false }
      let offset = Int(row - low)
      return offset >> 6 < words.count && words[offset >> 6] & (1 << UInt64(offset & 63)) != 0
    case .sorted(let rows):
      return RowSet.contains(rows, row)
    }
  }
}
