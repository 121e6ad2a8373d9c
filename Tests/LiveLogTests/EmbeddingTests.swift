import Foundation
import LMDB
import Synchronization
import Testing

@testable import LiveLog

/// What an app that embeds a store meets in its first week: several `Store` values on one
/// directory, results held for a long time, many subscriptions.
@Suite struct EmbeddingTests {
  static func options() -> StoreOptions {
    var options = StoreOptions()
    options.durability = .noSync
    return options
  }

  /// A store with 200 repositories, and the pool of 300 it was drawn from.
  static func store(_ directory: TemporaryDirectory) throws -> (Store, [Repository]) {
    let store = try Store(directory: directory.child("store"), options: options())
    var random = SplitMix64(seed: 14)
    let pool = Array(QueryFixture.shared.repositories.shuffled(using: &random).prefix(300))
    try store.write(pool.prefix(200).map(Mutation.upsert))
    return (store, pool)
  }

  /// 30 commits of updates, deletions and insertions drawn from `pool`.
  static func churn(_ store: Store, _ pool: [Repository], seed: UInt64, commits: Int = 30) throws {
    var random = SplitMix64(seed: seed)
    for _ in 0..<commits {
      var mutations: [Mutation] = []
      for _ in 0..<5 {
        var repository = pool.randomElement(using: &random) ?? pool[0]
        repository.stargazersCount = Int64.random(in: 0...5_000, using: &random)
        repository.description = "edited \(random.next() % 1_000)"
        mutations.append(.upsert(repository))
      }
      mutations.append(.delete(id: (pool.randomElement(using: &random) ?? pool[0]).id))
      try store.write(mutations)
    }
  }

  @Test func twoStoresOnOneDirectoryShareOneEnvironmentAndHeldResultsStayAsTheyWere() throws {
    let directory = try TemporaryDirectory()
    let (first, pool) = try Self.store(directory)
    let held = try first.objects(Repository.self).filter("stargazers_count > 100").sorted(by: "full_name")
    let seen = try held.indices.map { try held.record(at: $0) }
    let seenIDs = try held.ids()
    #expect(!seen.isEmpty)

    // The same directory by another path (a symlink): the same environment.
    let link = directory.child("link")
    try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: directory.child("store"))
    let second = try Store(directory: link, options: Self.options())
    #expect(first.environment === second.environment)
    try Self.churn(second, pool, seed: 1)
    #expect(try first.version() == second.version())

    // Read again after 30 commits through the other value: exactly what was read before.
    #expect(try held.indices.map { try held.record(at: $0) } == seen)
    #expect(try held.ids() == seenIDs)
    #expect(held.map(\.id) == seen.map(\.id))
    // And the store itself moved on: a new query sees the second value's commits.
    let now = try first.results(held.query)
    #expect(try now.ids() != seenIDs)
  }

  @Test func anEnvironmentOpenReadOnlyCannotServeAWriterOfTheSameDirectory() throws {
    let directory = try TemporaryDirectory()
    do { _ = try Self.store(directory) }
    var readOnly = Self.options()
    readOnly.readOnly = true
    let reader = try Store(directory: directory.child("store"), options: readOnly)
    #expect(throws: StoreError.self) {
      try Store(directory: directory.child("store"), options: Self.options())
    }
    do {
      _ = try Store(directory: directory.child("store"), options: Self.options())
    } catch let error as StoreError {
      guard case .alreadyOpen = error else {
        Issue.record("expected alreadyOpen, got \(error)")
        return
      }
      #expect(error.description.contains("read-only"))
    }
    #expect(try reader.count() == 200)
    // Once the read-only value is gone, the directory opens for writing.
    withExtendedLifetime(reader) {}
  }

  @Test func theEnvironmentClosesWithItsLastStoreAndOpensAgain() throws {
    let directory = try TemporaryDirectory()
    weak var environment: LMDB.Environment?
    do {
      let (store, _) = try Self.store(directory)
      environment = store.environment
      let again = try Store(directory: directory.child("store"), options: Self.options())
      #expect(again.environment === environment)
    }
    #expect(environment == nil)
    let reopened = try Store(directory: directory.child("store"), options: Self.options())
    #expect(try reopened.count() == 200)
  }

  @Test func heldResultsTakeNoReaderSlot() throws {
    let directory = try TemporaryDirectory()
    let (store, pool) = try Self.store(directory)
    // More results than LMDB has reader slots (126), each read once and kept.
    var held: [Results<Repository>] = []
    for index in 0..<300 {
      let results = try store.objects(Repository.self).filter("stargazers_count > %@", index)
      _ = results.first
      held.append(results)
    }
    #expect(store.environment.activeReaders() <= 1)
    try Self.churn(store, pool, seed: 2)
    // Every one still reads, and as of its version.
    for results in held.prefix(20) {
      let again = try store.results(results.query, asOf: results.version)
      #expect(try results.ids() == again.ids())
      #expect(Array(results) == Array(again))
    }
    #expect(store.environment.activeReaders() <= 1)
  }

  @Test func aLiveQueryOfOneStoreValueSeesCommitsOfAnother() async throws {
    let directory = try TemporaryDirectory()
    let (first, pool) = try Self.store(directory)
    let second = try Store(directory: directory.child("store"), options: Self.options())
    let results = try first.objects(Repository.self).filter("stargazers_count > 100")
    let last = Mutex<UInt64>(0)
    let task = Task {
      for try await change in results.changes { last.withLock { $0 = change.results.version } }
    }
    try Self.churn(second, pool, seed: 3, commits: 5)
    let target = try second.version()
    // Within the hub's polling interval, the commits arrive through the environment's observer.
    for _ in 0..<500 where last.withLock({ $0 }) < target { try await Task.sleep(nanoseconds: 10_000_000) }
    task.cancel()
    #expect(last.withLock { $0 } == target)
  }

  @Test func aReversedRangeOfVersionsIsAnInputErrorThatSaysSo() throws {
    let directory = try TemporaryDirectory()
    let (store, _) = try Self.store(directory)
    let query = try Query(parsing: "stargazers_count > 100")
    #expect(throws: StoreError.versionsReversed(from: 10, to: 5)) { try store.diff(query, from: 10, to: 5) }
    #expect(
      StoreError.versionsReversed(from: 10, to: 5).description.contains("give the earlier version first"))
  }

  @Test func anIndexPastTheEndTrapsAsACollectionsDoes() async {
    await #expect(processExitsWith: .failure) {
      let directory = try TemporaryDirectory()
      let store = try Store(directory: directory.child("store"))
      try store.write([.upsert(Repository(id: 1, fullName: "a/b"))])
      let results = try store.objects(Repository.self)
      _ = results[results.count + 10]
    }
  }
}
