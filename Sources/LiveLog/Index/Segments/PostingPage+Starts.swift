/// The reads that turn trigram lists into pattern starts (`IndexReader.rows(containing:…)`): the
/// whole list, the rows of a caller's members merged or asked, and the read of an anchored
/// pattern (`BEGINSWITH`), which looks at each row's first position only.
extension PostingPage {
  /// Reads `row`'s positions and appends its starts, as
  /// `appendStarts(of:segment:offset:anchored:to:)` describes them.
  @inline(__always)
  private static func appendStarts(
    ofRow row: Row, positions: inout PageReader, offset: UInt32, anchored: Bool, to starts: inout [UInt64]
  ) throws {
    let high = UInt64(row) << 32
    try readPositions(&positions) { p in
      if anchored {
        if p == offset { starts.append(high) }
      } else if p >= offset {
        starts.append(high | UInt64(p - offset))
      }
    }
  }

  // The four readers of an entry are kept out of line: inlined into the loop over a list's
  // parts (`IndexReader.rows(containing:field:anchored:within:)`), their row decoding was
  // not, and a common pattern at 1M records took about 7% longer ('learning': 4.0 → 4.3 ms).

  /// Appends, for each occurrence of the entry's trigram at a position `p ≥ offset` (only at
  /// `p == offset` when `anchored`), `row << 32 | (p - offset)`: the places a pattern starts at if
  /// this trigram is its `offset`-th. Ascending, since rows and their positions are.
  @inline(never)
  static func appendStarts(
    of entry: Entry, segment: Row, offset: UInt32, anchored: Bool, to starts: inout [UInt64]
  ) throws {
    var rows = RowReader(entry, segment: segment)
    var positions = PageReader(entry.positions, at: 0)
    for _ in 0..<entry.rowCount {
      try appendStarts(
        ofRow: try rows.next(), positions: &positions, offset: offset, anchored: anchored, to: &starts)
    }
    guard rows.isAtEnd, positions.isAtEnd else {
      throw PageDamage("a posting list has bytes after its last row")
    }
  }

  /// `appendStarts` for the rows of `members` (ascending) alone: the positions of other rows are
  /// stepped over, not turned into starts. `next` is the first member not yet passed; the entries
  /// of one list come in row order, so it carries from one entry to the next, and the entry is
  /// left unread past the last member.
  @inline(never)
  static func appendStarts(
    of entry: Entry, segment: Row, offset: UInt32, anchored: Bool, members: [Row], next: inout Int,
    to starts: inout [UInt64]
  ) throws {
    var rows = RowReader(entry, segment: segment)
    var positions = PageReader(entry.positions, at: 0)
    var left = entry.rowCount
    while left > 0 {
      guard next < members.count else { return }
      let wanted = members[next]
      // The rows short of the next member, most of a list far longer than the members, are
      // passed in the rows first (eight at a time while their steps are one byte) and then in
      // the positions, each stream at its own pace: passed in step, a row holding the trigram
      // twice stopped the rows' eight-at-a-time pass as well.
      var passed = 0
      var reached: Row?
      passing: while true {
        while left - passed >= 8, let end = rows.endOfSmallSteps(inWords: 1), end < UInt64(wanted) {
          rows.skip(8, to: end)
          passed += 8
        }
        // An entry's first row is no step, so no eight begins with it: eights are tried again
        // after it.
        let isFirstRow = rows.isFirst
        while passed < left {
          let row = try rows.next()
          if row >= wanted {
            reached = row
            break passing
          }
          passed += 1
          if isFirstRow { continue passing }
        }
        break
      }
      try positions.skipRowsOfPositions(passed)
      left -= passed
      guard let row = reached else { break }
      left -= 1
      while next < members.count && members[next] < row { next += 1 }
      guard next < members.count && members[next] == row else {
        try positions.skipRowsOfPositions(1)
        continue
      }
      next += 1
      try appendStarts(ofRow: row, positions: &positions, offset: offset, anchored: anchored, to: &starts)
    }
    guard rows.isAtEnd, positions.isAtEnd else {
      throw PageDamage("a posting list has bytes after its last row")
    }
  }

  /// `appendStarts` for the rows `members` holds alone, asked one row at a time: for members
  /// about as dense as the list's rows (a language's rows among a common trigram's), where the
  /// merge of `appendStarts(…members:next:…)` finds the next member a few rows ahead at nearly
  /// every row and cannot step over eight. Rows of one-byte steps before the next member are
  /// stepped over up to eight at once, and their positions by counting their ends.
  @inline(never)
  static func appendStarts(
    of entry: Entry, segment: Row, offset: UInt32, anchored: Bool, members: RowMembership,
    to starts: inout [UInt64]
  ) throws {
    // As the merge does, the entry is left unread past the last member.
    guard let last = members.last else { return }
    var rows = RowReader(entry, segment: segment)
    var positions = PageReader(entry.positions, at: 0)
    var left = entry.rowCount
    while left > 0 {
      if left >= 8 {
        let (count, end) = rows.smallStepsBefore(members)
        if count > 0 {
          rows.skip(count, to: end)
          try positions.skipRowsOfPositions(count)
          left -= count
          continue
        }
      }
      let row = try rows.next()
      left -= 1
      if row > last { return }
      guard members.contains(row) else {
        try positions.skipRowsOfPositions(1)
        continue
      }
      try appendStarts(ofRow: row, positions: &positions, offset: offset, anchored: anchored, to: &starts)
    }
    guard rows.isAtEnd, positions.isAtEnd else {
      throw PageDamage("a posting list has bytes after its last row")
    }
  }

  /// `appendStarts(of:segment:offset:anchored: true, to:)` for an `offset` under 64 (the starts
  /// of a `BEGINSWITH`: `row << 32` for each row holding the trigram at `offset`), looking at
  /// each row's first position only, eight bytes at a time. A row holds the trigram there when
  /// its positions' first byte, but for bit 7, is `offset` (a number complete in one byte, the
  /// row's last or not), or, rarely, when that first number is smaller and the row goes on, or
  /// is longer than a byte with its lowest bits at most `offset`: its positions are then read.
  /// Every byte is checked for a number going on past its row's end, and the positions read for
  /// repeats, as the general read does; other damage in the positions of rows not read goes
  /// unreported, as in the reads that step over rows. The general read decoded every position
  /// of every row, most of a `BEGINSWITH`'s time (`name BEGINSWITH[c] 'react'` at 1M reads
  /// lists of 20,119 and 32,518 rows: 470 µs that way, 205–225 µs this way, on one machine).
  @inline(never)
  static func appendAnchoredStarts(of entry: Entry, segment: Row, offset: UInt32, to starts: inout [UInt64])
    throws
  {
    precondition(offset < 64, "an anchored read looks for a first position under 64")
    // The rows at once (most steps of a list this long are one byte, read eight from a word), then
    // those found picked out: finding them one by one read nearly every row alone anyway.
    var rows: [Row] = []
    try appendRows(of: entry, segment: segment, to: &rows)
    func take(_ index: Int) throws {
      guard index < rows.count else { throw PageDamage("a posting list's positions outnumber its rows") }
      starts.append(UInt64(rows[index]) << 32)
    }
    let bytes = entry.positions
    // Whether the row whose positions start at byte `at` holds `offset`, read number by number:
    // for a first number that is smaller, or longer than one byte. With `readPositions` and its
    // closure here instead, the whole read took a tenth longer (`'react'` at 1M: 206 → 227 µs).
    func holdsOffset(from at: Int) throws -> Bool {
      var reader = PageReader(bytes, at: at)
      var position: UInt64 = 0
      var isFirst = true
      while true {
        let (number, endsRow) = try reader.positionNumber()
        guard isFirst || number > 0 else { throw PageDamage("a posting repeats a position") }
        isFirst = false
        position += number
        if position >= UInt64(offset) { return position == UInt64(offset) }
        if endsRow { return false }
      }
    }
    let ones: UInt64 = 0x0101_0101_0101_0101
    let high = ones << 7
    let low = ~high
    let lowSix = ones &* 0x3F
    let wanted = UInt64(offset) &* ones
    var at = 0
    // Rows whose positions end before `at`, and whether the byte at `at` is a row's first.
    var ended = 0
    var isHead = true
    while bytes.count - at >= 8 {
      let word = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: at, as: UInt64.self))
      // Bit 7 of each byte whose bit 6 is set: a number that goes on.
      let goesOn = word << 1 & high
      // Damage the general read refuses: a number that goes on past its row's end.
      guard goesOn & ~word == 0 else { throw PageDamage("a position goes on past its row's end") }
      // Bit 7 of each byte that ends a row; of each byte that begins one.
      let ends = ~word & high
      let heads = ends << 8 | (isHead ? 0x80 : 0)
      // Bit 7 of each byte whose low seven bits are the offset (a zero byte of the difference).
      let seven = word & low
      let difference = seven ^ wanted
      let equal = ~(((difference & low) &+ low) | difference) & high
      let found = equal & heads
      // Heads read number by number (each byte is at least 0x80 before a subtraction, so none
      // borrows from the next): a first number complete and below the offset, in a row that
      // goes on; a first number of more bytes whose lowest six bits are at most the offset
      // (written shortest, it is 64 or more; read whole, a damaged page reads as the general
      // read reads it).
      let below = ~((seven | high) &- wanted) & high & heads & word
      let longAndLow = ~((word & lowSix | high) &- (wanted &+ ones)) & high & heads & goesOn
      var candidates = found | below | longAndLow
      while candidates != 0 {
        let bit = candidates & (0 &- candidates)
        let index = ended + Int(truncatingIfNeeded: (((ends & (bit &- 1)) >> 7) &* ones) >> 56)
        if found & bit != 0 {
          try take(index)
        } else if try holdsOffset(from: at + bit.trailingZeroBitCount / 8) {
          try take(index)
        }
        candidates &= candidates &- 1
      }
      ended += Int(truncatingIfNeeded: ((ends >> 7) &* ones) >> 56)
      isHead = ends >> 63 != 0
      at += 8
    }
    while at < bytes.count {
      let byte = bytes[at]
      guard byte & 0xC0 != 0x40 else { throw PageDamage("a position goes on past its row's end") }
      if isHead {
        let lowest = UInt32(byte & 0x3F)
        if UInt32(byte & 0x7F) == offset {
          try take(ended)
        } else if (byte & 0xC0 == 0x80 && lowest < offset) || (byte & 0x40 != 0 && lowest <= offset),
          try holdsOffset(from: at)
        {
          try take(ended)
        }
      }
      isHead = byte & 0x80 == 0
      if isHead { ended += 1 }
      at += 1
    }
    guard isHead else { throw PageDamage("a posting list's positions end inside a row") }
    guard ended == entry.rowCount else {
      throw PageDamage("a posting list holds positions for \(ended) rows and \(entry.rowCount) rows")
    }
  }
}
