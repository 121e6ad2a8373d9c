import Foundation
import Testing

@testable import LiveLog

/// Every way of reading a state — results now and as of a version, both ends of a version diff, a
/// subscription's first view — against the reference evaluator over a model of the records at
/// each version, kept beside the store by the test alone.
@Suite struct StateReadTests {
  /// The records at one version, in insertion (row) order.
  struct Model {
    var order: [Int64] = []
    var records: [Int64: [FieldValue]] = [:]

    mutating func apply(_ mutation: Repository?, deleting id: Int64) {
      guard let repository = mutation else {
        if records.removeValue(forKey: id) != nil { order.removeAll { $0 == id } }
        return
      }
      // An existing record keeps its row; a new or re-inserted one takes the next.
      if records[id] == nil { order.append(id) }
      records[id] = repository.fieldValues
    }

    func answer(_ query: Query) -> [Int64] {
      ReferenceEvaluator.answer(query, order.map { records[$0] ?? [] }).map { order[$0] }
    }
  }

  @Test(arguments: [UInt64(7), 8])
  func everyReadOfAStateEqualsTheModelOfThatVersion(seed: UInt64) async throws {
    let directory = try TemporaryDirectory()
    let store = try Store.scratch(in: directory)
    var random = SplitMix64(seed: seed)
    let pool = Array(QueryFixture.shared.repositories.shuffled(using: &random).prefix(150))
    var model = Model()
    var models: [UInt64: Model] = [0: model]
    for _ in 0..<40 {
      var batch: [Mutation] = []
      // Distinct records within a commit: the model need not guess how one commit's mutations
      // of the same key combine.
      for var repository in pool.shuffled(using: &random).prefix(Int.random(in: 1...20, using: &random)) {
        if Int.random(in: 0..<5, using: &random) == 0 {
          batch.append(.delete(id: repository.id))
          model.apply(nil, deleting: repository.id)
        } else {
          repository.stargazersCount = Int64.random(in: 0...3_000, using: &random)
          batch.append(.upsert(repository))
          model.apply(repository, deleting: repository.id)
        }
      }
      try store.write(batch)
      models[try store.version()] = model
    }
    let version = try store.version()
    let versions = models.keys.sorted()
    var generator = PredicateGenerator(repositories: pool)
    for _ in 0..<40 {
      let query = generator.query(using: &random)
      let a = versions.randomElement(using: &random) ?? 0
      // The store's version half the time: the path that reads the current state alone.
      let b =
        Bool.random(using: &random) ? version : versions.filter { $0 >= a }.randomElement(using: &random) ?? a
      let (old, new) = (models[a]?.answer(query), models[b]?.answer(query))
      #expect(try store.results(query).ids() == models[version]?.answer(query), "now: \(query.text)")
      #expect(try store.results(query, asOf: a).ids() == old, "as of \(a): \(query.text)")
      let diff = try store.diff(query, from: a, to: b)
      #expect(try diff.from.ids() == old, "diff from \(a): \(query.text)")
      #expect(try diff.to.ids() == new, "diff to \(b): \(query.text)")
      for since in [a, nil] {
        var iterator = try store.results(query).changes(since: since).makeAsyncIterator()
        guard case .initial(let initial)? = try await iterator.next() else {
          Issue.record("no initial delivery since \(since.map(String.init) ?? "now"): \(query.text)")
          return
        }
        #expect(
          try initial.ids() == (since == nil ? models[version] : models[a])?.answer(query),
          "first view since \(since.map(String.init) ?? "now"): \(query.text)")
      }
    }
  }
}
