import Testing

@testable import LiveLog

/// The two inner loops of a replay that replace standard-library calls for speed, each checked
/// against the call it replaces on random input.
@Suite struct BulkDecodingTests {
  /// `SegmentBuilder.sortByCode` orders by the high 32 bits and keeps the order of equal codes
  /// (a posting list's rows stay ascending): the standard library's sort, stabilized by each
  /// key's first place, is the oracle. The sort's second buffer is new, or a spare one that held
  /// more, fewer or as many keys of an earlier sort (`SegmentBuffers`).
  @Test(arguments: [0, 1, 2, 3, 100, 5_000, 70_000])
  func radixSortEqualsAStableSortByCode(count: Int) {
    // The last: shorter than the keys but with room for them, as a buffer given back.
    var roomy = [UInt64](repeating: 7, count: count + 31)
    roomy.removeLast(count / 2 + 31)
    var spares: [[UInt64]] = [
      [], Array(repeating: 7, count: count + 31), Array(repeating: 7, count: count / 2),
      Array(repeating: 7, count: count), roomy,
    ]
    var random = SplitMix64(seed: UInt64(count) &+ 17)
    // Codes from a few (most keys tie, and some digits are shared by every key: the first alone,
    // with `<< 11`, so that a later pass is the first to move the keys) to any.
    for (codes, shift) in [(UInt64(1), UInt64(0)), (7, 0), (7, 11), (7, 22), (3_000, 0), (1 << 32, 0)] {
      let keys = (0..<count).map { _ in
        ((random.next() % codes) << shift & 0xFFFF_FFFF) << 32 | random.next() & 0xFFFF_FFFF
      }
      let expected = keys.enumerated().sorted {
        ($0.element >> 32, $0.offset) < ($1.element >> 32, $1.offset)
      }
      .map(\.element)
      for index in spares.indices {
        var sorted = keys
        let room = spares[index].capacity
        SegmentBuilder.sortByCode(&sorted, spare: &spares[index])
        #expect(sorted == expected, "\(count) keys of \(codes) codes shifted by \(shift), spare \(index)")
        // The spare holds the other buffer now: at least the room it had, or the keys'.
        #expect(spares[index].capacity >= min(room, count) || count <= 1)
      }
    }
  }

  /// `String.validated(utf8:)` accepts exactly the bytes `String(validating:as:)` accepts and
  /// returns the same string: random bytes (mostly invalid), valid text with one byte changed
  /// (truncated, overlong, surrogate and out-of-range sequences), and valid text.
  @Test func validatedStringAgreesWithTheStandardLibrary() {
    var random = SplitMix64(seed: 20_261_203)
    let samples = [
      "", "a", "octocat/Hello-World", "café", "日本語のテキスト", "emoji 🦄 here", "\u{FFFD}", "\u{10FFFF}",
    ]
    var accepted = 0
    var refused = 0
    for round in 0..<20_000 {
      var bytes: [UInt8]
      switch round % 3 {
      case 0:
        bytes = (0..<Int(random.next() % 12)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
      case 1:
        bytes = Array(samples[Int(random.next() % UInt64(samples.count))].utf8)
        if !bytes.isEmpty {
          bytes[Int(random.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: random.next())
        }
      default:
        bytes = Array(samples[Int(random.next() % UInt64(samples.count))].utf8)
      }
      let expected = String(validating: bytes, as: UTF8.self)
      let found = bytes.withUnsafeBufferPointer { String.validated(utf8: $0) }
      // Byte for byte: `==` on strings would accept a canonically equivalent one.
      #expect(found.map { Array($0.utf8) } == expected.map { Array($0.utf8) }, "\(bytes)")
      if expected == nil { refused += 1 } else { accepted += 1 }
    }
    // Both outcomes were tried many times.
    #expect(accepted > 1_000 && refused > 1_000)
  }
}
