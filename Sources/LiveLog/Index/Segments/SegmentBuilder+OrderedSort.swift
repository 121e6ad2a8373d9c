extension SegmentBuilder {
  /// One ordered field's entries, given in row order, sorted by key and then row: the order of
  /// its pages. The bytes of `OrderedKey` that differ among the entries (a field of star counts
  /// differs in two or three of its thirteen, a field of dates without fractions of a second in
  /// four or five) are packed above each entry's place in the input into one word, and the words
  /// sorted by those bytes alone, a stable pass a byte: entries of one key keep their input
  /// order, which is row order. Keys differing in more bytes than a word holds beside the
  /// places, or entries not in row order, are sorted by the standard library. (Its sort of the
  /// entries, comparing tuples, was a sixteenth of a replay's time.)
  static func sortedByKey(_ entries: [(OrderedKey, Row, Int64)]) -> [(OrderedKey, Row, Int64)] {
    guard entries.count > 1 else { return entries }
    // Which bits differ among the keys: those set in some but not all.
    var (anyFlag, everyFlag): (UInt8, UInt8) = (0, 0xFF)
    var (anyHigh, everyHigh): (UInt64, UInt64) = (0, .max)
    var (anyLow, everyLow): (UInt32, UInt32) = (0, .max)
    var rowsAscend = true
    var previous: Row?
    for (key, row, _) in entries {
      if let previous, previous >= row { rowsAscend = false }
      previous = row
      anyFlag |= key.flag
      everyFlag &= key.flag
      anyHigh |= key.high
      everyHigh &= key.high
      anyLow |= key.low
      everyLow &= key.low
    }
    // The differing bytes, most significant first, as (word, shift): 0 the flag, 1 high, 2 low.
    var bytes: [(word: Int, shift: UInt64)] = []
    if anyFlag != everyFlag { bytes.append((0, 0)) }
    for byte in (0..<8).reversed() where (anyHigh ^ everyHigh) >> UInt64(byte * 8) & 0xFF != 0 {
      bytes.append((1, UInt64(byte * 8)))
    }
    for byte in (0..<4).reversed() where (anyLow ^ everyLow) >> UInt32(byte * 8) & 0xFF != 0 {
      bytes.append((2, UInt64(byte * 8)))
    }
    let placeBits = UInt64.bitWidth - (entries.count - 1).leadingZeroBitCount
    guard rowsAscend, bytes.count * 8 + placeBits <= UInt64.bitWidth else {
      return entries.sorted { $0.0 != $1.0 ? $0.0 < $1.0 : $0.1 < $1.1 }
    }
    var words = [UInt64](repeating: 0, count: entries.count)
    for (place, (key, _, _)) in entries.enumerated() {
      var word: UInt64 = 0
      for (source, shift) in bytes {
        let value = source == 0 ? UInt64(key.flag) : source == 1 ? key.high : UInt64(key.low)
        word = word << 8 | (value >> shift & 0xFF)
      }
      words[place] = word << placeBits | UInt64(place)
    }
    sortByPackedBytes(&words, byteCount: bytes.count, above: UInt64(placeBits))
    let placeMask: UInt64 = (1 << placeBits) - 1
    return words.map { entries[Int(truncatingIfNeeded: $0 & placeMask)] }
  }

  /// Sorts `words` by their `byteCount` bytes above bit `shift`, a stable pass a byte from the
  /// least significant: words equal in those bytes keep their order.
  private static func sortByPackedBytes(_ words: inout [UInt64], byteCount: Int, above shift: UInt64) {
    guard byteCount > 0, words.count > 1 else { return }
    var spare = [UInt64](repeating: 0, count: words.count)
    var counts = [Int](repeating: 0, count: 256)
    words.withUnsafeMutableBufferPointer { words in
      spare.withUnsafeMutableBufferPointer { spare in
        counts.withUnsafeMutableBufferPointer { counts in
          var source = words
          var target = spare
          for pass in 0..<byteCount {
            let digitShift = shift + UInt64(pass * 8)
            counts.update(repeating: 0)
            for word in source { counts[Int(truncatingIfNeeded: word >> digitShift & 0xFF)] += 1 }
            var place = 0
            for bucket in 0..<256 {
              let size = counts[bucket]
              counts[bucket] = place
              place += size
            }
            for word in source {
              let bucket = Int(truncatingIfNeeded: word >> digitShift & 0xFF)
              target[counts[bucket]] = word
              counts[bucket] += 1
            }
            swap(&source, &target)
          }
          if source.baseAddress != words.baseAddress { _ = words.update(fromContentsOf: source) }
        }
      }
    }
  }
}
