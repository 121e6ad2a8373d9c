import Changesets
import Foundation
import Testing

@testable import LiveLog

/// A changeset composed over several commits means what `diff` between its two ends means: rows
/// changed and changed back are not modifications.
@Suite struct ExactCoalescingTests {
  static func store(_ directory: TemporaryDirectory, records: Int) throws -> Store {
    let store = try Store.scratch(in: directory)
    try store.write((0..<records).map { Mutation.upsert(Self.repository($0, stars: 2)) })
    return store
  }

  static func repository(_ id: Int, stars: Int64) -> Repository {
    var repository = Repository(id: Int64(id), fullName: "owner/repo-\(id)")
    repository.stargazersCount = stars
    repository.language = id % 2 == 0 ? "Swift" : "Go"
    return repository
  }

  /// The modifications of `changeset` as ids (old side), which the oracle compares.
  static func modifiedIDs(_ changeset: Changeset, in ids: [Int64]) -> Set<Int64> {
    Set(changeset.modifications.map { ids[$0] })
  }

  @Test func aRowChangedAndChangedBackIsNotModifiedWhenResuming() async throws {
    let directory = try TemporaryDirectory()
    let store = try Self.store(directory, records: 2)
    let query = try Query(parsing: "stargazers_count >= 0")
    let start = try store.version()
    try store.write([.upsert(Self.repository(1, stars: 9))])  // A: repo-1 2 → 9
    try store.write([.upsert(Self.repository(0, stars: 9))])  // B: repo-0 2 → 9
    try store.write([.upsert(Self.repository(0, stars: 2))])  // C: repo-0 9 → 2
    var iterator = try store.results(query).changes(since: start).makeAsyncIterator()
    guard case .initial(let initial)? = try await iterator.next(),
      case .update(_, let changeset)? = try await iterator.next()
    else {
      Issue.record("expected an initial delivery and an update")
      return
    }
    #expect(Self.modifiedIDs(changeset, in: try initial.ids()) == [1])
    #expect(try store.diff(query, from: start, to: store.version()).changeset == changeset)
  }

  /// Random commit sequences; each composed changeset against `diff` over the same two versions:
  /// once composed by the hub (a subscription resumed from an old version), once folded by a slow
  /// consumer's channel (commits delivered one by one to a consumer that takes none).
  @Test(arguments: 0..<100)
  func composedChangesetsModifyExactlyWhatDiffModifies(seed: UInt64) async throws {
    let directory = try TemporaryDirectory()
    let store = try Self.store(directory, records: 12)
    var random = SplitMix64(seed: seed)
    let query = try Query(
      parsing: random.next() % 100 < 50
        ? "stargazers_count >= 3" : "language == 'Swift' SORT(stargazers_count DESC)")
    let keyPaths: [String]? = random.next() % 100 < 30 ? ["stargazers_count"] : nil
    let start = try store.version()
    let slow = try store.results(query).changes(keyPaths: keyPaths)
    var slowIterator = slow.makeAsyncIterator()
    guard case .initial? = try await slowIterator.next() else {
      Issue.record("no initial delivery")
      return
    }
    for _ in 0..<Int(random.next() % 6 + 2) {
      var mutations: [Mutation] = []
      for _ in 0..<Int(random.next() % 3 + 1) {
        let id = Int(random.next() % 14)
        if random.next() % 100 < 15 {
          mutations.append(.delete(id: Int64(id)))
        } else {
          // Few values, so that rows often come back to what they were.
          var repository = Self.repository(id, stars: Int64(random.next() % 4 + 1))
          if random.next() % 100 < 30 { repository.description = "d\(random.next() % 2)" }
          mutations.append(.upsert(repository))
        }
      }
      try store.write(mutations)
      store.synchronizeLiveQueries()
    }
    let end = try store.version()
    let truth = try store.diff(query, from: start, to: end)
    let oldIDs = try truth.from.ids()
    let newIDs = try truth.to.ids()
    var watchedTruth = Self.modifiedIDs(truth.changeset, in: oldIDs)
    if keyPaths != nil {
      // With key paths, only rows whose stars differ count.
      var stars: [Int64: (old: Int64?, new: Int64?)] = [:]
      for (index, id) in oldIDs.enumerated() {
        stars[id, default: (nil, nil)].old = try truth.from.record(at: index).stargazersCount
      }
      for (index, id) in newIDs.enumerated() {
        stars[id, default: (nil, nil)].new = try truth.to.record(at: index).stargazersCount
      }
      watchedTruth = watchedTruth.filter { stars[$0]?.old != stars[$0]?.new }
    }

    var resumed = try store.results(query).changes(keyPaths: keyPaths, since: start).makeAsyncIterator()
    _ = try await resumed.next()
    store.synchronizeLiveQueries()
    try check(resumed.subscription.channel.poll(), "hub")
    // The slow consumer took none of the updates the commits sent it: they were folded.
    try check(slowIterator.subscription.channel.poll(), "channel")

    func check(_ change: ResultsChange<Repository>?, _ composer: String) throws {
      guard case .update(let results, let changeset)? = change else {
        #expect(oldIDs == newIDs && watchedTruth.isEmpty, "\(composer): no update, seed \(seed)")
        return
      }
      #expect(try results.ids() == newIDs)
      #expect(try changeset.applied(to: oldIDs) { newIDs[$0] } == newIDs)
      #expect(Self.modifiedIDs(changeset, in: oldIDs) == watchedTruth, "\(composer), seed \(seed)")
    }
  }
}
