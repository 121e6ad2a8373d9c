import Synchronization

/// The large buffers of segment builds (`SegmentBuilder`'s trigram keys and its sort's second
/// buffer), handed from one build to the next of a run of them: a replay lays out its segments
/// one after another, each with tens of megabytes of them. Allocated anew each time, those are
/// fresh pages the kernel zeroes on first touch, and grown by doubling as postings come, copied
/// into fresh pages again: a seventh of a replay's CPU.
///
/// Holds at most `limit` buffers, empty but with their room; they are freed with the pool, so a
/// pool lives as long as the run it serves (a replay), not the process.
final class SegmentBuffers: Sendable {
  private let free = Mutex<[[UInt64]]>([])
  /// Two builders a segment (`SegmentBuilder.build`), each with its keys and its sort's buffer.
  private static let limit = 4

  /// An empty buffer, with the room of one given back when there is one.
  func take() -> [UInt64] {
    free.withLock { $0.popLast() } ?? []
  }

  /// Keeps `buffer`'s room for the next `take`, and leaves `buffer` empty.
  func giveBack(_ buffer: inout [UInt64]) {
    var kept: [UInt64] = []
    swap(&kept, &buffer)
    guard kept.capacity > 0 else { return }
    kept.removeAll(keepingCapacity: true)
    free.withLock { buffers in
      if buffers.count < Self.limit { buffers.append(kept) }
    }
  }
}
