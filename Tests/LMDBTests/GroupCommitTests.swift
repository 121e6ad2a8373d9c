import Dispatch
import Foundation
import Testing

@testable import LMDB

/// Writers that arrive while a commit is in flight share the next one; each keeps its own
/// outcome.
@Suite struct GroupCommitTests {
  private static func bytes(_ value: UInt64) -> [UInt8] { withUnsafeBytes(of: value) { Array($0) } }

  /// Runs `body` on a thread of its own: Dispatch's shared pool, busy with the rest of the suite
  /// on two cores, could start the waiting writers only after the leader had given up on them.
  private static func spawn(in group: DispatchGroup, _ body: @escaping @Sendable () -> Void) {
    group.enter()
    Thread {
      body()
      group.leave()
    }.start()
  }

  @Test func writersArrivingDuringACommitShareTheNextOneAndKeepTheirOwnOutcome() throws {
    let path = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: path) }
    let env = try Environment.open(path: path)
    let db = try env.write { try env.openDatabase("numbers", flags: .integerKey, create: true, in: $0) }
    let before = env.groupCommitCounts
    struct Refused: Error {}
    let outcomes = OutcomeBox()
    let group = DispatchGroup()
    // The first writer leads and holds its transaction open until three more wait behind it.
    let entered = DispatchSemaphore(value: 0)
    Self.spawn(in: group) {
      let value = Result {
        try env.writeGrouped { txn -> Int in
          try txn.put(db, 1, Self.bytes(1))
          entered.signal()
          let deadline = Date().addingTimeInterval(60)
          while env.commitGroup.waitingCount < 3 && Date() < deadline { usleep(1_000) }
          return 1
        }
      }
      outcomes.set(1, value)
    }
    entered.wait()
    for key in UInt64(2)...4 {
      Self.spawn(in: group) {
        let value = Result {
          try env.writeGrouped { txn -> Int in
            try txn.put(db, key, Self.bytes(key))
            // The third writer fails after writing: only its own write is undone.
            if key == 3 { throw Refused() }
            return Int(key)
          }
        }
        outcomes.set(Int(key), value)
      }
    }
    group.wait()
    let after = env.groupCommitCounts
    #expect(after.requests - before.requests == 4)
    #expect(after.transactions - before.transactions == 2, "the three waiting writers share one commit")
    #expect(outcomes.value(1) == 1)
    #expect(outcomes.value(2) == 2)
    #expect(outcomes.value(3) == nil)
    #expect(outcomes.value(4) == 4)
    let stored: [UInt64] = try env.read { txn in
      try (UInt64(1)...4).filter { try txn.get(db, $0) != nil }
    }
    #expect(stored == [1, 2, 4])
  }

  @Test func concurrentWritersAllCommitExactlyOnce() throws {
    let path = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: path) }
    let env = try Environment.open(path: path)
    let db = try env.write { try env.openDatabase("numbers", flags: .integerKey, create: true, in: $0) }
    let failures = OutcomeBox()
    DispatchQueue.concurrentPerform(iterations: 4) { thread in
      for index in 0..<50 {
        let key = UInt64(thread * 1_000 + index)
        do {
          try env.writeGrouped { txn in
            // A counter every commit reads and bumps: lost or doubled commits would show.
            let count = try txn.get(db, UInt64.max).map { $0.loadUnaligned(as: UInt64.self) } ?? 0
            try txn.put(db, UInt64.max, Self.bytes(count + 1))
            try txn.put(db, key, Self.bytes(key))
          }
        } catch {
          failures.set(Int(key), .failure(error))
        }
      }
    }
    #expect(failures.isEmpty)
    let (count, entries): (UInt64, Int) = try env.read { txn in
      let count = try txn.get(db, UInt64.max).map { $0.loadUnaligned(as: UInt64.self) } ?? 0
      let entries = try txn.withCursor(db) { cursor in
        var n = 0
        var entry = try cursor.first()
        while entry != nil {
          n += 1
          entry = try cursor.next()
        }
        return n
      }
      return (count, entries)
    }
    #expect(count == 200)
    #expect(entries == 201)
  }
}

/// Outcomes of writers on other threads, by writer.
private final class OutcomeBox: @unchecked Sendable {
  private let lock = NSLock()
  private var outcomes: [Int: Result<Int, any Error>] = [:]

  func set(_ key: Int, _ outcome: Result<Int, any Error>) { lock.withLock { outcomes[key] = outcome } }

  func value(_ key: Int) -> Int? { lock.withLock { try? outcomes[key]?.get() } }

  var isEmpty: Bool { lock.withLock { outcomes.isEmpty } }
}
