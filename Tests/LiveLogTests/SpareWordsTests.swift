import Dispatch
import Synchronization
import Testing

@testable import LiveLog

/// `SpareWords` hands out zero words however dirty the arrays it kept were left, from many
/// threads at once; reuses what it keeps; and keeps the largest arrays when it is full.
@Suite struct SpareWordsTests {
  @Test func zeroedWordsAreZeroAfterDirtyArraysWereKept() {
    let pool = SpareWords()
    let failures = Counter()
    DispatchQueue.concurrentPerform(iterations: 8) { worker in
      var random = SplitMix64(seed: 90 + UInt64(worker))
      for _ in 0..<120 {
        // Small arrays, arrays near the largest kept, and arrays too large to keep.
        let count =
          switch Int.random(in: 0..<3, using: &random) {
          case 0: Int.random(in: 0...2_000, using: &random)
          case 1: SpareWords.keptWords - Int.random(in: 0...1_000, using: &random)
          default: SpareWords.keptWords + Int.random(in: 1...1_000, using: &random)
          }
        var words = pool.zeroed(count)
        if words.count != count || words.contains(where: { $0 != 0 }) { failures.add() }
        for index in words.indices { words[index] = ~0 }
        pool.keep(words)
      }
    }
    #expect(failures.value == 0)
    #expect(pool.keptCapacities.count <= SpareWords.keptArrays)
    #expect(pool.keptCapacities.allSatisfy { $0 <= SpareWords.keptWords + 1_024 })
  }

  /// A kept array is handed out again (the same storage), the smallest that fits.
  @Test func reusesTheSmallestKeptArrayThatFits() {
    let pool = SpareWords()
    for count in [100, 5_000, 20_000] { pool.keep([UInt64](repeating: 7, count: count)) }
    let words = pool.zeroed(4_000)
    #expect(words.count == 4_000 && words.allSatisfy { $0 == 0 })
    #expect(words.capacity >= 5_000 && words.capacity < 20_000)
    #expect(pool.keptCapacities.count == 2)
  }

  /// Full, the pool trades its smallest array for a larger one (a growing store's bitmaps grow)
  /// and turns down smaller ones.
  @Test func keepsTheLargestArraysWhenFull() {
    let pool = SpareWords()
    for count in [10, 20, 40, 80] { pool.keep([UInt64](repeating: 0, count: count)) }
    let before = pool.keptCapacities
    pool.keep([UInt64](repeating: 0, count: 5))
    #expect(pool.keptCapacities == before)
    pool.keep([UInt64](repeating: 0, count: 1_000))
    #expect(pool.keptCapacities.count == SpareWords.keptArrays)
    #expect(pool.keptCapacities.first == before[1])
    #expect((pool.keptCapacities.last ?? 0) >= 1_000)
    pool.keep([UInt64](repeating: 0, count: SpareWords.keptWords + 1))
    #expect((pool.keptCapacities.last ?? 0) < SpareWords.keptWords)
  }

  /// A membership whose bitmap may come from the shared pool, left dirty by an earlier one,
  /// answers as a set does.
  @Test func aBitmapAfterADirtyOneHoldsItsMembersAlone() {
    for round in 0..<3 {
      let members = (0..<5_000).map { Row($0 * (97 + round)) }
      let membership = RowMembership(members, questions: 1_000_000)
      #expect(membership.isBitmap)
      let set = Set(members)
      for row in 0..<Row(5_000 * (97 + round) + 100) where membership.contains(row) != set.contains(row) {
        Issue.record("round \(round), row \(row)")
        return
      }
    }
  }
}

/// A count shared by the workers of one test.
private final class Counter: Sendable {
  private let count = Mutex(0)
  func add() { count.withLock { $0 += 1 } }
  var value: Int { count.withLock { $0 } }
}
