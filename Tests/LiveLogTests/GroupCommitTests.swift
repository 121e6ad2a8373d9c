import Dispatch
import Foundation
import Testing

@testable import LiveLog

/// Durable commits of several threads at once (group commit): every commit is acknowledged with
/// its own LSNs, every acknowledged commit is in the store, and the state is what a replay of
/// the log builds.
@Suite struct StoreGroupCommitTests {
  @Test func concurrentDurableWritersAreEachCommittedOnce() throws {
    let directory = try TemporaryDirectory()
    let store = try Store(directory: directory.child("live"))
    let repositories = Array(QueryFixture.shared.repositories.prefix(400))
    try store.write(repositories.prefix(100).map(Mutation.upsert))
    let summaries = SummaryBox()
    DispatchQueue.concurrentPerform(iterations: 4) { thread in
      for index in 0..<60 {
        var repository = repositories[100 + (thread * 60 + index) % 300]
        // Each thread also updates one shared record: commits of one group touch the same key.
        var shared = repositories[0]
        shared.stargazersCount = Int64(thread * 1_000 + index)
        repository.stargazersCount = Int64(index)
        summaries.record(Result { try store.write([.upsert(repository), .upsert(shared)]) })
      }
    }
    let all = summaries.all
    #expect(all.count == 240)
    let committed = all.compactMap { try? $0.get() }
    #expect(committed.count == 240)
    // Each acknowledged commit has LSNs of its own, and they add up to the log.
    let ranges = committed.compactMap { summary in
      summary.firstLSN.flatMap { first in summary.lastLSN.map { first...$0 } }
    }.sorted { $0.lowerBound < $1.lowerBound }
    #expect(ranges.count == 240)
    #expect(zip(ranges, ranges.dropFirst()).allSatisfy { $0.upperBound < $1.lowerBound })
    let events = ranges.reduce(0) { $0 + $1.count }
    #expect(try store.version() == UInt64(100 + 1 + events))
    let rebuilt = try store.replay(into: directory.child("rebuilt"))
    #expect(try store.firstDifference(from: rebuilt) == nil)
    #expect(try store.verify().passed)
  }
}

private final class SummaryBox: @unchecked Sendable {
  private let lock = NSLock()
  private var results: [Result<CommitSummary, any Error>] = []

  func record(_ result: Result<CommitSummary, any Error>) { lock.withLock { results.append(result) } }

  var all: [Result<CommitSummary, any Error>] { lock.withLock { results } }
}
