import Changesets
import Foundation
import Testing

@testable import LiveLog

/// Live queries against brute force, commit by commit.
@Suite struct LiveQueryTests {
  /// The length of the longest common subsequence of two id lists, by dynamic programming.
  static func lcs(_ a: [Int64], _ b: [Int64]) -> Int {
    guard !a.isEmpty, !b.isEmpty else { return 0 }
    var previous = [Int](repeating: 0, count: b.count + 1)
    for x in a {
      var current = [Int](repeating: 0, count: b.count + 1)
      for (j, y) in b.enumerated() {
        current[j + 1] = x == y ? previous[j] + 1 : max(previous[j + 1], current[j])
      }
      previous = current
    }
    return previous[b.count]
  }

  @Test(arguments: [UInt64(1), 2])
  func fiftyLiveQueriesAgreeWithBruteForceAfterEveryCommit(seed: UInt64) throws {
    let directory = try TemporaryDirectory()
    let store = try Store.scratch(in: directory)
    var random = SplitMix64(seed: seed)
    let pool = Array(QueryFixture.shared.repositories.shuffled(using: &random).prefix(600))
    try store.write(pool.prefix(300).map(Mutation.upsert))
    var generator = PredicateGenerator(repositories: pool)
    let schema = Repository.schema
    // 50 live queries: sorted and unsorted, with and without LIMIT and key-path filters.
    var lives: [LiveQuery] = []
    var keyPathsOf: [[Field]?] = []
    for index in 0..<50 {
      var query = generator.query(using: &random)
      if index % 4 == 0 { query.clauses.removeAll { if case .sort = $0 { true } else { false } } }
      if index % 3 == 0 {
        query.clauses.append(.limit(Int.random(in: 1...20, using: &random)))
      } else if index % 3 == 1 {
        query.clauses.removeAll { if case .limit = $0 { true } else { false } }
      }
      let keyPaths: [Field]? =
        index % 5 == 0
        ? [schema.field(named: "stargazers_count"), schema.field(named: "language")].compactMap { $0 } : nil
      let initial = try store.results(query.unlimited)
      let matches = try initial.rows.map { row -> (row: Row, values: [FieldValue]) in
        let collection = try store.repositoriesCollection()
        let values = try store.environment.read { txn in
          try collection.values(try #require(try collection.record(at: UInt64(row), txn)), row: UInt64(row))
        }
        return (row, values)
      }
      lives.append(
        try LiveQuery(
          query: query, collection: "repositories", watching: keyPaths, version: try store.version(),
          matches: matches))
      keyPathsOf.append(keyPaths)
    }
    var previousIDs = try lives.map { live in try store.results(live.query).ids() }
    var previousRecords = Dictionary(uniqueKeysWithValues: try store.allRepositories().map { ($0.id, $0) })
    for round in 0..<60 {
      var batch: [Mutation] = []
      for _ in 0..<Int.random(in: 1...(round % 10 == 0 ? 500 : 30), using: &random) {
        var repository = pool.randomElement(using: &random) ?? pool[0]
        switch Int.random(in: 0..<10, using: &random) {
        case 0..<2: batch.append(.delete(id: repository.id))
        case 2..<5:
          repository.stargazersCount = Int64.random(in: 0...2_000, using: &random)
          batch.append(.upsert(repository))
        case 5:
          repository.fullName += "-x"
          repository.name = (repository.name ?? "") + "-x"
          batch.append(.upsert(repository))
        case 6:
          repository.language = ["Swift", "C", "Go", nil].randomElement(using: &random) ?? nil
          batch.append(.upsert(repository))
        default: batch.append(.upsert(repository))
        }
      }
      let before = try store.version()
      try store.write(batch)
      let commits = try store.read { txn, catalog in
        try store.log.commits(
          after: before, through: try store.log.lastLSN(txn), catalog: catalog, collections: ["repositories"],
          txn)
      }
      let records = Dictionary(uniqueKeysWithValues: try store.allRepositories().map { ($0.id, $0) })
      for index in lives.indices {
        let expected = try store.results(lives[index].query).ids()
        var changeset: Changeset?
        for commit in commits { changeset = try lives[index].apply(commit) }
        let old = previousIDs[index]
        guard let changeset else {
          #expect(old == expected, "no changeset but the result changed: \(lives[index].query.text)")
          continue
        }
        #expect(!changeset.isEmpty)
        let applied = try changeset.applied(to: old) { expected[$0] }
        #expect(applied == expected, "round \(round): \(lives[index].query.text)")
        // Moves are minimal.
        let common = Set(old).intersection(expected)
        let lcs = Self.lcs(old.filter(common.contains), expected.filter(common.contains))
        #expect(changeset.moves.count == common.count - lcs)
        // Modifications: exactly the kept, unmoved rows whose (watched) content changed.
        let moved = Set(changeset.moves.map(\.from))
        let deleted = Set(changeset.deletions)
        for (position, id) in old.enumerated() where !deleted.contains(position) && !moved.contains(position)
        {
          let a = previousRecords[id]
          let b = records[id]
          let changed: Bool =
            if let fields = keyPathsOf[index] {
              fields.contains { a?.fieldValues[$0.position] != b?.fieldValues[$0.position] }
            } else {
              a != b
            }
          #expect(changeset.modifications.contains(position) == changed, "round \(round) id \(id)")
        }
      }
      previousIDs = try lives.map { live in try store.results(live.query).ids() }
      previousRecords = records
    }
  }
}
