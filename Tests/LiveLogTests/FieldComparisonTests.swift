import Foundation
import TestSupport
import Testing

@testable import LiveLog

/// A comparison of two fields that both have an ordered index and one type, integers or dates
/// (`forks_count > watchers_count`), read by row from the ordered columns rather than by checking
/// every record: the answer is a brute-force filter's (`ReferenceEvaluator`, which shares no code
/// with the store's query path) for every operator, with nil on either side or both, alone and
/// inside `AND`, `OR` and `NOT`, across segments, recent rows, updates, deletions and a fold.
@Suite struct FieldComparisonTests {
  /// Values from a small range, so that equal pairs are common, and nil one time in eight.
  /// Now and then the extremes: `Int64.min` and `.max` (a block's widest deltas), dates before
  /// 1970 and nanoseconds that need four bytes.
  static func repository(_ id: Int64, _ random: inout SplitMix64) -> Repository {
    func count() -> Int64? {
      switch random.next() % 40 {
      case 0..<5: nil
      case 5: .min
      case 6: .max
      default: Int64(random.next() % 12) - 2
      }
    }
    func date() -> Timestamp? {
      switch random.next() % 40 {
      case 0..<5: return nil
      case 5: return Timestamp(secondsSince1970: -86_400 * 365, nanoseconds: 999_999_999)
      default:
        return Timestamp(
          secondsSince1970: 1_500_000_000 + Int64(random.next() % 4),
          nanoseconds: Int32(random.next() % 3) * 400_000_000)
      }
    }
    let mark = random.next() % 50 == 0 ? "QzxKit" : "kit"
    var repository = Repository(id: id, fullName: "owner\(random.next() % 100)/\(mark)-\(id)")
    repository.stargazersCount = count()
    repository.forksCount = count()
    repository.watchersCount = count()
    repository.createdAt = date()
    repository.updatedAt = date()
    repository.language = random.next() % 3 == 0 ? "Swift" : "Go"
    return repository
  }

  static let comparisons: [String] = {
    let pairs = [
      ("forks_count", "watchers_count"), ("stargazers_count", "forks_count"), ("created_at", "updated_at"),
      ("forks_count", "forks_count"),
    ]
    return pairs.flatMap { left, right in
      ["==", "!=", "<", "<=", ">", ">="].map { "\(left) \($0) \(right)" }
    }
  }()

  static let queries: [String] =
    comparisons
    + [
      "full_name CONTAINS[c] 'qzx' AND forks_count > watchers_count",
      "language == 'Swift' AND created_at <= updated_at",
      "forks_count >= watchers_count OR stargazers_count == 3",
      "NOT forks_count < watchers_count",
      "language == 'Go' AND NOT stargazers_count != forks_count",
      "stargazers_count > 3 AND forks_count > watchers_count",
      "forks_count > watchers_count AND stargazers_count <= forks_count",
    ]

  @Test(arguments: [UInt64(1), 2])
  func comparisonsAgreeWithBruteForce(seed: UInt64) throws {
    let directory = try TemporaryDirectory()
    let modelled = try ModelledStore(in: directory)
    let store = modelled.store
    var random = SplitMix64(seed: seed)
    for batch in 0..<3 {
      try modelled.upsert((0..<1_500).map { Self.repository(Int64(batch * 1_500 + $0 + 1), &random) })
    }
    func check(_ stage: String) throws {
      for text in Self.queries {
        let query = try Query(parsing: text)
        let expected = modelled.expectedIDs(query)
        let ids = try store.results(query).ids().sorted()
        #expect(ids == expected, "\(stage): \(text): \(ids.count) ids, \(expected.count) expected")
        // With a limit and no sort, the read stops early: the first rows of the whole answer.
        let limited = try Query(parsing: text + " LIMIT(7)")
        #expect(
          try store.results(limited).ids() == Array(try store.results(query).ids().prefix(7)),
          "\(stage): \(text)")
        if text.hasPrefix("full_name CONTAINS[c] 'qzx' AND") {
          let steps = try store.explain(query).steps
          #expect(
            steps.contains { $0.description.contains("by row among") && $0.exact }, "\(stage): \(steps)")
        }
        guard Self.comparisons.contains(text) else { continue }
        let explanation = try store.explain(query)
        #expect(
          explanation.steps.count == 1
            && explanation.steps[0].description.hasPrefix("ordered index columns of")
            && explanation.steps[0].exact && explanation.checked == 0,
          "\(stage): \(text): \(explanation.steps)")
      }
    }
    try check("segments")
    for round in 0..<60 {
      let id = Int64(1 + random.next() % 4_500)
      switch round % 3 {
      case 0, 1: try modelled.upsert([Self.repository(id, &random)])
      default: try modelled.delete(id)
      }
    }
    try check("recent rows")
    // A large commit folds the recent rows into the columns.
    try modelled.upsert((0..<600).map { Self.repository(Int64(10_000 + $0), &random) })
    try check("folded")
    let report = try store.verify(scratchParent: directory.path)
    #expect(report.passed, "\(report.difference.map(String.init(describing:)) ?? "")")
  }

  /// Only integers with integers and dates with dates, both with an ordered index, are read from
  /// the columns; any other comparison of two fields checks every row, as before.
  @Test func otherComparisonsOfTwoFieldsCheckEveryRow() throws {
    let directory = try TemporaryDirectory()
    let modelled = try ModelledStore(in: directory)
    var random = SplitMix64(seed: 5)
    try modelled.upsert((1...300).map { Self.repository(Int64($0), &random) })
    for text in ["name == description", "full_name != owner.login", "stargazers_count + 1 > forks_count"] {
      let query = try Query(parsing: text)
      #expect(try modelled.store.results(query).ids().sorted() == modelled.expectedIDs(query), "\(text)")
      let steps = try modelled.store.explain(query).steps
      #expect(steps.first?.description.hasPrefix("scan:") == true, "\(text): \(steps)")
    }
  }

  /// A block of one field's column missing beside the other's is damage, reported by name rather
  /// than read as rows that are not there.
  @Test func aMissingColumnBlockIsReported() throws {
    let directory = try TemporaryDirectory()
    let modelled = try ModelledStore(in: directory)
    var random = SplitMix64(seed: 6)
    try modelled.upsert((1...700).map { Self.repository(Int64($0), &random) })
    let store = modelled.store
    let collection = try store.repositoriesCollection()
    let columns = try #require(collection.orderedColumns)
    let slot = try #require(collection.schema.fields.first { $0.name == "watchers_count" }).position
    try store.environment.write { txn in
      _ = try txn.delete(columns.database, OrderedColumns.key(block: 1, slot: UInt8(slot)))
    }
    #expect {
      try store.results(try Query(parsing: "forks_count > watchers_count")).ids()
    } throws: { error in
      guard case StoreError.corruptState(let reason) = error else { return false }
      return reason.contains("ordered columns") && reason.contains("watchers_count")
    }
  }
}
