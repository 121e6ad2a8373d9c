import Foundation
import Testing

@testable import LiveLog

/// The engine against a brute-force evaluation of the same predicates over the same records.
@Suite struct QueryEngineTests {
  static let fixture = QueryFixture.shared
  static let schema = Repository.schema

  static func field(_ name: String) -> Field {
    schema.field(named: name) ?? schema.fields[0]
  }

  static let values: [[FieldValue]] = fixture.repositories.map(\.fieldValues)

  /// The brute-force answer: the reference evaluator over every record.
  static func bruteForce(_ query: Query) -> [Int64] {
    ReferenceEvaluator.answer(query, values).map { fixture.repositories[$0].id }
  }

  static func engine(_ query: Query) throws -> [Int64] {
    try fixture.store.results(query).ids()
  }

  @Test func theSeedQueryIsAnsweredFromTheSubstringIndex() throws {
    let query = Query(
      predicate: .comparison(
        Comparison(
          field: Self.field("full_name"), operator: .contains, options: .caseInsensitive,
          value: .string("anim"))))
    let ids = try Self.engine(query)
    #expect(ids == Self.bruteForce(query))
    let explanation = try Self.fixture.store.explain(query)
    #expect(explanation.usesIndex)
    #expect(explanation.steps.first?.description.contains("trigrams") == true)
  }

  @Test(arguments: 0..<8)
  func randomPredicatesAgreeWithBruteForce(chunk: Int) throws {
    var random = SplitMix64(seed: 1_000 + UInt64(chunk))
    var generator = PredicateGenerator(repositories: Self.fixture.repositories)
    for round in 0..<250 {
      let generated = generator.query(using: &random)
      // Through the query language, as a user would write it.
      let query = try Query(parsing: generated.text)
      #expect(query == generated, "\(generated.text) ≠ \(query.text)")
      let expected = Self.bruteForce(query)
      let actual = try Self.engine(query)
      #expect(actual == expected, "chunk \(chunk) round \(round): \(query.text)")
      if actual != expected { return }
    }
  }
}
