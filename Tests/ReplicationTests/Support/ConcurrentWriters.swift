import Dispatch
import Foundation
import LiveLog
import Synchronization

@testable import LiveLogReplication

/// Stores writing into one stream at once, each on a thread of its own, until stopped. Every
/// commit adds one new note and increments a counter shared by all writers (note 0), so that a
/// commit lost or applied twice shows in the count: the counter equals the number of other notes.
/// A write the stream does not acknowledge (an election, a dead server) is tried again until it
/// is — without adding its note twice when the unacknowledged commit did land.
final class ConcurrentWriters: Sendable {
  static let counterID: Int64 = 0

  private struct State {
    var acknowledged: [[Int64]]
    var lastAcknowledged: [Date]
    /// The longest time between two acknowledged writes of each writer, since `resetGaps`.
    var longestGap: [Double]
    var retries = 0
    var failures: [String] = []
  }

  private let state: Mutex<State>
  private let stopping = Atomic<Bool>(false)
  private let group = DispatchGroup()

  /// Starts one writer per store; each waits `pauseMicroseconds` between its writes.
  init(_ stores: [Store], pauseMicroseconds: UInt32 = 10_000) {
    state = Mutex(
      State(
        acknowledged: stores.map { _ in [] }, lastAcknowledged: stores.map { _ in Date() },
        longestGap: stores.map { _ in 0 }))
    for (writer, store) in stores.enumerated() {
      DispatchQueue.global().async(group: group) { [self] in
        var sequence: Int64 = 0
        while !stopping.load(ordering: .relaxed) {
          sequence += 1
          let id = Int64(writer + 1) * 1_000_000 + sequence
          do {
            try write(id, writer: writer, to: store)
          } catch {
            state.withLock { $0.failures.append("writer \(writer), note \(id): \(error)") }
            return
          }
          let now = Date()
          state.withLock {
            $0.acknowledged[writer].append(id)
            $0.longestGap[writer] = max(
              $0.longestGap[writer], now.timeIntervalSince($0.lastAcknowledged[writer]))
            $0.lastAcknowledged[writer] = now
          }
          usleep(pauseMicroseconds)
        }
      }
    }
  }

  /// Writes note `id` and counts it, once: a retry after an unacknowledged commit that landed
  /// finds the note and writes nothing. Gives up on a divergence, or after 120 s.
  private func write(_ id: Int64, writer: Int, to store: Store) throws {
    let deadline = Date().addingTimeInterval(120)
    while true {
      do {
        try store.write { txn in
          guard try txn.record(Note.self, id: id) == nil else { return }
          let counter = try txn.record(Note.self, id: Self.counterID)?.score ?? 0
          txn.upsert(Note(id: Self.counterID, text: "counter", score: counter + 1))
          txn.upsert(Note(id: id, text: "by writer \(writer)", score: writer))
        }
        return
      } catch let error as ReplicationError {
        if case .diverged = error { throw error }
        guard Date() < deadline else { throw error }
        state.withLock { $0.retries += 1 }
        usleep(100_000)
      }
    }
  }

  var acknowledged: [[Int64]] { state.withLock { $0.acknowledged } }
  var failures: [String] { state.withLock { $0.failures } }
  var retries: Int { state.withLock { $0.retries } }
  var longestGaps: [Double] { state.withLock { $0.longestGap } }

  /// Starts measuring the longest gaps anew.
  func resetGaps() {
    state.withLock { state in
      state.longestGap = state.longestGap.map { _ in 0 }
    }
  }

  /// Waits until every writer has had `count` more writes acknowledged (at most `seconds`, as
  /// long as a writer tries one write).
  func waitForProgress(_ count: Int, seconds: Double = 120) throws {
    let start = acknowledged.map(\.count)
    try Fixtures.wait(
      "every writer to have \(count) more writes acknowledged (from \(start); \(retries) retries so far)",
      seconds: seconds
    ) {
      if let failure = failures.first { throw WriterFailed(description: failure) }
      return zip(acknowledged, start).allSatisfy { $0.count >= $1 + count }
    }
  }

  /// Stops the writers once their current writes are done; throws what any failed with.
  func stop() throws {
    stopping.store(true, ordering: .relaxed)
    group.wait()
    if let failure = failures.first { throw WriterFailed(description: failure) }
  }

  struct WriterFailed: Error, CustomStringConvertible {
    var description: String
  }
}
