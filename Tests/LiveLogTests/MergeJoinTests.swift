import TestSupport
import Testing

@testable import LiveLog

/// A merge joins a posting list's small parts by their bytes (`SegmentMerger.Pending`): the joined
/// part must read as the parts' rows and positions one after another, against an oracle that
/// keeps them as numbers; damaged parts must be refused.
@Suite struct MergeJoinTests {
  /// A part as a segment stores it: rows stepping from `segment`, each row's positions.
  struct HandMade {
    var segment: Row
    var rows: [Row]
    var positions: [[UInt32]]

    func bytes() -> (rows: [UInt8], positions: [UInt8]) {
      var rowBytes: [UInt8] = []
      var previous = segment
      for row in rows {
        PageBytes.appendVarint(UInt64(row - previous), to: &rowBytes)
        previous = row
      }
      var positionBytes = [UInt8](repeating: 0, count: positions.joined().count * 6)
      var end = 0
      positionBytes.withUnsafeMutableBufferPointer { out in
        for list in positions {
          end = list.withUnsafeBufferPointer { PostingPage.writePositions($0, to: out, at: end) }
        }
      }
      return (rowBytes, Array(positionBytes[..<end]))
    }
  }

  static let key: [UInt8] = [1, 2, 3, 4]

  /// Joins `parts` (rows counted as `rowCounts` say, when given) into one pending part of the
  /// segment starting at `start`.
  static func join(_ parts: [HandMade], start: Row, rowCounts: [Int]? = nil, positionBytes: [[UInt8]]? = nil)
    throws -> SegmentMerger.Pending
  {
    var pending = SegmentMerger.Pending()
    pending.key = key
    for (index, part) in parts.enumerated() {
      let (rows, positions) = part.bytes()
      let stored = positionBytes?[index] ?? positions
      try key.withUnsafeBytes { key in
        try rows.withUnsafeBytes { rows in
          try stored.withUnsafeBytes { positions in
            let entry = PostingPage.Entry(
              key: key, rowCount: rowCounts?[index] ?? part.rows.count, rows: rows, positions: positions)
            try pending.join(
              SegmentMerger.Part(key: key, segment: part.segment, entry: entry), start: start,
              positional: true)
          }
        }
      }
    }
    return pending
  }

  @Test func joinedPartsReadAsTheirRowsAndPositions() throws {
    var random = SplitMix64(seed: 21)
    for round in 0..<300 {
      // Up to four segments in a row, each giving a part of a few rows.
      var segment = Row(1 + random.next() % 1_000_000)
      let start = segment
      var parts: [HandMade] = []
      for _ in 0..<(1 + Int(random.next() % 4)) {
        let size = Row(1 + random.next() % 40_000)
        let rows = Set(
          (0..<(1 + Int(random.next() % 6))).map { _ in segment + Row(random.next() % UInt64(size)) }
        )
        .sorted()
        let positions = rows.map { _ in
          Set((0..<(1 + Int(random.next() % 3))).map { _ in UInt32(random.next() % 5_000) }).sorted()
        }
        parts.append(HandMade(segment: segment, rows: rows, positions: positions))
        segment += size
      }
      var pending = try Self.join(parts, start: start)
      var writer = PostingPageWriter(segment: start, kind: .trigram)
      pending.flush(into: &writer)
      writer.flush()
      let pages = writer.takePages()
      #expect(pages.count == 1, "round \(round)")
      let read = try pages[0].value.withUnsafeBytes { bytes in
        try PostingPage.decode(
          try PostingPage.View(bytes, positional: true).entry(0), segment: start, positional: true)
      }
      let expected = parts.flatMap { part in zip(part.rows, part.positions).map { ($0, $1) } }
      #expect(read.map(\.0) == expected.map(\.0), "round \(round)")
      #expect(read.map(\.1) == expected.map(\.1), "round \(round)")
      #expect(pending.isEmpty)
    }
  }

  @Test func damagedPartsAreRefused() throws {
    let first = HandMade(segment: 100, rows: [105, 120], positions: [[3], [0, 9]])
    let second = HandMade(segment: 200, rows: [200, 230], positions: [[1], [2]])
    #expect(throws: Never.self) { try Self.join([first, second], start: 100) }
    // A part that says it holds more rows than its bytes do.
    #expect(throws: PageDamage.self) { try Self.join([first, second], start: 100, rowCounts: [3, 2]) }
    // A part starting before the rows joined ahead of it (its segment misstated).
    #expect(throws: PageDamage.self) {
      try Self.join([first, HandMade(segment: 100, rows: [110], positions: [[1]])], start: 100)
    }
    // A part starting before the merged segment.
    #expect(throws: PageDamage.self) { try Self.join([first], start: 106) }
    // Positions for one row too few, or ending inside a row.
    #expect(throws: PageDamage.self) {
      try Self.join([first, second], start: 100, positionBytes: [[3], second.bytes().positions])
    }
    #expect(throws: PageDamage.self) {
      try Self.join(
        [first, second], start: 100,
        positionBytes: [first.bytes().positions + [0x81], second.bytes().positions])
    }
    // A step of zero: a row repeated.
    var repeated = first
    repeated.rows = [105, 105]
    #expect(throws: PageDamage.self) { try Self.join([repeated], start: 100) }
  }
}
