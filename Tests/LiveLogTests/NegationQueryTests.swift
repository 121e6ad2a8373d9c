import Foundation
import Testing

@testable import LiveLog

/// `NOT` answered from the indexes (every row but the inner part's matches) against a brute-force
/// evaluation, on stores whose rows have holes (deleted records) and updated records, so that
/// "every row" is not simply the run of row numbers.
@Suite struct NegationQueryTests {
  static let schema = GeneratedCollection.schema

  @Test(arguments: [false, true])
  func negationsAgreeWithBruteForce(withDeletions: Bool) throws {
    let directory = try TemporaryDirectory()
    var random = SplitMix64(seed: withDeletions ? 71 : 72)
    var records = GeneratedCollection.records(count: 1_500, seed: 73)
    let store = try GeneratedCollection.store(directory, records: records)
    if withDeletions {
      var batch: [Mutation] = []
      var kept: [[FieldValue]] = []
      for (index, values) in records.enumerated() {
        guard let key = PrimaryKey(values[0]) else { continue }
        if index % 7 == 3 || index == 0 || index == records.count - 1 {
          batch.append(.delete(from: Self.schema, key: key))
        } else if index % 11 == 5 {
          var edited = GeneratedCollection.record(index, &random)
          edited[0] = values[0]
          batch.append(.upsert(RecordValues(schema: Self.schema, values: edited)))
          kept.append(edited)
        } else {
          kept.append(values)
        }
      }
      try store.write(batch)
      records = kept
    }
    var generator = PredicateGenerator(schema: Self.schema, records: records)
    for round in 0..<150 {
      let a = generator.query(using: &random)
      let b = generator.query(using: &random)
      let predicate: LiveLog.Predicate =
        switch round % 3 {
        case 0: .not(a.predicate)
        case 1: .and([a.predicate, .not(b.predicate)])
        default: .and([.not(a.predicate), .not(b.predicate)])
        }
      let query = Query(predicate: predicate, sort: a.sort, limit: a.limit)
      let expected = GeneratedCollection.bruteForce(query, records)
      let actual = try store.results(in: "things", query).keys()
      #expect(actual == expected, "round \(round): \(query.text)")
      if actual != expected { return }
    }
  }

  @Test func aNegatedIndexedPartIsSubtractedNotScanned() throws {
    let fixture = QueryFixture.shared
    let text = "NOT full_name CONTAINS[c] 'anim'"
    let query = try Query(parsing: text)
    let explanation = try fixture.store.explain(query)
    #expect(explanation.steps.first?.description.hasPrefix("NOT") == true)
    // Only the substring index's candidates are read, not every record.
    #expect(explanation.checked < fixture.repositories.count / 10)
    #expect(try fixture.store.results(query).ids() == QueryEngineTests.bruteForce(query))
  }
}

/// `RowSet.ascending` (a bitmap pass for many rows over a narrow span, a sort otherwise) against
/// `Set` and `sorted()`.
@Suite struct RowSetAscendingTests {
  @Test(arguments: 0..<6)
  func ascendingEqualsSortedDistinct(seed: UInt64) {
    var random = SplitMix64(seed: 300 + seed)
    for _ in 0..<40 {
      let count = [0, 1, 5, 1_023, 1_024, 3_000, 20_000].randomElement(using: &random) ?? 0
      let span = [1, 64, 2_000, 100_000, 5_000_000].randomElement(using: &random) ?? 1
      let base = Row.random(in: 0...(Row.max - Row(span)), using: &random)
      let rows = (0..<count).map { _ in base + Row.random(in: 0..<Row(span), using: &random) }
      #expect(RowSet.ascending(rows) == Set(rows).sorted())
    }
  }
}
