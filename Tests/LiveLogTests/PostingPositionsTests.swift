import TestSupport
import Testing

@testable import LiveLog

/// A row's trigram positions as a posting page stores them (`PostingPage.writePositions`): each
/// number (the first position, then the gaps) in 6-bit groups with bit 6 saying the number goes
/// on and bit 7 that the row does. Checked against a decoder of that layout written here from its
/// description alone, and the skip over many rows (`PageReader.skipRowsOfPositions`), which counts
/// row ends eight bytes at a time, against the lengths of rows written one by one.
@Suite struct PostingPositionsTests {
  /// Positions of one row: mostly a few small ones, sometimes far into the text or up to 2^32.
  private func randomPositions(_ random: inout SplitMix64) -> [UInt32] {
    let count = random.next() % 4 == 0 ? 1 + Int(random.next() % 9) : 1
    var positions: Set<UInt32> = []
    while positions.count < count {
      switch random.next() % 8 {
      case 0: positions.insert(UInt32(truncatingIfNeeded: random.next()))
      case 1: positions.insert(UInt32(random.next() % 5_000))
      case 2: positions.insert([0, 63, 64, 4_095, 4_096, UInt32.max][Int(random.next() % 6)])
      default: positions.insert(UInt32(random.next() % 64))
      }
    }
    return positions.sorted()
  }

  /// The row's bytes, written into a buffer of the room the writer asks for (and a sentinel
  /// past it, which must stay untouched).
  private func encoded(_ positions: [UInt32]) -> [UInt8] {
    let room = positions.count * PostingPage.maximumBytesPerPosition
    var out = [UInt8](repeating: 0xEE, count: room + 8)
    let end = positions.withUnsafeBufferPointer { source in
      out.withUnsafeMutableBufferPointer { PostingPage.writePositions(source, to: $0, at: 0) }
    }
    #expect(end <= room && out[room...].allSatisfy { $0 == 0xEE }, "\(positions) wrote past its room")
    return Array(out[..<end])
  }

  /// The layout's description, decoded byte by byte: the row's positions, or nil when the bytes
  /// end inside it.
  private func referenceDecode(_ bytes: [UInt8]) -> (positions: [UInt32], length: Int)? {
    var numbers: [UInt64] = []
    var value: UInt64 = 0
    var shift: UInt64 = 0
    for (index, byte) in bytes.enumerated() {
      value += UInt64(byte % 64) << shift
      shift += 6
      let numberGoesOn = (byte / 64) % 2 == 1
      let rowGoesOn = byte >= 128
      if !numberGoesOn {
        numbers.append(value)
        value = 0
        shift = 0
      }
      if !rowGoesOn {
        var position: UInt64 = 0
        return (
          numbers.map {
            position &+= $0
            return UInt32(truncatingIfNeeded: position)
          }, index + 1
        )
      }
    }
    return nil
  }

  @Test func positionsReadBackAsTheLayoutDescribesThem() throws {
    var random = SplitMix64(seed: 0x5053_4954_494F_4E53)
    for round in 0..<3_000 {
      let positions = randomPositions(&random)
      let bytes = encoded(positions)
      #expect(bytes.count <= positions.count * PostingPage.maximumBytesPerPosition)
      // Only the row's last byte has bit 7 clear; one position under 64 is one byte.
      #expect(bytes.indices.filter { bytes[$0] < 0x80 } == [bytes.count - 1], "round \(round): \(bytes)")
      if positions.count == 1 && positions[0] < 64 { #expect(bytes == [UInt8(positions[0])]) }
      let reference = try #require(referenceDecode(bytes))
      #expect(reference.positions == positions && reference.length == bytes.count, "round \(round)")
      var read: [UInt32] = []
      try bytes.withUnsafeBytes { raw in
        var reader = PageReader(raw, at: 0)
        try PostingPage.readPositions(&reader) { read.append($0) }
        #expect(reader.isAtEnd)
      }
      #expect(read == positions, "round \(round): \(bytes)")
    }
  }

  @Test func skippingRowsEndsWhereTheirBytesDo() throws {
    var random = SplitMix64(seed: 0x534B_4950)
    for round in 0..<300 {
      let rows = (0..<Int(random.next() % 120)).map { _ in randomPositions(&random) }
      var bytes: [UInt8] = []
      var ends = [0]
      for positions in rows {
        bytes += encoded(positions)
        ends.append(bytes.count)
      }
      let from = rows.isEmpty ? 0 : Int(random.next() % UInt64(rows.count))
      for count in 0...(rows.count - from) {
        try bytes.withUnsafeBytes { raw in
          var reader = PageReader(raw, at: ends[from])
          try reader.skipRowsOfPositions(count)
          #expect(reader.offset == ends[from + count], "round \(round): \(count) rows from row \(from)")
        }
      }
      // One row more than the bytes hold is refused.
      #expect(throws: PageDamage.self) {
        try bytes.withUnsafeBytes { raw in
          var reader = PageReader(raw, at: ends[from])
          try reader.skipRowsOfPositions(rows.count - from + 1)
        }
      }
    }
  }

  /// Any bytes: a read or a skip either succeeds, ending where the reference says the row ends,
  /// or refuses; it never traps or reads past the end.
  @Test func damagedPositionsAreRefusedOrReadAsTheLayoutSays() throws {
    var random = SplitMix64(seed: 0x44_414D_4147_45)
    var refused = 0
    for _ in 0..<5_000 {
      let bytes = (0..<Int(1 + random.next() % 12)).map { _ in
        [0x00, 0x3F, 0x40, 0x7F, 0x80, 0xBF, 0xC0, 0xFF, UInt8(truncatingIfNeeded: random.next())][
          Int(random.next() % 9)]
      }
      let reference = referenceDecode(bytes)
      try bytes.withUnsafeBytes { raw in
        var reader = PageReader(raw, at: 0)
        var read: [UInt32] = []
        do {
          try PostingPage.readPositions(&reader) { read.append($0) }
          let expected = try #require(reference, "\(bytes) read though it ends inside a row")
          #expect(read == expected.positions && reader.offset == expected.length, "\(bytes)")
        } catch is PageDamage {
          refused += 1
        }
        var skipper = PageReader(raw, at: 0)
        do {
          try skipper.skipRowsOfPositions(1)
          #expect(skipper.offset == reference?.length, "\(bytes)")
        } catch is PageDamage {
          #expect(reference == nil, "\(bytes)")
        }
      }
    }
    #expect(refused > 100)
    // A number that goes on past its row's end, a repeated position, a position past 2^32, a
    // number of more than six groups.
    for bytes: [UInt8] in [
      [0x45], [0x81, 0x00], [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x3F], [0xC0, 0xC0, 0xC0, 0xC0, 0xC0, 0xC0, 0x00],
    ] {
      #expect(throws: PageDamage.self, "\(bytes)") {
        try bytes.withUnsafeBytes { raw in
          var reader = PageReader(raw, at: 0)
          try PostingPage.readPositions(&reader) { _ in }
        }
      }
    }
  }
}
