import Testing

@testable import LiveLog

/// An integer field compared with a decimal is answered from the ordered index as a range of
/// whole numbers, which the per-row check does not re-test when the range is part of an `AND`: the
/// range must admit exactly the integers the comparison does, up to ±2^63. Held to exact
/// arithmetic in `Int128` (no code shared with the engine's `NumericOrder`).
@Suite struct IntegerBoundsTests {
  static let values: [Int64] = [
    .min, .min + 1, -9_210_000_000_000_000_000, -3, -1, 0, 1, 2, 3, 1_000,
    9_210_000_000_000_000_000, 9_223_372_036_854_774_784, .max - 1, .max,
  ]

  static let decimals: [Double] = [
    -1e300, -9.3e18, -9_223_372_036_854_775_808.0, -9.22e18, -9.21e18, -2.5, -1.0, -0.5, 0.0, 0.5, 1.0,
    2.5, 999.5, 9.21e18, 9.22e18, 9_223_372_036_854_774_784.0, 9_223_372_036_854_775_808.0, 9.3e18, 1e300,
  ]

  /// Whether `a OP d` holds, compared exactly: the decimal's whole part and whether it has a
  /// fraction, in 128-bit integers.
  static func holds(_ a: Int64, _ op: String, _ d: Double) -> Bool {
    // Past ±2^100 the decimal is beyond every Int64; within, its whole part fits Int128.
    let sign: Int
    if d >= 1e30 {
      sign = -1
    } else if d <= -1e30 {
      sign = 1
    } else {
      let whole = Int128(d.rounded(.down))
      let fraction = d != d.rounded(.down)
      let x = Int128(a)
      sign = x < whole ? -1 : x > whole ? 1 : (fraction ? -1 : 0)
    }
    switch op {
    case "<": return sign < 0
    case "<=": return sign <= 0
    case ">": return sign > 0
    case ">=": return sign >= 0
    default: return sign == 0
    }
  }

  @Test func decimalBoundsAdmitExactlyTheIntegersTheComparisonDoes() throws {
    let directory = try TemporaryDirectory()
    let store = try Store(directory: directory.child("store"))
    var batch: [Mutation] = []
    for (index, value) in Self.values.enumerated() {
      var repository = Repository(id: Int64(index + 1), fullName: "owner/kit\(index)")
      repository.stargazersCount = value
      batch.append(.upsert(repository))
    }
    try store.write(batch)
    for op in ["<", "<=", ">", ">=", "=="] {
      for d in Self.decimals {
        let wanted = Self.values.indices.filter { Self.holds(Self.values[$0], op, d) }.map { Int64($0 + 1) }
        let bound = "stargazers_count \(op) \(d)"
        for text in [bound, "\(bound) AND full_name CONTAINS 'kit'"] {
          let query = try Query(parsing: text, for: Repository.self)
          let ids = try store.results(Repository.self, query).ids()
          #expect(ids == wanted, "\(text)")
        }
      }
    }
  }
}
