/// The trigrams of a recent row as a Bloom filter of their codes: a lookup asks whether the row
/// may hold a code, and a row that may hold every trigram of a pattern is checked against its
/// record, as every recent candidate is.
///
/// Why: a record's codes, four bytes each, were most of its recent entry (about 380 of 690
/// bytes for a generated repository), and sorting them a tenth of a small commit's CPU; a commit
/// of 100 records wrote 25 pages of recent entries. At `bitsPerPosting` bits a posting the filter
/// takes about a third of the bytes and no sort, and a row that lacks a code passes the test for
/// it with a chance of about 2% (`probes`): a pattern of one trigram makes about 10
/// extra record checks among 512 recent rows, one of two trigrams almost none.
///
/// Layout: `bitCount` bits, bit `i` at byte `i / 8`, bit `i % 8`; `bitCount` is a multiple of 64
/// (none for a record without trigrams). Each code sets `probes` bits, picked from one 64-bit hash
/// of the code by double hashing and mapped onto the bits by a multiply-shift (`bit(_:of:)`). The
/// sizes and the hash are part of the stored format: entries written with other ones would read
/// wrongly.
enum TrigramFilter {
  /// Bits a trigram posting of the record adds. Postings (one per position) rather than
  /// distinct codes, which only a sort would count; most texts repeat few trigrams.
  static let bitsPerPosting = 10
  /// The largest filter: text that repeats its trigrams (a field of one character over and over)
  /// would otherwise take far more bytes than its distinct codes did. Up to 3,276 postings a
  /// record keeps its full `bitsPerPosting`; longer text passes more codes it lacks (at 10,000
  /// distinct codes, about 1 in 5), which its record check then refuses.
  static let maximumByteCount = 4_096
  /// Bits each code sets. At `bitsPerPosting` bits a distinct code, a row lacking a code passes
  /// the test for it with a chance of `(1 - e^(-probes / bitsPerPosting))^probes`, about 0.017.
  static let probes = 3

  /// The filter's size in bytes for a record of `postings` trigram postings: none for none.
  static func byteCount(postings: Int) -> Int {
    // Past `maximumByteCount` postings the cap holds whatever their number (and nothing overflows).
    let bits = min(postings, maximumByteCount) * bitsPerPosting
    return min(maximumByteCount, (bits + 63) / 64 * 8)
  }

  /// Sets `code`'s bits in `filter`.
  @inline(__always)
  static func insert(_ code: UInt32, into filter: UnsafeMutableRawBufferPointer) {
    let bitCount = UInt64(filter.count * 8)
    let (first, step) = hashes(code)
    for probe in 0..<UInt32(probes) {
      let bit = Int(Self.bit(first &+ probe &* step, of: bitCount))
      filter[bit >> 3] |= UInt8(1) << UInt8(bit & 7)
    }
  }

  /// Whether `filter` has every bit of `code`: false only for a code the row lacks.
  @inline(__always)
  static func mayContain(_ code: UInt32, in filter: UnsafeRawBufferPointer) -> Bool {
    guard !filter.isEmpty else { return false }
    let bitCount = UInt64(filter.count * 8)
    let (first, step) = hashes(code)
    for probe in 0..<UInt32(probes) {
      let bit = Int(Self.bit(first &+ probe &* step, of: bitCount))
      if filter[bit >> 3] & (UInt8(1) << UInt8(bit & 7)) == 0 { return false }
    }
    return true
  }

  /// The filter of a record whose trigram postings (`code << 32 | position`) are `postings`.
  static func filter(of postings: [UInt64]) -> [UInt8] {
    var filter = [UInt8](repeating: 0, count: byteCount(postings: postings.count))
    filter.withUnsafeMutableBytes { filter in
      for posting in postings { insert(UInt32(truncatingIfNeeded: posting >> 32), into: filter) }
    }
    return filter
  }

  /// Whether `count` bytes can be a filter: a whole number of 64-bit words.
  static func isWellSized(_ count: Int) -> Bool { count % 8 == 0 }

  /// Two 32-bit hashes of `code` (the second odd), from a 64-bit mix of it.
  @inline(__always)
  private static func hashes(_ code: UInt32) -> (UInt32, UInt32) {
    var x = UInt64(code) &+ 0x9E37_79B9_7F4A_7C15
    x = (x ^ (x >> 30)) &* 0xBF58_476D_1CE4_E5B9
    x = (x ^ (x >> 27)) &* 0x94D0_49BB_1331_11EB
    x ^= x >> 31
    return (UInt32(truncatingIfNeeded: x), UInt32(truncatingIfNeeded: x >> 32) | 1)
  }

  /// `hash` mapped onto `0 ..< bitCount` (at most `maximumByteCount · 8` bits, so the product
  /// stays far below 2^64; a stored filter of any other size maps within its bits too).
  @inline(__always)
  private static func bit(_ hash: UInt32, of bitCount: UInt64) -> UInt64 {
    (UInt64(hash) &* bitCount) >> 32
  }
}
