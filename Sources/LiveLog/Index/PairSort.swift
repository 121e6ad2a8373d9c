/// An equality prefix as a dictionary key, hashed as one run of bytes rather than byte by byte.
struct TermKey: Hashable {
  var bytes: [UInt8]

  init(_ bytes: [UInt8]) { self.bytes = bytes }

  func hash(into hasher: inout Hasher) {
    bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
  }
}

/// Sorting of `code << 32 | row` pairs: a least-significant-digit radix sort over the eight
/// bytes, linear in the number of pairs (a million per 10,000 records ingested).
enum PairSort {
  static func sorted(_ values: [UInt64]) -> [UInt64] {
    guard values.count > 64 else { return values.sorted() }
    var source = values
    var target = [UInt64](repeating: 0, count: values.count)
    // Skip the passes over bytes that are equal in every value.
    var differing: UInt64 = 0
    if let first = values.first { for value in values { differing |= value ^ first } }
    for pass in 0..<8 {
      let shift = UInt64(pass * 8)
      guard (differing >> shift) & 0xFF != 0 else { continue }
      var counts = [Int](repeating: 0, count: 257)
      for value in source { counts[Int((value >> shift) & 0xFF) + 1] += 1 }
      for index in 1..<257 { counts[index] += counts[index - 1] }
      for value in source {
        let bucket = Int((value >> shift) & 0xFF)
        target[counts[bucket]] = value
        counts[bucket] += 1
      }
      swap(&source, &target)
    }
    return source
  }
}
