import Synchronization

/// Word arrays kept from one query's bitmaps for the next one's.
///
/// A bitmap over a million rows is about 125 KB. Freed, it joins the top of the C heap, and glibc
/// gives the top back to the system once it passes 128 KiB (its default trim threshold), so the
/// next query's bitmap came back as fresh pages that the kernel faulted in and zeroed before the
/// bitmap zeroed them again: measured at 1M records, a quarter of the time of a top 20 of a 2%
/// filter (`language == 'Swift' SORT(stargazers_count DESC) LIMIT(20)`: 227 µs at best, 168 µs
/// with the heap left untrimmed).
enum SpareWords {
  /// At most this many arrays are kept: about one per query running at once.
  static let keptArrays = 4
  /// Arrays of more words than this are freed (2 MiB: a bitmap over 16M rows), so that what is
  /// kept stays at most `keptArrays` times that.
  static let keptWords = 1 << 18

  private static let spare = Mutex<[[UInt64]]>([])

  /// `count` zero words, in a kept array when one is large enough.
  static func zeroed(_ count: Int) -> [UInt64] {
    let kept = spare.withLock { arrays -> [UInt64]? in
      guard let index = arrays.firstIndex(where: { $0.capacity >= count }) else { return nil }
      return arrays.remove(at: index)
    }
    guard var words = kept else { return [UInt64](repeating: 0, count: count) }
    words.removeAll(keepingCapacity: true)
    words.append(contentsOf: repeatElement(0, count: count))
    return words
  }

  /// Keeps `words` for a later `zeroed`, unless it is too large or enough arrays are kept.
  static func keep(_ words: [UInt64]) {
    guard words.capacity <= keptWords else { return }
    spare.withLock { arrays in
      if arrays.count < keptArrays { arrays.append(words) }
    }
  }
}
