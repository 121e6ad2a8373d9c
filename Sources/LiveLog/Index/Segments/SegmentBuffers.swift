import Synchronization

/// The large buffers of segment builds (`SegmentBuilder`'s trigram keys and postings, and its
/// radix sort's second buffer), handed from one build to the next of a run of them: a replay lays
/// out a collection's segments one after another, each with tens of megabytes of them. Allocated
/// anew each time, those are fresh pages the kernel zeroes on first touch, and grown by doubling
/// as postings come, copied into fresh pages again: a seventh of a replay's CPU.
///
/// Holds at most `limit` buffers; they are freed with the pool, so a pool lives as long as the
/// run it serves (one collection's segments in a replay), not the process.
final class SegmentBuffers: Sendable {
  private let free = Mutex<[[UInt64]]>([])
  /// Two builders a segment (`SegmentBuilder.build`), each with its keys and its sort's buffer.
  private static let limit = 4

  /// A buffer with the most room of those given back (none: a new one), holding what it held:
  /// its length and elements mean nothing to the taker, which cuts or empties it.
  func take() -> [UInt64] {
    free.withLock { buffers in
      guard let largest = buffers.indices.max(by: { buffers[$0].capacity < buffers[$1].capacity }) else {
        return []
      }
      return buffers.remove(at: largest)
    }
  }

  /// Keeps `buffer` (its room) for the next `take`, and leaves `buffer` empty.
  func giveBack(_ buffer: inout [UInt64]) {
    guard buffer.capacity > 0 else { return }
    free.withLock { buffers in
      guard buffers.count < Self.limit else { return }
      // Moved in, not copied: a copy held here while the caller still held the buffer would
      // make the next taker's first write copy it whole.
      buffers.append([])
      swap(&buffers[buffers.count - 1], &buffer)
    }
    buffer = []
  }
}
