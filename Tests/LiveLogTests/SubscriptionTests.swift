import Changesets
import Dispatch
import Foundation
import Synchronization
import Testing

@testable import LiveLog

/// Deliveries of `changes`, `observe` and `LiveResults`, end to end through the hub.
@Suite struct SubscriptionTests {
  final class Collector: Sendable {
    let changes = Mutex<[(kind: String, version: UInt64, ids: [Int64], changeset: Changeset)]>([])

    func take(_ change: ResultsChange<Repository>) {
      let ids = (try? change.results.ids()) ?? []
      switch change {
      case .initial(let results): changes.withLock { $0.append(("initial", results.version, ids, .empty)) }
      case .update(let results, let changeset):
        changes.withLock { $0.append(("update", results.version, ids, changeset)) }
      }
    }

    /// Waits until a delivery reaches `version` (at most 5 s).
    func wait(forVersion version: UInt64) async {
      for _ in 0..<500 {
        if changes.withLock({ $0.last?.version ?? 0 }) >= version { return }
        try? await Task.sleep(nanoseconds: 10_000_000)
      }
    }
  }

  static func store() throws -> (TemporaryDirectory, Store, [Repository]) {
    let directory = try TemporaryDirectory()
    let store = try Store.scratch(in: directory)
    var random = SplitMix64(seed: 5)
    let pool = Array(QueryFixture.shared.repositories.shuffled(using: &random).prefix(300))
    try store.write(pool.prefix(150).map(Mutation.upsert))
    return (directory, store, pool)
  }

  /// Checks that applying each delivered changeset to the previous ids gives the delivered ids.
  static func checkChain(_ deliveries: [(kind: String, version: UInt64, ids: [Int64], changeset: Changeset)])
    throws
  {
    guard var previous = deliveries.first?.ids else { return }
    for delivery in deliveries.dropFirst() {
      let ids = delivery.ids
      #expect(try delivery.changeset.applied(to: previous) { ids[$0] } == ids)
      previous = ids
    }
  }

  @Test func coalescedChangesFollowEveryCommitAndEndAtTheTruth() async throws {
    let (directory, store, pool) = try Self.store()
    defer { withExtendedLifetime(directory) {} }
    let results = try store.objects(Repository.self).filter("stargazers_count > 100").sorted(
      by: "stargazers_count", ascending: false)
    let collector = Collector()
    let task = Task {
      for try await change in results.changes { collector.take(change) }
    }
    await collector.wait(forVersion: try store.version())
    var random = SplitMix64(seed: 8)
    for _ in 0..<40 {
      var repository = pool.randomElement(using: &random) ?? pool[0]
      repository.stargazersCount = Int64.random(in: 0...500, using: &random)
      try store.write([.upsert(repository), .delete(id: (pool.randomElement(using: &random) ?? pool[0]).id)])
    }
    await collector.wait(forVersion: try store.version())
    task.cancel()
    let deliveries = collector.changes.withLock { $0 }
    #expect(deliveries.first?.kind == "initial")
    #expect(deliveries.last?.ids == (try store.results(results.query).ids()))
    try Self.checkChain(deliveries)
  }

  @Test func everyCommitModeDeliversOnlyChangingCommitsInOrder() async throws {
    let (directory, store, pool) = try Self.store()
    defer { withExtendedLifetime(directory) {} }
    let inside = pool[0]
    let results = try store.objects(Repository.self).filter("id == %@", inside.id)
    let collector = Collector()
    let token = try results.observe(coalescing: false, on: DispatchQueue(label: "test")) {
      collector.take($0)
    }
    await collector.wait(forVersion: try store.version())
    // A commit of other records changes nothing for this query: no delivery.
    var other = pool[1]
    other.description = "edited"
    try store.write([.upsert(other)])
    let quiet = try store.version()
    var edited = inside
    edited.description = "edited too"
    try store.write([.upsert(edited)])
    try store.write([.delete(id: inside.id)])
    await collector.wait(forVersion: try store.version())
    token.invalidate()
    let deliveries = collector.changes.withLock { $0 }
    #expect(deliveries.map(\.kind) == ["initial", "update", "update"])
    #expect(!deliveries.contains { $0.version == quiet })
    #expect(deliveries[1].changeset.modifications == [0])
    #expect(deliveries[2].changeset.deletions == [0])
    #expect(deliveries.map(\.version) == deliveries.map(\.version).sorted())
    // After invalidation nothing more arrives.
    try store.write([.upsert(inside)])
    try await Task.sleep(nanoseconds: 100_000_000)
    #expect(collector.changes.withLock { $0.count } == 3)
  }

  @Test func resumingFromAnLSNStartsThereAndCatchesUpInOneChangeset() async throws {
    let (directory, store, pool) = try Self.store()
    defer { withExtendedLifetime(directory) {} }
    let then = try store.version()
    try store.write(pool[150..<200].map(Mutation.upsert))
    try store.write([.delete(id: pool[0].id)])
    let query = try Query(parsing: "stargazers_count >= 0 SORT(full_name ASC)")
    let collector = Collector()
    let task = Task {
      for try await change in try store.results(query).changes(since: then) { collector.take(change) }
    }
    await collector.wait(forVersion: try store.version())
    task.cancel()
    let deliveries = collector.changes.withLock { $0 }
    #expect(deliveries.count == 2)
    #expect(deliveries.first?.ids == (try store.results(query, asOf: then).ids()))
    #expect(deliveries.last?.ids == (try store.results(query).ids()))
    try Self.checkChain(deliveries)
  }

  @Test func keyPathFiltersIgnoreOtherFields() async throws {
    let (directory, store, pool) = try Self.store()
    defer { withExtendedLifetime(directory) {} }
    let target = pool[3]
    let results = try store.objects(Repository.self).filter("id == %@", target.id)
    let collector = Collector()
    let token = try results.observe(
      keyPaths: ["stargazers_count"], coalescing: false, on: DispatchQueue(label: "t")
    ) {
      collector.take($0)
    }
    await collector.wait(forVersion: try store.version())
    var edited = target
    edited.description = "not watched"
    try store.write([.upsert(edited)])
    edited.stargazersCount = (edited.stargazersCount ?? 0) + 1
    try store.write([.upsert(edited)])
    await collector.wait(forVersion: try store.version())
    token.invalidate()
    let deliveries = collector.changes.withLock { $0 }
    #expect(deliveries.count == 2)
    #expect(deliveries.last?.changeset.modifications == [0])
  }

  @Test @MainActor func observableLiveResultsFollowTheStore() async throws {
    let (directory, store, pool) = try Self.store()
    defer { withExtendedLifetime(directory) {} }
    let live = try LiveResults(
      try store.objects(Repository.self).filter("language == 'Swift' OR stargazers_count > 50"))
    for _ in 0..<500 where live.results == nil { try await Task.sleep(nanoseconds: 10_000_000) }
    let before = live.results?.count ?? -1
    var added = pool[200]
    added.language = "Swift"
    try store.write([.upsert(added)])
    for _ in 0..<500 where live.deliveries < 2 { try await Task.sleep(nanoseconds: 10_000_000) }
    #expect(live.results?.count == before + 1)
    #expect(live.lastChangeset?.insertions.count == 1)
    live.stop()
  }
}
