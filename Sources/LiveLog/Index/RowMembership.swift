/// A set of rows asked about one row at a time, in no order: the members a top-k walk keeps as
/// it reads an ordered index, which lists rows by value rather than by row.
///
/// Dense members (`RowSet.bitmap`'s rule, which an equality's rows among a million meet) asked
/// about often enough are set as bits of one bitmap over their span, so that each
/// question costs one load; others are searched. A binary search among 20,000 members misses the
/// cache at most of its 15 steps: measured at 1M records, the 1,000 questions of a top 20 of a 2%
/// filter cost about 60 µs that way, and setting the 20,000 bits about 15 µs.
struct RowMembership {
  private enum Storage {
    /// Bit `row - low` of the words is set for each member.
    case bitmap(low: Row, bitmap: Bitmap)
    /// The members, ascending.
    case sorted([Row])
  }

  private let storage: Storage
  /// The greatest member; nil when there is none.
  let last: Row?

  /// Questions, against members set as bits, at which a bitmap pays for itself: one binary
  /// search costs about as much as setting 75 members' bits (figures above), so 32 leaves a margin.
  private static var membersPerQuestion: Int { 32 }

  /// The members `rows`, ascending and distinct (a `RowSet`), which a walk expects to ask about
  /// `questions` rows.
  init(_ rows: [Row], questions: Int) {
    last = rows.last
    guard let low = rows.first, let high = rows.last, questions >= rows.count / Self.membersPerQuestion,
      let words = RowSet.bitmap(of: rows, low: low, high: high)
    else {
      storage = .sorted(rows)
      return
    }
    storage = .bitmap(low: low, bitmap: Bitmap(words))
  }

  /// A bitmap's words, kept for the next bitmap once the membership is dropped (`SpareWords`).
  private final class Bitmap: Sendable {
    let words: [UInt64]
    init(_ words: [UInt64]) { self.words = words }
    deinit { SpareWords.shared.keep(words) }
  }

  /// Whether the members are held as a bitmap (for tests).
  var isBitmap: Bool {
    if case .bitmap = storage { return true }
    return false
  }

  /// Whether `row` is a member.
  func contains(_ row: Row) -> Bool {
    switch storage {
    case .bitmap(let low, let bitmap):
      guard row >= low else { return false }
      let (word, mask) = RowSet.bit(Int(row - low))
      return word < bitmap.words.count && bitmap.words[word] & mask != 0
    case .sorted(let rows):
      return RowSet.contains(rows, row)
    }
  }
}
