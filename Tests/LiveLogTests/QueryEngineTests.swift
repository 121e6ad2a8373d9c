import Foundation
import TestSupport
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

  /// A query run for its rows alone records the plan's steps without their texts (and without
  /// the estimate of a lookup read on its own, which orders nothing); `explain` runs the same
  /// plan with them: the same steps, counts and rows.
  @Test func aRunForItsRowsTakesTheStepsExplainShows() throws {
    let texts = [
      "full_name CONTAINS[c] 'anim'", "full_name CONTAINS[c] 'anim' AND language == 'Swift'",
      "name BEGINSWITH[c] 'react'", "NOT full_name CONTAINS 'a' AND language == 'Go'",
      "language == 'Go' OR full_name ENDSWITH[c] 'kit'", "stargazers_count BETWEEN {10, 100}",
      "stargazers_count > 10 SORT(stargazers_count DESC) LIMIT(5)", "forks_count > watchers_count",
      "language == 'Go' AND stargazers_count > 10 AND NOT full_name CONTAINS 'x'", "TRUEPREDICATE",
    ]
    for text in texts {
      let query = try Query(parsing: text)
      let explanation = try Self.fixture.store.explain(query)
      let (rows, steps) = try Self.fixture.store.read { txn, state in
        guard let collection = state.collection(named: "repositories") else {
          throw StoreError.unknownCollection(name: "repositories", known: [])
        }
        var run = QueryRun(collection: collection, txn: txn, explaining: false)
        return (try run.rows(for: query), run.steps)
      }
      #expect(rows.count == explanation.results, "\(text)")
      #expect(steps.allSatisfy { $0.description.isEmpty && $0.skipped == nil }, "\(text)")
      #expect(explanation.steps.allSatisfy { !$0.description.isEmpty }, "\(text)")
      #expect(!steps.isEmpty, "\(text)")
      #expect(steps.map(\.actual) == explanation.steps.map(\.actual), "\(text)")
      #expect(steps.map(\.exact) == explanation.steps.map(\.exact), "\(text)")
      #expect(steps.map(\.depth) == explanation.steps.map(\.depth), "\(text)")
      // The same estimates, but for lookups read on their own, which only `explain` counts.
      for (plain, explained) in zip(steps, explanation.steps) {
        #expect(plain.estimated == nil || plain.estimated == explained.estimated, "\(text)")
      }
    }
    let alone = try Self.fixture.store.explain(try Query(parsing: "full_name CONTAINS[c] 'anim'"))
    #expect(alone.steps.first?.estimated != nil)
  }

  /// `explain` names an ordered range as the query wrote it, and an `AND` of ranges of one field,
  /// read as one range, by its terms in order until the text passes 120 characters, then an
  /// ellipsis; an intersection nested in it by hand is one term, written as its own text. Random
  /// chains of terms, against that rule written out here on its own.
  @Test func anIntersectedRangeIsNamedByItsTermsInOrder() throws {
    func rule(_ terms: [String]) -> String {
      var text = ""
      for term in terms {
        if text.isEmpty {
          text = term
        } else if text.count < 120 {
          text += " AND " + term
        } else if !text.hasSuffix(" …") {
          text += " …"
        }
      }
      return text
    }
    func rangeText(_ predicate: LiveLog.Predicate) -> String? {
      guard case .lookup(let lookup) = QueryPlanner.plan(predicate),
        case .ordered(_, _, _, let range) = lookup.access
      else { return nil }
      return range.text
    }
    var random = SplitMix64(seed: 31)
    let operators = [">", ">=", "<", "<="]
    func randomTerms(_ count: Int) -> [String] {
      // Lower bounds below 0 and upper bounds above 10,000 keep the range from being empty.
      (0..<count).map { _ in
        let op = operators[Int.random(in: 0..<operators.count, using: &random)]
        let value =
          op.hasPrefix(">")
          ? -Int.random(in: 1...999_999, using: &random) : Int.random(in: 10_000...999_999, using: &random)
        return "\(op) \(value)"
      }
    }
    func comparisons(_ terms: [String]) throws -> [LiveLog.Predicate] {
      try terms.map { try Query(parsing: "stargazers_count " + $0).predicate }
    }
    for _ in 0..<60 {
      let terms = randomTerms(Int.random(in: 1...40, using: &random))
      let chain = try comparisons(terms)
      #expect(rangeText(chain.count == 1 ? chain[0] : .and(chain)) == rule(terms), "\(terms)")
      let inner = randomTerms(Int.random(in: 2...4, using: &random))
      let nested = LiveLog.Predicate.and(chain + [.and(try comparisons(inner))])
      #expect(rangeText(nested) == rule(terms + [rule(inner)]), "\(terms) + \(inner)")
    }
    #expect(
      rangeText(try Query(parsing: "stargazers_count BETWEEN {10, 100}").predicate) == "BETWEEN {10, 100}")
    let explanation = try Self.fixture.store.explain(
      try Query(parsing: "stargazers_count > 5 AND stargazers_count < 9"))
    #expect(
      explanation.steps.first?.description.hasPrefix("ordered index of stargazers_count: > 5 AND < 9") == true
    )
  }

  /// `explain` labels a step that checks every row it finds as giving candidates even when it
  /// finds none, and an intersection with a part left to the per-row check likewise: "exact"
  /// would say that its rows needed no check because there were none.
  @Test func aStepThatChecksEveryRowItFindsIsNotExactForFindingNone() throws {
    let substring = try Self.fixture.store.explain(try Query(parsing: "full_name CONTAINS 'zzqqzz'"))
    #expect(substring.steps.map(\.actual) == [0])
    #expect(substring.steps.map(\.exact) == [false])
    let both = try Self.fixture.store.explain(
      try Query(parsing: "forks_count > watchers_count + 0 AND full_name CONTAINS 'zzqqzz'"))
    #expect(both.steps.first?.actual == 0)
    #expect(both.steps.first?.exact == false)
    let exact = try Self.fixture.store.explain(try Query(parsing: "full_name CONTAINS[cd] 'zzqqzz'"))
    #expect(exact.steps.map(\.exact) == [true])
  }

  /// A range sorted by its own field is answered by walking the range in sort order: random
  /// ranges, directions, ties broken by a second key or by insertion order, with and without a
  /// limit, against the brute-force answer.
  @Test func rangesSortedByTheirFieldAgreeWithBruteForce() throws {
    var random = SplitMix64(seed: 77)
    let fields = ["stargazers_count", "forks_count", "watchers_count", "size"]
    let shapes = ["BETWEEN {%a, %b}", "> %a", "<= %b", "== %a", "== nil"]
    for round in 0..<200 {
      let field = fields[Int(random.next() % UInt64(fields.count))]
      let low = Int(random.next() % 200) - 5
      let high = low + Int(random.next() % 3_000)
      let shape = shapes[Int(random.next() % UInt64(shapes.count))]
        .replacingOccurrences(of: "%a", with: String(low)).replacingOccurrences(of: "%b", with: String(high))
      let direction = random.next() % 2 == 0 ? "ASC" : "DESC"
      let tie = random.next() % 3 == 0 ? ", name ASC" : ""
      let limit = random.next() % 2 == 0 ? " LIMIT(\(1 + random.next() % 40))" : ""
      let text = "\(field) \(shape) SORT(\(field) \(direction)\(tie))\(limit)"
      let query = try Query(parsing: text)
      let expected = Self.bruteForce(query)
      let actual = try Self.engine(query)
      #expect(actual == expected, "round \(round): \(text)")
      if actual != expected { return }
      let explanation = try Self.fixture.store.explain(query)
      #expect(explanation.checked == 0, "\(text) read records to check them")
      #expect(explanation.steps.first?.description.contains("walked in sort order") == true, "\(text)")
    }
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
