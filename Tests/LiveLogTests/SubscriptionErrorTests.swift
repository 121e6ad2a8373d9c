import Dispatch
import Foundation
import LMDB
import Synchronization
import Testing

@testable import LiveLog

/// A subscription that fails tells its consumer why, on every way of consuming it.
@Suite struct SubscriptionErrorTests {
  static func store(_ directory: TemporaryDirectory, maxReaders: Int = 126) throws -> Store {
    var options = StoreOptions()
    options.durability = .noSync
    options.maxReaders = maxReaders
    let store = try Store(directory: directory.child("store"), options: options)
    try store.write(
      (0..<20).map { id in
        var repository = Repository(id: Int64(id), fullName: "owner/repo-\(id)")
        repository.stargazersCount = Int64(id)
        return Mutation.upsert(repository)
      })
    return store
  }

  /// The error the sequence throws, after how many deliveries.
  static func failure(of changes: ResultsChanges<Repository>) async -> (deliveries: Int, error: (any Error)?)
  {
    var deliveries = 0
    do {
      for try await _ in changes { deliveries += 1 }
      return (deliveries, nil)
    } catch {
      return (deliveries, error)
    }
  }

  @Test func resumingPastTheEndOfTheLogThrowsWhatAnAsOfQueryThrows() async throws {
    let directory = try TemporaryDirectory()
    let store = try Self.store(directory)
    let all = try store.objects(Repository.self)
    let (deliveries, error) = await Self.failure(of: try all.changes(since: 1_000_000))
    #expect(deliveries == 0)
    #expect(error as? StoreError == .lsnOutOfRange(requested: 1_000_000, version: try store.version()))
    #expect(throws: StoreError.lsnOutOfRange(requested: 1_000_000, version: try store.version())) {
      try all.asOf(1_000_000).evaluate()
    }
  }

  @Test func aDamagedLogEndsTheSubscriptionWithTheErrorAfterWhatCameBefore() async throws {
    let directory = try TemporaryDirectory()
    let store = try Self.store(directory)
    let changes = try store.objects(Repository.self).filter("stargazers_count > 5").changes
    let outcome = Task { await Self.failure(of: changes) }
    // Wait for the initial delivery, then append an event that fails its checks.
    try await Task.sleep(nanoseconds: 50_000_000)
    store.synchronizeLiveQueries()
    let next = try store.version() + 1
    try store.environment.write { txn in
      try txn.put(store.log.database, next, Array(repeating: 0xAB, count: 40))
    }
    let (deliveries, error) = await outcome.value
    #expect(deliveries == 1)
    guard case .corruptEvent(let lsn, _)? = error as? StoreError else {
      Issue.record("expected a corrupt event, got \(String(describing: error))")
      return
    }
    #expect(lsn == next)
  }

  @Test func observeCallsOnErrorOnItsQueue() async throws {
    let directory = try TemporaryDirectory()
    let store = try Self.store(directory)
    let queue = DispatchQueue(label: "observer")
    let seen = Mutex<[String]>([])
    let token = try store.objects(Repository.self).observe(
      since: 1_000_000, on: queue, onError: { error in seen.withLock { $0.append("error: \(error)") } }
    ) { _ in seen.withLock { $0.append("change") } }
    for _ in 0..<500 where seen.withLock({ $0.isEmpty }) { try await Task.sleep(nanoseconds: 10_000_000) }
    #expect(
      seen.withLock { $0 } == [
        "error: \(StoreError.lsnOutOfRange(requested: 1_000_000, version: try store.version()))"
      ])
    withExtendedLifetime(token) {}
  }

  @MainActor @Test func liveResultsKeepTheError() async throws {
    let directory = try TemporaryDirectory()
    let store = try Self.store(directory)
    let live = try LiveResults(store.objects(Repository.self).asOf(1_000_000))
    for _ in 0..<500 where live.error == nil { try await Task.sleep(nanoseconds: 10_000_000) }
    #expect(live.error as? StoreError == .lsnOutOfRange(requested: 1_000_000, version: try store.version()))
    #expect(live.deliveries == 0)
  }

  /// Takes every free reader slot, as other processes' readers can.
  static func takeEveryReaderSlot(_ environment: LMDB.Environment) -> [Snapshot] {
    var held: [Snapshot] = []
    while let snapshot = try? environment.makeSnapshot() { held.append(snapshot) }
    return held
  }

  @Test func aFullReaderTableDelaysASubscriptionAndThenFailsIt() async throws {
    let directory = try TemporaryDirectory()
    let store = try Self.store(directory, maxReaders: 8)
    let results = try store.objects(Repository.self)

    // Slots freed within `LiveHub.readerWait`: the subscription starts late, without an error.
    var held = Self.takeEveryReaderSlot(store.environment)
    #expect(held.count >= 6)
    let first = Task {
      var iterator = results.changes.makeAsyncIterator()
      return try await iterator.next()
    }
    try await Task.sleep(nanoseconds: 300_000_000)
    held.removeAll()
    guard case .initial(let initial)? = try await first.value else {
      Issue.record("the subscription did not start once slots were free")
      return
    }
    #expect(initial.count == 20)

    // Slots never freed: after the wait, the error.
    held = Self.takeEveryReaderSlot(store.environment)
    let started = Date()
    let (deliveries, error) = await Self.failure(of: results.changes)
    #expect(deliveries == 0)
    #expect((error as? LMDBError)?.isReadersFull == true)
    #expect(Date().timeIntervalSince(started) >= 1.5)
    withExtendedLifetime(held) {}
  }
}
