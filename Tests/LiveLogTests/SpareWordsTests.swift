import Dispatch
import Synchronization
import Testing

@testable import LiveLog

/// `SpareWords` hands out zero words however dirty the arrays it keeps were left, from many
/// threads at once.
@Suite struct SpareWordsTests {
  @Test func zeroedWordsAreZeroAfterDirtyArraysWereKept() {
    let failures = Counter()
    DispatchQueue.concurrentPerform(iterations: 8) { worker in
      var random = SplitMix64(seed: 90 + UInt64(worker))
      for _ in 0..<300 {
        // Sizes around the largest kept array, so that both kept and fresh arrays are handed out.
        let count =
          Int.random(in: 0...(SpareWords.keptWords + 1_000), using: &random)
          / Int.random(
            in: 1...64, using: &random)
        var words = SpareWords.zeroed(count)
        if words.count != count || words.contains(where: { $0 != 0 }) { failures.add() }
        for index in words.indices { words[index] = ~0 }
        SpareWords.keep(words)
      }
    }
    #expect(failures.value == 0)
  }

  /// A membership built from a kept, dirty array still answers as a set does.
  @Test func aBitmapFromAKeptArrayHoldsItsMembersAlone() {
    var dirty = SpareWords.zeroed(20_000)
    for index in dirty.indices { dirty[index] = ~0 }
    SpareWords.keep(dirty)
    let members = (0..<5_000).map { Row($0 * 97) }
    let membership = RowMembership(members, questions: 1_000_000)
    #expect(membership.isBitmap)
    let set = Set(members)
    for row in 0..<Row(5_000 * 97 + 100) where membership.contains(row) != set.contains(row) {
      Issue.record("row \(row)")
      return
    }
  }
}

/// A count shared by the workers of one test.
private final class Counter: Sendable {
  private let count = Mutex(0)
  func add() { count.withLock { $0 += 1 } }
  var value: Int { count.withLock { $0 } }
}
