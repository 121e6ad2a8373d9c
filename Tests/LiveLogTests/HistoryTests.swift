import Foundation
import Testing

@testable import LiveLog

/// As-of queries and replay against stores built from prefixes of the same log.
@Suite struct HistoryTests {
  /// A store with a random stream of commits over real repositories: edits of names, languages
  /// and stars, deletes and re-inserts, in batches of 1 to 60.
  static func randomStore(seed: UInt64, commits: Int) throws -> (TemporaryDirectory, Store, [Repository]) {
    let directory = try TemporaryDirectory()
    var options = StoreOptions()
    options.durability = .noSync
    let store = try Store(directory: directory.child("live"), options: options)
    var random = SplitMix64(seed: seed)
    let pool = Array(QueryFixture.shared.repositories.shuffled(using: &random).prefix(400))
    for _ in 0..<commits {
      var batch: [Mutation] = []
      for _ in 0..<Int.random(in: 1...60, using: &random) {
        var repository = pool.randomElement(using: &random) ?? pool[0]
        switch Int.random(in: 0..<10, using: &random) {
        case 0..<2: batch.append(.delete(id: repository.id))
        case 2..<4:
          repository.stargazersCount = Int64.random(in: 0...3_000, using: &random)
          batch.append(.upsert(repository))
        case 4:
          repository.fullName += "-renamed"
          repository.language = ["Swift", "C", nil].randomElement(using: &random) ?? nil
          batch.append(.upsert(repository))
        default: batch.append(.upsert(repository))
        }
      }
      try store.write(batch)
    }
    return (directory, store, pool)
  }

  @Test(arguments: [UInt64(1), 2, 3])
  func asOfQueriesEqualQueriesOnTheReplayedPrefix(seed: UInt64) throws {
    let (directory, store, pool) = try Self.randomStore(seed: seed, commits: 80)
    let version = try store.version()
    var random = SplitMix64(seed: seed * 77)
    var generator = PredicateGenerator(repositories: pool)
    var checkpoints: [UInt64] = [0, 1, version, version / 2]
    for _ in 0..<5 { checkpoints.append(UInt64.random(in: 1...version, using: &random)) }
    for (index, lsn) in checkpoints.enumerated() {
      let prefix = try store.replay(into: directory.child("prefix-\(index)"), through: lsn)
      #expect(try prefix.version() == lsn)
      for _ in 0..<25 {
        let query = generator.query(using: &random)
        let asOf = try store.results(query, asOf: lsn).ids()
        let rebuilt = try prefix.results(query).ids()
        #expect(asOf == rebuilt, "as of \(lsn) of \(version): \(query.text)")
        if asOf != rebuilt { return }
      }
    }
  }

  @Test(arguments: [UInt64(4), 5])
  func diffsBetweenVersionsTurnOneResultIntoTheOther(seed: UInt64) throws {
    let (directory, store, pool) = try Self.randomStore(seed: seed, commits: 60)
    defer { withExtendedLifetime(directory) {} }
    let version = try store.version()
    var random = SplitMix64(seed: seed * 31)
    var generator = PredicateGenerator(repositories: pool)
    for _ in 0..<60 {
      let a = UInt64.random(in: 0...version, using: &random)
      let b = UInt64.random(in: a...version, using: &random)
      let query = generator.query(using: &random)
      let diff = try store.diff(query, from: a, to: b)
      let old = try diff.from.ids()
      let new = try diff.to.ids()
      #expect(old == (try store.results(query, asOf: a).ids()))
      #expect(new == (try store.results(query, asOf: b).ids()))
      let applied = try diff.changeset.applied(to: old) { new[$0] }
      #expect(applied == new, "\(a)→\(b): \(query.text)")
      // Modified rows are exactly the kept, unmoved rows whose content differs.
      let moved = Set(diff.changeset.moves.map(\.from))
      let deleted = Set(diff.changeset.deletions)
      for index in old.indices where !deleted.contains(index) && !moved.contains(index) {
        let before = try diff.from.repository(at: index)
        let after = try diff.to.repository(at: try #require(new.firstIndex(of: before.id)))
        #expect(diff.changeset.modifications.contains(index) == (before != after))
      }
    }
  }

  /// Sorted, limited queries a few commits back take the top-k path (the current indexes find the
  /// first `limit + touched` rows); the window must still equal that of the replayed prefix,
  /// including when a touched row moved into or out of it.
  @Test func sortedLimitedQueriesAFewCommitsBackEqualTheReplayedPrefix() throws {
    let directory = try TemporaryDirectory()
    var options = StoreOptions()
    options.durability = .noSync
    let store = try Store(directory: directory.child("live"), options: options)
    let all = Array(QueryFixture.shared.repositories.prefix(5_000))
    try store.write(all.map(Mutation.upsert))
    var random = SplitMix64(seed: 41)
    for _ in 0..<12 {
      var batch: [Mutation] = []
      for _ in 0..<Int.random(in: 1...8, using: &random) {
        var repository = all.randomElement(using: &random) ?? all[0]
        if Bool.random(using: &random) {
          batch.append(.delete(id: repository.id))
        } else {
          repository.stargazersCount = Int64.random(in: 0...200_000, using: &random)
          repository.language = ["Swift", "Python", nil].randomElement(using: &random) ?? nil
          batch.append(.upsert(repository))
        }
      }
      try store.write(batch)
    }
    let version = try store.version()
    let queries = try [
      "language == 'Swift' SORT(stargazers_count DESC) LIMIT(10)",
      "stargazers_count > 100 SORT(stargazers_count ASC) LIMIT(25)",
      "language != 'Python' SORT(language ASC, stargazers_count DESC) LIMIT(7)",
      "TRUEPREDICATE SORT(forks_count DESC) LIMIT(1)",
    ].map { try Query(parsing: $0) }
    // A limit near Int.max is no window at all (and must not overflow).
    let unlimited = try Query(parsing: "stargazers_count > 100 SORT(stargazers_count ASC)")
    var huge = unlimited
    huge.clauses.append(.limit(Int.max))
    #expect(
      try store.results(huge, asOf: version - 1).ids() == store.results(unlimited, asOf: version - 1).ids())
    for lsn in (version - 12)...version {
      let prefix = try store.replay(into: directory.child("prefix-\(lsn)"), through: lsn, options: options)
      for query in queries {
        #expect(
          try store.results(query, asOf: lsn).ids() == prefix.results(query).ids(),
          "as of \(lsn): \(query.text)")
      }
    }
  }

  @Test func replayToTheEndReproducesTheDigest() throws {
    let (directory, store, _) = try Self.randomStore(seed: 9, commits: 120)
    let rebuilt = try store.replay(into: directory.child("rebuilt"))
    #expect(try rebuilt.digest() == store.digest())
    #expect(try store.firstDifference(from: rebuilt) == nil)
  }

  @Test func replayOfTheRealAPIFilesReproducesTheDigest() throws {
    let directory = try TemporaryDirectory()
    var options = StoreOptions()
    options.durability = .noSync
    let store = try Store(directory: directory.child("live"), options: options)
    for path in Fixtures.apiRepoFiles { try store.write(try RecordFile(path: path).mutations()) }
    let rebuilt = try store.replay(into: directory.child("rebuilt"), options: options)
    #expect(try rebuilt.digest() == store.digest())
  }
}

@Suite struct ReplayBatchingTests {
  @Test func aCommitLargerThanAReplayBatchReplaysToTheSameDigest() throws {
    let directory = try TemporaryDirectory()
    var options = StoreOptions()
    options.durability = .noSync
    let store = try Store(directory: directory.child("live"), options: options)
    // One commit bigger than the replay's batch of 20,000 events.
    let all = QueryFixture.shared.repositories
    try store.write(all.prefix(Replayer.eventsPerTransaction + 2_000).map(Mutation.upsert))
    try store.write(all.dropFirst(Replayer.eventsPerTransaction + 2_000).map(Mutation.upsert))
    let rebuilt = try store.replay(into: directory.child("rebuilt"), options: options)
    #expect(try store.firstDifference(from: rebuilt) == nil)
  }
}
