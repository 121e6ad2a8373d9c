import Changesets
import Foundation
import Testing

@testable import LiveLog

/// The differential tests of queries, live changesets and history, on a collection of every
/// field type declared at run time (besides `Repository`, which the other suites use).
@Suite struct GeneratedCollectionTests {
  static let schema = GeneratedCollection.schema

  @Test(arguments: 0..<4)
  func randomQueriesAgreeWithBruteForce(chunk: Int) throws {
    let directory = try TemporaryDirectory()
    let records = GeneratedCollection.records(count: 2_000, seed: 40 + UInt64(chunk))
    let store = try GeneratedCollection.store(directory, records: records)
    var random = SplitMix64(seed: 500 + UInt64(chunk))
    var generator = PredicateGenerator(schema: Self.schema, records: records)
    for round in 0..<200 {
      let generated = generator.query(using: &random)
      // Through the query language, as a user would write it.
      let query = try Query(parsing: generated.text, for: Self.schema, arguments: [])
      #expect(query == generated, "\(generated.text) ≠ \(query.text)")
      let expected = GeneratedCollection.bruteForce(query, records)
      let actual = try store.results(in: "things", query).keys()
      #expect(actual == expected, "chunk \(chunk) round \(round): \(query.text)")
      if actual != expected { return }
    }
  }

  /// Random commits (upserts, edits, deletes, re-inserts) under 30 live queries: after every
  /// commit each changeset turns the previous result into the brute-force one.
  @Test func liveQueriesAgreeWithBruteForceAfterEveryCommit() throws {
    let directory = try TemporaryDirectory()
    var random = SplitMix64(seed: 7)
    var pool = GeneratedCollection.records(count: 600, seed: 8)
    let store = try GeneratedCollection.store(directory, records: Array(pool.prefix(300)))
    var generator = PredicateGenerator(schema: Self.schema, records: pool)
    var lives: [LiveQuery] = []
    let collection = try store.read { _, state in try #require(state.collection(named: "things")) }
    for index in 0..<30 {
      var query = generator.query(using: &random)
      if index % 3 == 0 {
        query.clauses.append(.limit(Int.random(in: 1...15, using: &random)))
      } else if index % 3 == 1 {
        query.clauses.removeAll { if case .limit = $0 { true } else { false } }
      }
      let initial = try store.results(in: "things", query.unlimited)
      let matches = try initial.rows.map { row -> (row: Row, values: [FieldValue]) in
        let values = try store.environment.read { txn in
          try collection.values(try #require(try collection.record(at: UInt64(row), txn)), row: UInt64(row))
        }
        return (row, values)
      }
      lives.append(
        try LiveQuery(
          query: query, collection: "things", watching: nil, version: try store.version(), matches: matches))
    }
    // The model: every stored record by key, in insertion order.
    var model = Array(pool.prefix(300))
    var previous = try lives.map { try store.results(in: "things", $0.query).keys() }
    for round in 0..<40 {
      var batch: [Mutation] = []
      var touched: Set<PrimaryKey> = []
      for _ in 0..<Int.random(in: 1...20, using: &random) {
        let index = Int.random(in: 0..<pool.count, using: &random)
        guard let key = PrimaryKey(pool[index][0]), touched.insert(key).inserted else { continue }
        switch Int.random(in: 0..<6, using: &random) {
        case 0:
          batch.append(.delete(from: Self.schema, key: key))
          model.removeAll { PrimaryKey($0[0]) == key }
        default:
          var values = GeneratedCollection.record(index, &random)
          values[0] = pool[index][0]
          pool[index] = values
          batch.append(.upsert(RecordValues(schema: Self.schema, values: values)))
          if let at = model.firstIndex(where: { PrimaryKey($0[0]) == key }) {
            model[at] = values
          } else {
            model.append(values)
          }
        }
      }
      let before = try store.version()
      try store.write(batch)
      let commits = try store.read { txn, catalog in
        try store.log.commits(
          after: before, through: try store.log.lastLSN(txn), catalog: catalog, collections: ["things"], txn)
      }
      for index in lives.indices {
        let expected = GeneratedCollection.bruteForce(lives[index].query, model)
        #expect(try store.results(in: "things", lives[index].query).keys() == expected)
        var changeset: Changeset?
        for commit in commits { changeset = try lives[index].apply(commit) }
        guard let changeset else {
          #expect(
            previous[index] == expected,
            "round \(round): no changeset, but \(lives[index].query.text) changed")
          continue
        }
        let applied = try changeset.applied(to: previous[index]) { expected[$0] }
        #expect(applied == expected, "round \(round): \(lives[index].query.text)")
      }
      previous = try lives.map { try store.results(in: "things", $0.query).keys() }
    }
  }

  /// As-of queries at random versions equal the same queries on a store replayed to that version.
  @Test func asOfQueriesEqualQueriesOnTheReplayedPrefix() throws {
    let directory = try TemporaryDirectory()
    var random = SplitMix64(seed: 11)
    let pool = GeneratedCollection.records(count: 300, seed: 12)
    let store = try GeneratedCollection.store(directory, records: Array(pool.prefix(100)))
    for _ in 0..<50 {
      var batch: [Mutation] = []
      for _ in 0..<Int.random(in: 1...15, using: &random) {
        let index = Int.random(in: 0..<pool.count, using: &random)
        if Int.random(in: 0..<5, using: &random) == 0, let key = PrimaryKey(pool[index][0]) {
          batch.append(.delete(from: Self.schema, key: key))
        } else {
          var values = GeneratedCollection.record(index, &random)
          values[0] = pool[index][0]
          batch.append(.upsert(RecordValues(schema: Self.schema, values: values)))
        }
      }
      try store.write(batch)
    }
    let version = try store.version()
    var generator = PredicateGenerator(schema: Self.schema, records: pool)
    for (index, lsn) in [1, 2, version / 3, version / 2, version - 1, version].enumerated() {
      let prefix = try store.replay(into: directory.child("prefix-\(index)"), through: lsn)
      for _ in 0..<20 {
        let query = generator.query(using: &random)
        let asOf = try store.results(in: "things", query, asOf: lsn).keys()
        let rebuilt =
          try prefix.schema(of: "things") == nil ? [] : try prefix.results(in: "things", query).keys()
        #expect(asOf == rebuilt, "as of \(lsn) of \(version): \(query.text)")
      }
    }
    #expect(try store.verify().passed)
  }
}
