import Dispatch
import Foundation
import Testing

@testable import LiveLog

/// Durable commits of several threads at once (group commit): every commit is acknowledged with
/// its own LSNs, every acknowledged commit is in the store, and the state is what a replay of
/// the log builds.
@Suite struct StoreGroupCommitTests {
  /// With `extra` records more in each commit: at 9, each commit starts a `RecentIndexJob`, in a
  /// transaction it may share with other threads' commits; every fifth commit of one thread then
  /// holds a record of the wrong type, and fails alone.
  @Test(arguments: [0, 9])
  func concurrentDurableWritersAreEachCommittedOnce(extra: Int) throws {
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
        var batch: [Mutation] = [.upsert(repository), .upsert(shared)]
        for offset in 0..<extra {
          var more = repositories[100 + (thread * 60 + index + 61 * (offset + 1)) % 300]
          more.forksCount = Int64(thread + index + offset)
          batch.append(.upsert(more))
        }
        let failing = extra > 0 && thread == 2 && index % 5 == 0
        if failing {
          var values = Repository.schema.values(of: repository)
          values[2] = .integer(7)
          batch.insert(
            .upsert(RecordValues(schema: Repository.schema.declaration, values: values)), at: extra / 2)
        }
        summaries.record(Result { try store.write(batch) })
      }
    }
    let all = summaries.all
    #expect(all.count == 240)
    let committed = all.compactMap { try? $0.get() }
    let failures = extra > 0 ? 12 : 0
    #expect(committed.count == 240 - failures)
    for result in all {
      guard case .failure(let error) = result else { continue }
      guard case StoreError.invalidRecord(_, let field, _) = error else {
        Issue.record("a commit failed with \(error)")
        continue
      }
      #expect(field == "name")
    }
    // Each acknowledged commit has LSNs of its own, and they add up to the log.
    let ranges = committed.compactMap { summary in
      summary.firstLSN.flatMap { first in summary.lastLSN.map { first...$0 } }
    }.sorted { $0.lowerBound < $1.lowerBound }
    #expect(ranges.count == 240 - failures)
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
