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
    var random = SeededRandom(seed: seed)
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
    var random = SeededRandom(seed: seed * 77)
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
    var random = SeededRandom(seed: seed * 31)
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
