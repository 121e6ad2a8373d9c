import Dispatch
import Synchronization

/// The index part of a small commit's recent entries (`RecentEntry.Encoder.indexes`), encoded on
/// another core while the writer's thread does the commit's serial work: looking up keys, reading
/// stored records, making and appending events. When the writer comes to file the entries it
/// encodes whatever is left itself, then waits for the record the other core is on.
///
/// Why: the entries were most of a small commit's CPU, on the writer's thread alone while the
/// other core idled. Split between the cores at the point of filing, each part waited for a worker
/// to wake; started early, the work overlaps with what the writer must do in order anyway.
///
/// Each upsert is claimed once, by whichever thread takes it first; every slot is written by its
/// claimer only and read after `finish`, whose wait orders the worker's writes before the reads.
final class RecentIndexJob: @unchecked Sendable {
  private let count: Int
  private let encode: @Sendable (Int, inout RecentEntry.Encoder) -> [UInt8]?
  private let slots: UnsafeMutableBufferPointer<[UInt8]?>
  private let next = Atomic<Int>(0)
  private let worker = DispatchGroup()
  private var isFinished = false

  /// Starts encoding `encode(0) ..< encode(count)` on another thread; `nil` is an upsert with no
  /// entry to encode.
  init(count: Int, encode: @escaping @Sendable (Int, inout RecentEntry.Encoder) -> [UInt8]?) {
    self.count = count
    self.encode = encode
    slots = .allocate(capacity: count)
    slots.initialize(repeating: nil)
    DispatchQueue.global().async(group: worker) { self.work() }
  }

  deinit {
    slots.deinitialize()
    slots.deallocate()
  }

  /// Encodes what no thread has claimed yet, then waits for the other thread.
  func finish() {
    guard !isFinished else { return }
    work()
    worker.wait()
    isFinished = true
  }

  /// Stops handing out upserts (a commit that throws or folds); the other thread finishes the
  /// one it is on.
  func cancel() {
    next.store(count, ordering: .relaxed)
  }

  /// The index part of the entry of upsert `index`, once `finish` has returned.
  func indexes(at index: Int) -> [UInt8]? {
    precondition(isFinished, "a recent index job is read before it finishes")
    return slots[index]
  }

  private func work() {
    var encoder = RecentEntry.Encoder()
    while true {
      let index = next.add(1, ordering: .relaxed).oldValue
      guard index < count else { return }
      slots[index] = encode(index, &encoder)
    }
  }
}
