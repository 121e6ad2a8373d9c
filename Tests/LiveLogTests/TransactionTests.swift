import Foundation
import Testing

@testable import LiveLog

/// `store.write { transaction in … }`: reads that see the transaction's writes, atomic commits,
/// conditional writes, and the async form.
@Suite struct TransactionTests {
  static func store(_ directory: TemporaryDirectory, name: String = "store") throws -> Store {
    var options = StoreOptions()
    options.durability = .noSync
    return try Store(directory: directory.child(name), options: options)
  }

  static func repository(_ id: Int64, stars: Int64) -> Repository {
    var repository = Repository(id: id, fullName: "owner/repo-\(id)")
    repository.stargazersCount = stars
    return repository
  }

  /// One increment of repository 1's stars, as a read-modify-write.
  @Sendable static func increment(_ transaction: StoreTransaction) throws {
    guard var counter = try transaction.record(Repository.self, id: 1) else {
      throw StoreError.corruptState(reason: "the counter is missing")
    }
    counter.stargazersCount = (counter.stargazersCount ?? 0) + 1
    transaction.upsert(counter)
  }

  @Test func twoTasksThatEachIncrementAHundredTimesEndAtTwoHundred() async throws {
    let directory = try TemporaryDirectory()
    let store = try Self.store(directory)
    try store.write([.upsert(Self.repository(1, stars: 0))])
    // A second Store value on the same directory writes too: one environment, one writer lock.
    let other = try Self.store(directory)
    try await withThrowingTaskGroup(of: Void.self) { group in
      group.addTask { for _ in 0..<100 { try await store.write(Self.increment) } }
      group.addTask { for _ in 0..<100 { try await other.write(Self.increment) } }
      try await group.waitForAll()
    }
    #expect(try store.repository(id: 1)?.stargazersCount == 200)
    // Each increment was its own commit.
    #expect(try store.events().filter { $0.mutation != nil }.count == 201)
  }

  @Test func readsSeeTheTransactionsOwnWritesAndTheCommitIsOne() throws {
    let directory = try TemporaryDirectory()
    let store = try Self.store(directory)
    try store.write([.upsert(Self.repository(1, stars: 5)), .upsert(Self.repository(2, stars: 7))])
    let before = try store.version()
    let seen = try store.write { transaction -> [Int64?] in
      var seen: [Int64?] = [try transaction.record(Repository.self, id: 1)?.stargazersCount]
      transaction.upsert(Self.repository(1, stars: 6))
      seen.append(try transaction.record(Repository.self, id: 1)?.stargazersCount)
      transaction.delete(Repository.self, id: 2)
      seen.append(try transaction.record(Repository.self, id: 2)?.stargazersCount)
      transaction.upsert(Self.repository(3, stars: 1))
      seen.append(try transaction.record(in: "repositories", key: .integer(3)).map { _ in 1 })
      #expect(transaction.version == before)
      return seen
    }
    #expect(seen == [5, 6, nil, 1])
    #expect(try store.version() == before + 3)
    let events = try store.events(from: before + 1)
    #expect(events.map(\.endsCommit) == [false, false, true])
    #expect(try store.allRepositories().map(\.id) == [1, 3])
  }

  @Test func aClosureThatThrowsWritesNothing() throws {
    let directory = try TemporaryDirectory()
    let store = try Self.store(directory)
    try store.write([.upsert(Self.repository(1, stars: 5))])
    let before = try store.version()
    struct Refused: Error {}
    #expect(throws: Refused.self) {
      try store.write { transaction in
        transaction.upsert(Self.repository(1, stars: 6))
        transaction.upsert(Self.repository(2, stars: 6))
        throw Refused()
      }
    }
    #expect(try store.version() == before)
    #expect(try store.allRepositories() == [Self.repository(1, stars: 5)])
  }

  @Test func aConditionalWriteFailsCleanlyWhenAnotherWriterCameFirst() throws {
    let directory = try TemporaryDirectory()
    let store = try Self.store(directory)
    try store.write([.upsert(Self.repository(1, stars: 5))])
    let shown = try store.version()
    try store.write([.upsert(Self.repository(1, stars: 50))])  // another writer
    let now = try store.version()
    #expect(throws: StoreError.versionConflict(expected: shown, found: now)) {
      try store.write(expecting: shown) { transaction in transaction.upsert(Self.repository(1, stars: 6)) }
    }
    #expect(throws: StoreError.versionConflict(expected: shown, found: now)) {
      try store.write([.upsert(Self.repository(1, stars: 6))], expecting: shown)
    }
    #expect(try store.version() == now)
    try store.write(expecting: now) { transaction in transaction.upsert(Self.repository(1, stars: 6)) }
    #expect(try store.repository(id: 1)?.stargazersCount == 6)
  }

  @Test func aTransactionMayMeetItsRecordTypeFirst() throws {
    let directory = try TemporaryDirectory()
    let store = try Self.store(directory)
    // No collection yet: the first read binds the type, and the write creates the collection.
    let found = try store.write { transaction -> Bool in
      let found = try transaction.record(Repository.self, id: 1) != nil
      transaction.upsert(Self.repository(1, stars: 1))
      return found
    }
    #expect(found == false)
    #expect(try store.repository(id: 1) == Self.repository(1, stars: 1))
  }

  @MainActor @Test func theAsyncFormsRunOffTheCallersThread() async throws {
    let directory = try TemporaryDirectory()
    let store = try Self.store(directory)
    let onMain = try await store.write { transaction -> Bool in
      transaction.upsert(Self.repository(1, stars: 1))
      return Thread.isMainThread
    }
    #expect(!onMain)
    let results = try await store.objects(Repository.self).filter("stargazers_count == 1")
      .evaluateInBackground()
    #expect(results.count == 1)
  }
}
