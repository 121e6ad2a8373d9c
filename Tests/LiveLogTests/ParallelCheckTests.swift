import Foundation
import LMDB
import Testing

@testable import LiveLog

/// Checks of many candidates run on every core, each part reading its records with cursors of
/// its own (`QueryExecutor.checkOnEveryCore`). Differential: a model of the records (a list of
/// keys in insertion order and their values), changed alongside the store, answered by the
/// reference evaluator, must equal the engine's ids, in order.
@Suite struct ParallelCheckTests {
  /// Queries that read every record (relations: two fields compared, arithmetic, a count) and
  /// others whose plans may leave candidates to the check (a negation, text folded by `[d]`).
  static let scans = [
    "forks_count > stargazers_count + 0", "stargazers_count + forks_count > 2500",
    "forks_count == stargazers_count OR topics.@count > 2", "NOT (forks_count < 50)",
    "name CONTAINS[d] 'ecole'",
  ]

  @Test(arguments: [3 as UInt64, 11])
  func checksOnEveryCoreAgreeWithTheModel(seed: UInt64) throws {
    let directory = try TemporaryDirectory()
    let store = try Store.scratch(in: directory)
    var random = SplitMix64(seed: seed)
    var order: [Int64] = []
    var records: [Int64: Repository] = [:]
    func write(_ batch: [Repository]) throws {
      try store.write(batch.map(Mutation.upsert))
      for repository in batch {
        if records[repository.id] == nil { order.append(repository.id) }
        records[repository.id] = repository
      }
    }
    // Rows for many parts (of `parallelCheckMinimum / 2` and more), folded into segments.
    let generated = QueryFixture.generated(
      count: max(20_000, 8 * QueryExecutor<Transaction>.parallelCheckMinimum), seed: seed)
    for start in stride(from: 0, to: generated.count, by: 5_000) {
      try write(Array(generated[start..<min(start + 5_000, generated.count)]))
    }
    // Then small commits, which the recent rows hold: updates of folded rows, new rows and
    // deletes, so that parts meet rows whose current version is not in the row table.
    for round in 0..<6 {
      var batch: [Repository] = []
      for _ in 0..<40 {
        var repository = records[order[Int.random(in: 0..<order.count, using: &random)]] ?? generated[0]
        repository.forksCount = Int64.random(in: 0...6_000, using: &random)
        batch.append(repository)
      }
      var fresh = QueryFixture.generated(count: 1, seed: seed &+ UInt64(round) &+ 100)[0]
      fresh = Repository(id: 8_000_000_000 + Int64(round), fullName: fresh.fullName)
      fresh.forksCount = 7
      batch.append(fresh)
      try write(batch)
      let doomed = order[Int.random(in: 0..<order.count, using: &random)]
      try store.write([Mutation.delete(Repository.self, id: doomed)])
      records[doomed] = nil
      order.removeAll { $0 == doomed }
    }
    let values = order.map { records[$0]?.fieldValues ?? [] }
    for (index, text) in Self.scans.enumerated() {
      let query = try Query(parsing: text, for: Repository.self)
      let expected = ReferenceEvaluator.answer(query, values).map { order[$0] }
      #expect(try store.results(Repository.self, query).ids() == expected, "\(text)")
      if index < 3 {
        // The relations read every record, past the threshold and with no limit: the parallel
        // path ran (the serial one would read as many, so the count alone does not show it).
        #expect(try store.explain(query).checked == order.count, "\(text)")
        #expect(order.count >= QueryExecutor<Transaction>.parallelCheckMinimum && query.limit == nil)
      }
    }
  }
}
