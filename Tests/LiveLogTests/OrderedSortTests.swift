import Testing

@testable import LiveLog

/// `SegmentBuilder.sortedByKey`, which lays out an ordered field's pages, against a sort by
/// (flag, high, low, row) written here: keys that differ in a byte or two, in many bytes, in the
/// flag alone, in the low word alone, with repeated keys (whose rows must stay ascending), and
/// with rows out of order or keys too wide to pack (the standard library's way).
@Suite struct OrderedSortTests {
  typealias Entry = (OrderedKey, Row, Int64)

  /// The expected order, compared field by field.
  static func expected(_ entries: [Entry]) -> [Entry] {
    entries.sorted { a, b in
      if a.0.flag != b.0.flag { return a.0.flag < b.0.flag }
      if a.0.high != b.0.high { return a.0.high < b.0.high }
      if a.0.low != b.0.low { return a.0.low < b.0.low }
      return a.1 < b.1
    }
  }

  /// Keys of one shape: `varying` masks the bits of `high` and `low` drawn at random, `flags` the
  /// flags drawn from; `distinct` bounds how many different draws there are (repeats).
  static func entries(
    count: Int, highBits: UInt64, lowBits: UInt32, flags: [UInt8], distinct: Int, ascending: Bool,
    _ random: inout SplitMix64
  ) -> [Entry] {
    let base: UInt64 = 1 << 63 | 0x0000_1234_0000_0000
    let pool: [OrderedKey] = (0..<max(min(distinct, 2 * count), 1)).map { _ in
      OrderedKey(
        flag: flags[Int(random.next() % UInt64(flags.count))],
        high: base & ~highBits | random.next() & highBits,
        low: 7 & ~lowBits | UInt32(truncatingIfNeeded: random.next()) & lowBits)
    }
    var rows: [Row] = []
    var row = Row(random.next() % 100)
    for _ in 0..<count {
      rows.append(row)
      row += 1 + Row(random.next() % 3)
    }
    if !ascending { rows.shuffle(using: &random) }
    return rows.map { row in
      (pool[Int(random.next() % UInt64(pool.count))], row, Int64(bitPattern: random.next()))
    }
  }

  static func same(_ a: [Entry], _ b: [Entry]) -> Bool {
    a.count == b.count && zip(a, b).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 && $0.2 == $1.2 }
  }

  @Test func sortsAsTheKeysAndRowsOrderThem() {
    var random = SplitMix64(seed: 41)
    let shapes: [(high: UInt64, low: UInt32, flags: [UInt8])] = [
      (0, 0, [1]),  // every key equal: rows alone order them
      (0xFF, 0, [1]),  // one byte
      (0x3_FFFF, 0, [0, 1]),  // star counts, some nil
      (0xFFFF_FFFF, 0xFFFF_FFFF, [1]),  // dates with nanoseconds: 8 bytes, too wide beside places
      (0x00FF_FFFF_FFFF_FFFF, 0, [1]),  // 7 bytes: 256 places fill the word, 257 do not
      (0xFF00_0000_0000, 0, [1, 2]),  // a high byte alone, NaNs
      (0, 0xFF_0000, [1]),  // the low word alone
      (0, 0, [0, 1, 2]),  // the flag alone
      (0x7FFF_FFFF_FFFF_FFFF, 0xFFFF_FFFF, [0, 1, 2]),  // too wide to pack
    ]
    for shape in shapes {
      for count in [0, 1, 2, 3, 17, 256, 257, 5_000] {
        for distinct in [1, 3, 1_000_000] {
          for ascending in [true, false] {
            let entries = Self.entries(
              count: count, highBits: shape.high, lowBits: shape.low, flags: shape.flags, distinct: distinct,
              ascending: ascending, &random)
            let sorted = SegmentBuilder.sortedByKey(entries)
            #expect(
              Self.same(sorted, Self.expected(entries)),
              "high bits \(shape.high), low bits \(shape.low), flags \(shape.flags), \(count) entries, \(distinct) keys, ascending \(ascending)"
            )
          }
        }
      }
    }
  }
}
