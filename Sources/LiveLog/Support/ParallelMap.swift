import Dispatch
import Foundation

/// Work spread over every core for pure computations on many independent items, such as decoding
/// and indexing the records of a replay.
enum ParallelMap {
  /// `body(0) ..< body(count)`, in order, computed on every core, over contiguous parts of at
  /// least `minimumPerWorker` items (`parts`); on the caller's thread alone when that makes one
  /// part. The first error, by index, is thrown.
  static func map<Value>(
    _ count: Int, minimumPerWorker: Int = 1_024, _ body: @Sendable (Int) throws -> Value
  ) throws -> [Value] {
    let parts = parts(count, minimum: minimumPerWorker)
    // One part runs on the caller's thread either way; this skips the slots and the results.
    if parts == 1 { return try (0..<count).map(body) }
    let slots = Slots<Result<Value, any Error>>(count: count)
    DispatchQueue.concurrentPerform(iterations: parts) { part in
      let range = (count * part / parts)..<(count * (part + 1) / parts)
      for index in range { slots.set(index, Result { try body(index) }) }
    }
    // Each result moved out, not copied: a copy retains its references, and releasing them
    // again with the slots was about 5% of a bulk commit's time on the writer's thread.
    var values: [Value] = []
    values.reserveCapacity(count)
    for index in 0..<count { values.append(try slots.take(index).get()) }
    return values
  }

  /// `body` of each contiguous part of `0 ..< count` (`parts`, none of fewer than `minimum`
  /// items), in order, computed on every core: for work that sums or gathers a part at once.
  static func mapParts<Value>(
    _ count: Int, minimum: Int, _ body: @Sendable (Range<Int>) throws -> Value
  ) throws -> [Value] {
    let parts = parts(count, minimum: minimum)
    return try map(parts, minimumPerWorker: 1) { part in
      try body((count * part / parts)..<(count * (part + 1) / parts))
    }
  }

  /// How many contiguous parts `count` items are split into: a few per core, taken by the cores
  /// as they come free, so that a core slowed by other work (another thread of the process,
  /// another process) leaves its parts to the others rather than holding everyone up; none of
  /// fewer than `minimum` items.
  private static func parts(_ count: Int, minimum: Int) -> Int {
    max(1, min(4 * cores, count / max(1, minimum)))
  }

  /// The cores this process may run on, read once: Foundation reads them from the system at
  /// every call (about 10 µs on Linux, the cost of checking a few dozen records), and a query
  /// that splits its work asks each time.
  static let cores = ProcessInfo.processInfo.activeProcessorCount
}

/// Slots written by parallel workers, each slot by one worker only, read after they all finish.
/// The storage is allocated once, so writes to different slots never touch shared state.
private final class Slots<Value>: @unchecked Sendable {
  private let storage: UnsafeMutableBufferPointer<Value?>

  init(count: Int) {
    storage = .allocate(capacity: count)
    storage.initialize(repeating: nil)
  }

  deinit {
    storage.deinitialize()
    storage.deallocate()
  }

  func set(_ index: Int, _ value: Value) { storage[index] = value }

  /// The value of slot `index`, moved out (the slot is empty after); each slot was set by the
  /// worker whose range holds it.
  func take(_ index: Int) -> Value {
    guard let value = storage[index].take() else {
      preconditionFailure("a parallel worker left its slot empty")
    }
    return value
  }
}
