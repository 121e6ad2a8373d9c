/// Events copied out of a log into one buffer: their LSNs, and their bytes one after another.
///
/// A replay (and a verification) copies its source's log in batches of 20,000 events, which the
/// batch's checkers and followers read on other threads; an array per event was a heap block to
/// make and free for each of a log's million events.
struct EventBatch: Sendable {
  /// Each event's LSN, in the order the events were added.
  private(set) var lsns: [UInt64] = []
  private var bytes: [UInt8] = []
  /// Where each event's bytes end in `bytes`.
  private var ends: [Int] = []

  /// A batch with room for `capacity` events of `byteCapacity` bytes in all (the batch before
  /// it is a good guess: a 20,000-event batch of the benchmark's records takes about 6 MB, which
  /// grown by doubling from nothing is copied about 20 times).
  init(capacity: Int, byteCapacity: Int = 0) {
    lsns.reserveCapacity(capacity)
    ends.reserveCapacity(capacity)
    bytes.reserveCapacity(byteCapacity)
  }

  var count: Int { lsns.count }

  /// The bytes of all the events.
  var byteCount: Int { bytes.count }

  mutating func append(lsn: UInt64, _ event: UnsafeRawBufferPointer) {
    lsns.append(lsn)
    bytes.append(contentsOf: event)
    ends.append(bytes.count)
  }

  /// The bytes of the event at `index`, lent to `body`.
  func withEvent<Result>(at index: Int, _ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result
  {
    let start = index == 0 ? 0 : ends[index - 1]
    return try bytes.withUnsafeBytes { try body(UnsafeRawBufferPointer(rebasing: $0[start..<ends[index]])) }
  }
}
