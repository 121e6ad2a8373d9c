import Foundation
import TestSupport
import Testing

@testable import LiveLog

/// `ParallelMap` against a plain loop: the same values in the same order, whatever the count and
/// the least share of a worker, for values holding references (which it moves out of its slots);
/// and, when several items throw, the error of the first by index.
@Suite struct ParallelMapTests {
  struct Failure: Error, Equatable {
    var index: Int
  }

  static func value(_ index: Int) -> [String] {
    (0..<(index % 4)).map { "item \(index) part \($0), long enough not to be stored inline" }
  }

  @Test func mapsAsALoopDoes() throws {
    var random = SplitMix64(seed: 97)
    for _ in 0..<40 {
      let count = Int.random(in: 0...5_000, using: &random)
      let minimum = Int.random(in: 1...2_000, using: &random)
      let mapped = try ParallelMap.map(count, minimumPerWorker: minimum) { Self.value($0) }
      var expected: [[String]] = []
      for index in 0..<count { expected.append(Self.value(index)) }
      #expect(mapped == expected, "count \(count), at least \(minimum) a worker")
    }
  }

  @Test func throwsTheErrorOfTheFirstFailingItem() {
    var random = SplitMix64(seed: 98)
    for _ in 0..<40 {
      let count = Int.random(in: 1...5_000, using: &random)
      let failing = Set(
        (0..<Int.random(in: 1...5, using: &random)).map { _ in
          Int.random(in: 0..<count, using: &random)
        })
      let first = failing.min() ?? 0
      #expect(throws: Failure(index: first)) {
        try ParallelMap.map(count, minimumPerWorker: 64) { index in
          if failing.contains(index) { throw Failure(index: index) }
          return Self.value(index)
        }
      }
    }
  }

  @Test func splitsIntoPartsThatCoverEveryItemOnce() throws {
    var random = SplitMix64(seed: 99)
    for _ in 0..<40 {
      let count = Int.random(in: 0...50_000, using: &random)
      let minimum = Int.random(in: 1...5_000, using: &random)
      let parts = try ParallelMap.mapParts(count, minimum: minimum) { $0 }
      var next = 0
      for part in parts {
        #expect(part.lowerBound == next && (part.count >= min(minimum, count) || parts.count == 1))
        next = part.upperBound
      }
      #expect(next == count, "count \(count), at least \(minimum) a part")
    }
  }
}
