/// One page of posting lists — trigram or term entries — as the value of an `indexes` key.
///
/// ```
/// count     UInt16 LE: entries in the page
/// offsets   UInt16 LE each: where each entry starts, from the start of the value
/// entries   in key order:
///   key length varint, key
///   row count varint, rows length varint, [positions length varint: trigram pages]
///   rows      varint(first row - segment start), then varint(row - previous row) each
///   positions per row: the first, then each later one as (position - previous), each number
///             in 6-bit groups, lowest first; a byte's bit 6 says the number goes on in the next
///             byte, its bit 7 that the row's positions do; so a row's last byte alone has bit 7
///             clear, and a row of one position under 64 is one byte under 64
/// ```
///
/// Rows' positions end where a byte has bit 7 clear, so that the positions of the rows a read
/// steps over (most rows, when another list's rows or starts are far fewer) are passed by
/// counting those bytes, eight from one word, whatever each row holds; a varint per position
/// with a count per row had to be parsed row by row wherever a row held its trigram twice (one
/// row in 16 of a common trigram's, in `full_name`).
///
/// A list is one entry, or several consecutive entries of the same key — its parts, in row
/// order — which may run from the end of one page into the following ones: a merge of segments
/// joins two lists by copying their parts (only the first row of the second's parts is written
/// again, against the new segment's start), and a list too long for a page is split into parts.
/// A lookup finds the first part by binary search (the offsets reach any entry at once) in the
/// page before the first page whose key passes the key, then reads on while the key holds.
enum PostingPage {
  /// Bytes a page holds before a new one starts: one LMDB overflow page (4,096 bytes less its
  /// 16-byte header), so a page costs exactly one page of the data file.
  static let capacity = 4_080

  /// One list, or one page's part of a long list.
  struct Entry {
    var key: UnsafeRawBufferPointer
    var rowCount: Int
    var rows: UnsafeRawBufferPointer
    var positions: UnsafeRawBufferPointer
  }

  /// A stored page, read in place.
  struct View {
    let bytes: UnsafeRawBufferPointer
    let positional: Bool
    let count: Int

    init(_ bytes: UnsafeRawBufferPointer, positional: Bool) throws {
      guard bytes.count >= 2 else { throw PageDamage("a posting page of \(bytes.count) bytes") }
      let count = Int(bytes[0]) | Int(bytes[1]) << 8
      guard count >= 1, 2 + 2 * count <= bytes.count else {
        throw PageDamage("a posting page of \(bytes.count) bytes claims \(count) entries")
      }
      self.bytes = bytes
      self.positional = positional
      self.count = count
    }

    private func offset(_ index: Int) -> Int {
      Int(bytes[2 + 2 * index]) | Int(bytes[3 + 2 * index]) << 8
    }

    /// The key of entry `index`.
    func key(_ index: Int) throws -> UnsafeRawBufferPointer {
      var reader = PageReader(bytes, at: offset(index))
      let length = try reader.count()
      return try reader.take(length)
    }

    func entry(_ index: Int) throws -> Entry {
      var reader = PageReader(bytes, at: offset(index))
      let key = try reader.take(try reader.count())
      let rowCount = try reader.count()
      let rowsLength = try reader.count()
      let positionsLength = positional ? try reader.count() : 0
      let rows = try reader.take(rowsLength)
      let positions = try reader.take(positionsLength)
      guard rowCount >= 1 else { throw PageDamage("an entry of a posting page holds no row") }
      return Entry(key: key, rowCount: rowCount, rows: rows, positions: positions)
    }

    /// The first entry whose key is at least `key`, found by binary search (`count` when none).
    func lowerBound(_ key: UnsafeRawBufferPointer) throws -> Int {
      var low = 0
      var high = count
      while low < high {
        let middle = (low + high) / 2
        if ByteOrder.compare(try self.key(middle), key) < 0 { low = middle + 1 } else { high = middle }
      }
      return low
    }
  }

  /// Appends the rows of `entry` to `rows`.
  static func appendRows(of entry: Entry, segment: Row, to rows: inout [Row]) throws {
    var reader = RowReader(entry, segment: segment)
    // Grown once, then written in place: appending row by row checks capacity and uniqueness
    // each time, which costs as much as decoding the row. (`rowCount` is at most the page's
    // size, so a damaged count cannot ask for much.)
    let start = rows.count
    rows.append(contentsOf: repeatElement(0, count: entry.rowCount))
    try rows.withUnsafeMutableBufferPointer { buffer in
      var index = start
      while index < buffer.count {
        // A common value's list is mostly one-byte steps, read up to eight from one word; the
        // step that ends a shorter run is longer (or damage), and read on its own.
        let count = reader.readSmallSteps(into: buffer, at: index)
        index += count
        if count < 8 && index < buffer.count {
          buffer[index] = try reader.next()
          index += 1
        }
      }
    }
    guard reader.isAtEnd else { throw PageDamage("a posting list has bytes after its last row") }
  }

  /// Appends the rows of `entry` that are also in `members` (ascending). `next` is the first
  /// member not yet passed; the entries of one list come in row order, so it carries from one
  /// entry to the next, and the entry is left unread past the last member.
  static func appendRows(
    of entry: Entry, segment: Row, members: ArraySlice<Row>, next: inout Int, to rows: inout [Row]
  ) throws {
    var reader = RowReader(entry, segment: segment)
    var left = entry.rowCount
    // Off once the next member lies within eight steps, until it is passed: looking again
    // before then costs more than it saves.
    var tryEight = true
    while left > 0 {
      guard next < members.endIndex else { return }
      if tryEight && left >= 8, let end = reader.endOfSmallSteps(inWords: 1) {
        let wanted = UInt64(members[next])
        guard end < wanted else {
          tryEight = false
          continue
        }
        // Members far apart (a few hundred in a list of a sixth of the rows): 32 steps at a
        // time while the eight just passed say 32 more fall short of the member. Asked of
        // members a few rows apart, the wider look would mostly fail, a cost per member.
        let start = reader.current
        reader.skip(8, to: end)
        left -= 8
        if wanted - end > 4 * (end - start) {
          while left >= 32, let wide = reader.endOfSmallSteps(inWords: 4), wide < wanted {
            reader.skip(32, to: wide)
            left -= 32
          }
        }
        continue
      }
      let row = try reader.next()
      left -= 1
      if members[next] < row { tryEight = true }
      while next < members.endIndex && members[next] < row { next += 1 }
      if next < members.endIndex && members[next] == row {
        rows.append(row)
        next += 1
        tryEight = true
      }
    }
    guard reader.isAtEnd else { throw PageDamage("a posting list has bytes after its last row") }
  }

  /// The rows of a list, one by one: the first as a step from the segment's start, each later
  /// one as a positive step from the one before.
  struct RowReader {
    private var reader: PageReader
    private var row: UInt64
    /// Whether no row has been read yet: the first is a distance from the segment's start, not a
    /// step.
    private(set) var isFirst = true

    init(_ entry: Entry, segment: Row) {
      reader = PageReader(entry.rows, at: 0)
      row = UInt64(segment)
    }

    var isAtEnd: Bool { reader.isAtEnd }
    /// The row last read (the segment's start before the first).
    var current: UInt64 { row }

    mutating func next() throws -> Row {
      let step = try reader.varint()
      guard isFirst || step > 0 else { throw PageDamage("a posting list repeats a row") }
      isFirst = false
      row += step
      guard row <= UInt64(Row.max) else { throw PageDamage("a posting row past 2^32") }
      return Row(row)
    }

    /// The row `8 * words` steps on when each of them is one byte, without reading them; nil
    /// when any is not (or this is the first row). A list of a common value (a language a sixth
    /// of the rows have) is almost all one-byte steps, and summing eight of them in a word costs
    /// what decoding one does.
    @inline(__always)
    func endOfSmallSteps(inWords words: Int) -> UInt64? {
      guard !isFirst, let sum = reader.sumOfSmallNumbers(inWords: words) else { return nil }
      return row + sum
    }

    /// How many of the next eight rows, from the first, come before the first one in `members`
    /// (or past 2^32, which `next()` reports) when each of the eight steps is one byte, and the
    /// row the last of them reaches, without reading them; `(0, current row)` when a step is
    /// not one byte, fewer than eight bytes are left, or this is the first row. Asking each
    /// row's bit costs less than merging with members about as dense as the list.
    func smallStepsBefore(_ members: RowMembership) -> (count: Int, end: UInt64) {
      guard !isFirst, var steps = reader.eightSmallNumbers() else { return (0, row) }
      var end = row
      for count in 0..<8 {
        let next = end + (steps & 0xFF)
        // A row past 2^32 is left to `next()`, which reports it.
        guard next <= UInt64(Row.max), !members.contains(Row(truncatingIfNeeded: next)) else {
          return (count, end)
        }
        end = next
        steps >>= 8
      }
      return (8, end)
    }

    /// Reads the next rows whose steps are one byte, up to eight and up to the buffer's end, into
    /// `buffer` from `index`; returns how many: 0 when the next step is not a number from 1 to
    /// 127 (a longer one, or a zero, which `next()` refuses), a row would pass 2^32 (which
    /// `next()` reports), fewer than eight bytes are left, or this is the first row (absolute,
    /// not a step). Rows past the buffer's end are never written, even when a damaged entry
    /// holds more steps than its count.
    mutating func readSmallSteps(into buffer: UnsafeMutableBufferPointer<Row>, at index: Int) -> Int {
      guard !isFirst else { return 0 }
      var (steps, count) = reader.leadingSmallNumbers()
      count = min(count, buffer.count - index)
      var next = row
      for offset in 0..<count {
        next += steps & 0xFF
        steps >>= 8
        buffer[index + offset] = Row(truncatingIfNeeded: next)
      }
      // A row past 2^32 is left to `next()`, which reports it.
      guard next <= UInt64(Row.max) else { return 0 }
      reader.skip(count)
      row = next
      return count
    }

    /// Steps over the next `count` rows, whose steps one of the looks ahead above summed (or
    /// counted) to reach `end`.
    mutating func skip(_ count: Int, to end: UInt64) {
      reader.skip(count)
      row = end
    }
  }

  /// Reads one row's positions (ascending, at least one; the layout `writePositions` writes)
  /// and calls `body` with each.
  static func readPositions(_ reader: inout PageReader, _ body: (UInt32) throws -> Void) throws {
    var position: UInt64 = 0
    var isFirst = true
    while true {
      let (number, endsRow) = try reader.positionNumber()
      guard isFirst || number > 0 else { throw PageDamage("a posting repeats a position") }
      isFirst = false
      position += number
      guard position <= UInt64(UInt32.max) else { throw PageDamage("a trigram position past 2^32") }
      try body(UInt32(position))
      if endsRow { return }
    }
  }

  /// Appends every row of the entry to `rows` and, for trigram pages, its positions to
  /// `positions` with `bounds` marking where each row's end (`bounds` starts with a 0).
  static func decode(
    _ entry: Entry, segment: Row, positional: Bool, rows: inout [Row], bounds: inout [Int],
    positions: inout [UInt32]
  ) throws {
    let first = rows.count
    try appendRows(of: entry, segment: segment, to: &rows)
    guard positional else { return }
    var reader = PageReader(entry.positions, at: 0)
    for _ in first..<rows.count {
      try readPositions(&reader) { positions.append($0) }
      bounds.append(positions.count)
    }
    guard reader.isAtEnd else { throw PageDamage("a posting list has bytes after its last position") }
  }

  /// Every row of the entry with its positions (empty for term pages): for digests and checks.
  static func decode(_ entry: Entry, segment: Row, positional: Bool) throws -> [(Row, [UInt32])] {
    var rows: [Row] = []
    var bounds: [Int] = [0]
    var positions: [UInt32] = []
    try decode(
      entry, segment: segment, positional: positional, rows: &rows, bounds: &bounds, positions: &positions)
    guard positional else { return rows.map { ($0, []) } }
    return rows.indices.map { (rows[$0], Array(positions[bounds[$0]..<bounds[$0 + 1]])) }
  }

  /// Writes one row's positions (ascending, at least one) into `out` at `at`, which has room
  /// for six bytes a position (`maximumBytesPerPosition`); returns where they end.
  @inline(__always)
  static func writePositions(
    _ positions: UnsafeBufferPointer<UInt32>, to out: UnsafeMutableBufferPointer<UInt8>, at: Int
  )
    -> Int
  {
    var at = at
    var previous: UInt32 = 0
    for index in positions.indices {
      var number = positions[index] - previous
      previous = positions[index]
      let rowGoesOn: UInt8 = index + 1 < positions.endIndex ? 0x80 : 0
      while number >= 0x40 {
        out[at] = UInt8(truncatingIfNeeded: number & 0x3F) | 0xC0
        number >>= 6
        at += 1
      }
      out[at] = UInt8(truncatingIfNeeded: number) | rowGoesOn
      at += 1
    }
    return at
  }

  /// The most bytes `writePositions` takes for one position: 32 bits in 6-bit groups.
  static let maximumBytesPerPosition = 6
}

/// Why an index page could not be read; the reader turns it into `StoreError.corruptState`
/// naming the collection and the page.
struct PageDamage: Error, CustomStringConvertible {
  var description: String
  init(_ description: String) { self.description = description }
}

/// Reads the varints and runs of an index page, never past its end.
struct PageReader {
  let bytes: UnsafeRawBufferPointer
  private(set) var offset: Int

  init(_ bytes: UnsafeRawBufferPointer, at offset: Int) {
    self.bytes = bytes
    self.offset = offset
  }

  var isAtEnd: Bool { offset == bytes.count }

  @inline(__always)
  mutating func varint() throws -> UInt64 {
    guard offset < bytes.count else { throw PageDamage("a page ends inside a number") }
    let first = bytes[offset]
    offset += 1
    if first < 0x80 { return UInt64(first) }
    var result = UInt64(first & 0x7F)
    var shift: UInt64 = 7
    while true {
      guard offset < bytes.count, shift <= 63 else { throw PageDamage("a page holds a malformed number") }
      let byte = bytes[offset]
      offset += 1
      result |= UInt64(byte & 0x7F) << shift
      if byte < 0x80 { return result }
      shift += 7
    }
  }

  /// The sum of the next `8 * words` varints (at most 64 words) when each is one byte from 1
  /// to 127, without reading them; nil when any is not or fewer bytes are left. A list of a
  /// common value read among a few hundred members steps over hundreds of rows between two.
  @inline(__always)
  func sumOfSmallNumbers(inWords words: Int) -> UInt64? {
    assert(words <= 64, "the lanes would carry")
    guard bytes.count - offset >= 8 * words else { return nil }
    var flags: UInt64 = 0
    // Each word's bytes summed in pairs into 16-bit lanes: at most 254 a word, 16,256 in 64.
    var lanes: UInt64 = 0
    let mask: UInt64 = 0x00FF_00FF_00FF_00FF
    for index in 0..<words {
      let word = UInt64(
        littleEndian: bytes.loadUnaligned(fromByteOffset: offset + 8 * index, as: UInt64.self))
      flags |= Self.notSmall(word)
      lanes &+= (word & mask) &+ ((word >> 8) & mask)
    }
    guard flags == 0 else { return nil }
    // The lanes summed into the top one (at most 65,024: nothing carries).
    return (lanes &* 0x0001_0001_0001_0001) >> 48
  }

  /// The next eight bytes, the first in the low byte, when each is a varint from 1 to 127,
  /// without reading them; nil when any is not (a zero, a longer number) or fewer than eight
  /// bytes are left.
  @inline(__always)
  func eightSmallNumbers() -> UInt64? {
    guard bytes.count - offset >= 8 else { return nil }
    let word = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    return Self.notSmall(word) == 0 ? word : nil
  }

  /// The next eight bytes, the first in the low byte, and how many of them, from the first, are
  /// varints from 1 to 127; `(0, 0)` when fewer than eight bytes are left.
  @inline(__always)
  func leadingSmallNumbers() -> (word: UInt64, count: Int) {
    guard bytes.count - offset >= 8 else { return (0, 0) }
    let word = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    return (word, Self.notSmall(word).trailingZeroBitCount / 8)
  }

  /// The high bit of each byte of `word` that continues a number, and of each zero byte:
  /// subtracting one from a zero byte sets its high bit. A zero's borrow may flag bytes above it,
  /// never one below, so the lowest flag is the first byte that is not a number from 1 to 127.
  @inline(__always)
  private static func notSmall(_ word: UInt64) -> UInt64 {
    let ones: UInt64 = 0x0101_0101_0101_0101
    let highBits = ones << 7
    return (word & highBits) | ((word &- ones) & ~word & highBits)
  }

  /// One number of a row's positions (`PostingPage.writePositions`) and whether it is the row's
  /// last.
  @inline(__always)
  mutating func positionNumber() throws -> (value: UInt64, endsRow: Bool) {
    guard offset < bytes.count else { throw PageDamage("a page ends inside a row's positions") }
    var byte = bytes[offset]
    offset += 1
    var value = UInt64(byte & 0x3F)
    var shift: UInt64 = 6
    while byte & 0x40 != 0 {
      guard byte & 0x80 != 0 else { throw PageDamage("a position goes on past its row's end") }
      guard offset < bytes.count, shift < 36 else { throw PageDamage("a page holds a malformed position") }
      byte = bytes[offset]
      offset += 1
      value |= UInt64(byte & 0x3F) << shift
      shift += 6
    }
    return (value, byte & 0x80 == 0)
  }

  /// Steps over `count` rows' positions (`PostingPage.writePositions`): past the `count`-th byte
  /// from here whose bit 7 is clear, counted eight bytes at a time.
  @inline(__always)
  mutating func skipRowsOfPositions(_ count: Int) throws {
    var left = count
    while left > 0 && bytes.count - offset >= 8 {
      let word = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
      var ends = ~word & 0x8080_8080_8080_8080
      // Ones in the low bit of the bytes that end a row, summed into the top byte (at most 8):
      // a portable build has no popcount instruction, and its generic one costs more.
      let found = Int(truncatingIfNeeded: ((ends >> 7) &* 0x0101_0101_0101_0101) >> 56)
      if found < left {
        offset += 8
        left -= found
        continue
      }
      // The `left`-th end of this word: drop the ends before it.
      for _ in 1..<left { ends &= ends &- 1 }
      offset += ends.trailingZeroBitCount / 8 + 1
      return
    }
    while left > 0 {
      guard offset < bytes.count else { throw PageDamage("a page ends inside a row's positions") }
      if bytes[offset] & 0x80 == 0 { left -= 1 }
      offset += 1
    }
  }

  /// Moves past `count` bytes that one of the looks ahead above (`eightSmallNumbers`,
  /// `leadingSmallNumbers`, `sumOfSmallNumbers`) vouched for.
  mutating func skip(_ count: Int) {
    precondition(count <= bytes.count - offset)
    offset += count
  }

  /// A varint that counts bytes or items of the page, so at most its size.
  mutating func count() throws -> Int {
    let value = try varint()
    guard value <= UInt64(bytes.count) else { throw PageDamage("a page claims \(value) items") }
    return Int(value)
  }

  mutating func take(_ count: Int) throws -> UnsafeRawBufferPointer {
    guard count <= bytes.count - offset else { throw PageDamage("a page ends inside an entry") }
    defer { offset += count }
    return UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + count])
  }
}

/// Writes the primitives of index pages.
enum PageBytes {
  @inline(__always)
  static func appendVarint(_ value: UInt64, to bytes: inout [UInt8]) {
    var value = value
    while value >= 0x80 {
      bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
      value >>= 7
    }
    bytes.append(UInt8(value))
  }

  /// Writes `value` into `out` at `at`, which has room for it; returns where it ends.
  @inline(__always)
  static func putVarint(_ value: UInt64, into out: UnsafeMutableBufferPointer<UInt8>, at: Int) -> Int {
    var value = value
    var at = at
    while value >= 0x80 {
      out[at] = UInt8(truncatingIfNeeded: value) | 0x80
      value >>= 7
      at += 1
    }
    out[at] = UInt8(value)
    return at + 1
  }

  @inline(__always)
  static func varintSize(_ value: UInt64) -> Int {
    value == 0 ? 1 : (64 - value.leadingZeroBitCount + 6) / 7
  }
}
