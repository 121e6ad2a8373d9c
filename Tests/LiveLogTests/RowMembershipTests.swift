import Testing

@testable import LiveLog

/// `RowMembership` (a bitmap over dense members, a binary search among sparse ones) against
/// `Set.contains`, for members of every density, asked about every member, rows around and
/// between them, and the ends of the row space.
@Suite struct RowMembershipTests {
  /// Every member, its neighbours, `extra` and the ends of the row space, asked of both.
  private func expectAgreement(_ members: Set<Row>, _ membership: RowMembership, extra: [Row] = []) {
    var asked: [Row] = [0, 1, Row.max - 1, Row.max] + extra
    for member in members.prefix(2_000) {
      asked.append(member)
      if member > 0 { asked.append(member - 1) }
      if member < Row.max { asked.append(member + 1) }
    }
    for row in asked where membership.contains(row) != members.contains(row) {
      Issue.record("row \(row) among \(members.count) members from \(members.min() ?? 0)")
      return
    }
  }

  @Test(arguments: 0..<6)
  func answersAsASetDoes(seed: UInt64) {
    var random = SplitMix64(seed: 700 + seed)
    for _ in 0..<40 {
      let count = [0, 1, 63, 64, 65, 1_000, 20_000].randomElement(using: &random) ?? 0
      let span = [1, 64, 2_000, 256 * 1_000, 1_000_000, 50_000_000].randomElement(using: &random) ?? 1
      let base = Row.random(in: 0...(Row.max - Row(span - 1)), using: &random)
      let members = Set((0..<count).map { _ in base + Row.random(in: 0..<Row(span), using: &random) })
      let questions = [0, 10, 1_000, 1_000_000].randomElement(using: &random) ?? 0
      let extra = (0..<2_000).map { _ in
        base &+ Row.random(in: 0..<Row(min(UInt64(span) + 200, UInt64(Row.max))), using: &random)
      }
      expectAgreement(members, RowMembership(members.sorted(), questions: questions), extra: extra)
    }
  }

  /// The edges of the choice (64 members, four words of span per member, enough questions) and
  /// of the row space, each on the path it should take.
  @Test func takesTheBitmapExactlyWhereItPays() {
    let cases: [(rows: [Row], questions: Int, bitmap: Bool)] = [
      (Array((Row.max - 99)...Row.max), 100, true),
      (Array(0..<64), 2, true),
      (Array(0..<63), 1_000, false),
      (Array(0..<64), 1, false),
      ((0..<64).map { $0 * 256 }, 64, true),
      // 63 gaps of 261 rows span 256 words of 64 rows (four per member); of 262, 257.
      ((0..<64).map { $0 * 261 }, 64, true),
      ((0..<64).map { $0 * 262 }, 64, false),
      ((0..<20_000).map { $0 * 50 }, 1_000, true),
      ((0..<20_000).map { $0 * 50 }, 100, false),
    ]
    for (rows, questions, bitmap) in cases {
      let membership = RowMembership(rows, questions: questions)
      #expect(membership.isBitmap == bitmap, "\(rows.count) rows from \(rows[0]) to \(rows[rows.count - 1])")
      expectAgreement(
        Set(rows), membership, extra: [rows[0] &- 1, rows[rows.count - 1] &+ 1, rows[rows.count / 2] + 1])
    }
  }
}
