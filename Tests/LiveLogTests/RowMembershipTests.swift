import Testing

@testable import LiveLog

/// `RowMembership` (a bitmap over dense members, a binary search among sparse ones) against
/// `Set.contains`, for members of every density, asked about every member, rows around and
/// between them, and the ends of the row space.
@Suite struct RowMembershipTests {
  @Test(arguments: 0..<6)
  func answersAsASetDoes(seed: UInt64) {
    var random = SplitMix64(seed: 700 + seed)
    for _ in 0..<40 {
      let count = [0, 1, 63, 64, 65, 1_000, 20_000].randomElement(using: &random) ?? 0
      let span = [1, 64, 2_000, 256 * 1_000, 1_000_000, 50_000_000].randomElement(using: &random) ?? 1
      let base = Row.random(in: 0...(Row.max - Row(span - 1)), using: &random)
      let members = Set((0..<count).map { _ in base + Row.random(in: 0..<Row(span), using: &random) })
      let membership = RowMembership(members.sorted())
      var asked: [Row] = [0, 1, Row.max - 1, Row.max]
      for member in members.prefix(2_000) {
        asked.append(member)
        if member > 0 { asked.append(member - 1) }
        if member < Row.max { asked.append(member + 1) }
      }
      for _ in 0..<2_000 {
        asked.append(
          base &+ Row.random(in: 0..<Row(min(UInt64(span) + 200, UInt64(Row.max))), using: &random))
      }
      for row in asked where membership.contains(row) != members.contains(row) {
        Issue.record("row \(row) among \(members.count) members over a span of \(span) from \(base)")
        break
      }
    }
  }
}
