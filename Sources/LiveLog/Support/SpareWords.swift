import Synchronization

/// Word arrays kept from one query's bitmaps for the next one's.
///
/// A bitmap over a million rows is about 125 KB. Freed, it joins the top of the C heap, and glibc
/// gives the top back to the system once it passes 128 KiB (its default trim threshold), so the
/// next query's bitmap came back as fresh pages that the kernel faulted in and zeroed before the
/// bitmap zeroed them again: measured at 1M records, a quarter of the time of a top 20 of a 2%
/// filter (`language == 'Swift' SORT(stargazers_count DESC) LIMIT(20)`: 227 µs at best, 168 µs
/// with the heap left untrimmed).
///
/// `shared` is process-wide and never gives its arrays back: it holds at most `keptArrays` arrays
/// of at most `keptWords` words each, 8 MiB in all, and about 0.5 MB for stores of a million rows.
final class SpareWords: Sendable {
  /// The pool every bitmap of the process draws from.
  static let shared = SpareWords()

  /// At most this many arrays are kept: about one per query running at once.
  static let keptArrays = 4
  /// Arrays of more words than this (2 MiB: a bitmap over 16M rows) are freed.
  static let keptWords = 1 << 18

  private let spare = Mutex<[[UInt64]]>([])

  /// `count` zero words, in the smallest kept array large enough, if any.
  func zeroed(_ count: Int) -> [UInt64] {
    guard var words = take(count) else { return [UInt64](repeating: 0, count: count) }
    words.removeAll(keepingCapacity: true)
    words.append(contentsOf: repeatElement(0, count: count))
    return words
  }

  /// The smallest kept array of `count` words' capacity or more, no longer kept.
  private func take(_ count: Int) -> [UInt64]? {
    spare.withLock { arrays -> [UInt64]? in
      let fitting = arrays.indices.filter { arrays[$0].capacity >= count }
      guard let index = fitting.min(by: { arrays[$0].capacity < arrays[$1].capacity }) else { return nil }
      return arrays.remove(at: index)
    }
  }

  /// Keeps `words` for a later `zeroed`, in place of the smallest kept array when `keptArrays`
  /// are kept and it is smaller (a store's bitmaps grow with it), unless it is too large.
  func keep(_ words: [UInt64]) {
    guard words.count <= Self.keptWords else { return }
    // The array it replaces is freed once the lock is let go.
    let replaced = spare.withLock { arrays -> [UInt64]? in
      if arrays.count < Self.keptArrays {
        arrays.append(words)
        return nil
      }
      guard let smallest = arrays.indices.min(by: { arrays[$0].capacity < arrays[$1].capacity }),
        arrays[smallest].capacity < words.capacity
      else { return nil }
      let old = arrays[smallest]
      arrays[smallest] = words
      return old
    }
    _ = replaced
  }

  /// The capacities of the kept arrays, smallest first (for tests).
  var keptCapacities: [Int] { spare.withLock { $0.map(\.capacity).sorted() } }
}
