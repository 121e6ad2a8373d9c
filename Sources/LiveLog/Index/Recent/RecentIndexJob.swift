import Dispatch
import Foundation

/// The index part of a small commit's recent entries (`RecentEntry.Encoder.indexes`), encoded on
/// another core while the writer's thread does the commit's serial work: checking and encoding the
/// records, looking up their keys, making and appending their events.
///
/// Why: encoding the entries was the largest part of a small commit's CPU (about 0.4 ms of a
/// commit of 100 records' 1 ms), on the writer's thread alone while the other core idled. Split
/// between the cores at the point of filing, each part waited for a worker to wake; started
/// early, the work overlaps with what the writer must do in order anyway.
///
/// The worker takes upserts from the first on; the writer, when it files, takes those it needs
/// from the last back, and waits only for an upsert the worker is encoding at that moment. So it
/// never waits for a worker that has not started (the system's pool may be short of threads, and
/// the writer may be one of them), and an upsert that changed nothing is never encoded by the
/// writer. Each upsert is claimed once, under `condition`, by whichever thread takes it first.
final class RecentIndexJob: @unchecked Sendable {
  private enum Slot {
    case free, taken
    case done([UInt8]?)
  }

  private let encode: @Sendable (Int, inout RecentEntry.Encoder) -> [UInt8]?
  /// Guards `slots` and `next`, and wakes a writer waiting for a slot the worker is on.
  private let condition = NSCondition()
  private var slots: [Slot]
  /// The first slot the worker may find free.
  private var next = 0

  /// Starts encoding `encode(0) ..< encode(count)` on another thread; `nil` is an upsert with no
  /// entry to encode.
  init(count: Int, encode: @escaping @Sendable (Int, inout RecentEntry.Encoder) -> [UInt8]?) {
    self.encode = encode
    slots = Array(repeating: .free, count: count)
    DispatchQueue.global().async { self.work() }
  }

  /// The index parts of `positions`' upserts: those the worker encoded, the others encoded here.
  func indexes(at positions: [Int]) -> [[UInt8]?] {
    var found = [[UInt8]?](repeating: nil, count: positions.count)
    var encoder = RecentEntry.Encoder()
    for (place, position) in zip(positions.indices, positions).reversed() {
      condition.lock()
      switch slots[position] {
      case .done(let indexes):
        condition.unlock()
        found[place] = indexes
      case .free:
        slots[position] = .taken
        condition.unlock()
        found[place] = encode(position, &encoder)
      case .taken:
        while case .taken = slots[position] { condition.wait() }
        if case .done(let indexes) = slots[position] { found[place] = indexes }
        condition.unlock()
      }
    }
    return found
  }

  /// Stops handing upserts to the worker (the writer has what it needs, or the commit ended
  /// without filing); the worker finishes the one it is on.
  func cancel() {
    condition.lock()
    next = slots.count
    condition.unlock()
  }

  private func work() {
    var encoder = RecentEntry.Encoder()
    while let position = claim() {
      let indexes = encode(position, &encoder)
      condition.lock()
      slots[position] = .done(indexes)
      condition.broadcast()
      condition.unlock()
    }
  }

  /// The first free slot from `next` on, taken; `nil` when there is none.
  private func claim() -> Int? {
    condition.lock()
    defer { condition.unlock() }
    while next < slots.count {
      let position = next
      next += 1
      if case .free = slots[position] {
        slots[position] = .taken
        return position
      }
    }
    return nil
  }
}
