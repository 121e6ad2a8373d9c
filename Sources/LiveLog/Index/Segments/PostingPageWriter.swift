/// A posting list to write: its rows, ascending, and for a trigram list each row's positions,
/// ascending (`positions[bounds[i] ..< bounds[i + 1]]` for `rows[i]`).
struct PostingListSource {
  var rows: UnsafeBufferPointer<Row>
  var bounds: UnsafeBufferPointer<Int>? = nil
  var positions: UnsafeBufferPointer<UInt32>? = nil

  func positions(of index: Int) -> UnsafeBufferPointer<UInt32>? {
    guard let bounds, let positions else { return nil }
    return UnsafeBufferPointer(rebasing: positions[bounds[index]..<bounds[index + 1]])
  }
}

/// Lays posting lists out in pages (`PostingPage`), in the order they are added, which must be
/// the order of their keys (and, for one key, of its rows).
struct PostingPageWriter {
  let segment: Row
  let kind: IndexKind
  private var positional: Bool { kind == .trigram }
  /// Pages made so far, in key order; `takePages()` hands them over.
  private var pages: [(key: [UInt8], value: [UInt8])] = []
  private var entries: [UInt8] = []
  private var offsets: [Int] = []
  private var firstKey: [UInt8] = []
  private var firstRow: Row = 0
  /// The entry being made: its rows' and positions' bytes, the first `rowLength` and
  /// `positionLength` of these buffers (kept at their largest size and written through pointers).
  private var rowBytes: [UInt8] = []
  private var positionBytes: [UInt8] = []
  private var rowLength = 0
  private var positionLength = 0

  init(segment: Row, kind: IndexKind) {
    self.segment = segment
    self.kind = kind
  }

  private var pageSize: Int { 2 + 2 * offsets.count + entries.count }

  /// Adds a list, filling the current page and going on into new ones as parts.
  mutating func add(key: [UInt8], _ source: PostingListSource) {
    var start = 0
    let count = source.rows.count
    while start < count {
      // A sliver of room would make a part that is mostly header.
      if !offsets.isEmpty && PostingPage.capacity - pageSize < 64 { flush() }
      let room = PostingPage.capacity - pageSize - 2
      let taken = encode(key: key, source, from: start, room: room, atLeastOne: offsets.isEmpty)
      guard taken > 0 else {
        flush()
        continue
      }
      append(key: key, firstRow: source.rows[start], rowCount: taken)
      start += taken
      if start < count { flush() }
    }
  }

  /// Adds a part already encoded — rows against this writer's segment start — as it is: how a
  /// merge copies lists without decoding them.
  mutating func addPart(
    key: [UInt8], firstRow: Row, rowCount: Int, rows: UnsafeRawBufferPointer,
    positions: UnsafeRawBufferPointer
  ) {
    Self.fill(&rowBytes, with: rows)
    rowLength = rows.count
    Self.fill(&positionBytes, with: positions)
    positionLength = positions.count
    let size = headerSize(key: key, rowCount: rowCount) + rowLength + positionLength
    if !offsets.isEmpty && pageSize + 2 + size > PostingPage.capacity { flush() }
    append(key: key, firstRow: firstRow, rowCount: rowCount)
  }

  private static func fill(_ buffer: inout [UInt8], with bytes: UnsafeRawBufferPointer) {
    if buffer.count < bytes.count { buffer = [UInt8](repeating: 0, count: bytes.count * 2) }
    buffer.withUnsafeMutableBytes { target in
      if let base = bytes.baseAddress, bytes.count > 0 {
        target.baseAddress?.copyMemory(from: base, byteCount: bytes.count)
      }
    }
  }

  /// Encodes rows from `start` into `rowBytes` and `positionBytes` while the entry stays within
  /// `room` bytes; returns how many (at least one when `atLeastOne`, even past the room: one
  /// row's positions may exceed a page).
  private mutating func encode(
    key: [UInt8], _ source: PostingListSource, from start: Int, room: Int, atLeastOne: Bool
  ) -> Int {
    // Most lists fit whole: encode them at once, through pointers, and check once.
    let remaining = source.rows.count - start
    let positionCount =
      positional ? (source.bounds.map { $0[source.rows.count] - $0[start] } ?? 0) : 0
    if rowBytes.count < remaining * 5 { rowBytes = [UInt8](repeating: 0, count: remaining * 10) }
    if positionBytes.count < (positionCount + remaining) * 5 {
      positionBytes = [UInt8](repeating: 0, count: (positionCount + remaining) * 10)
    }
    let segment = self.segment
    let positional = self.positional
    rowLength = rowBytes.withUnsafeMutableBufferPointer { out in
      var at = 0
      var previous = segment
      for index in start..<source.rows.count {
        let row = source.rows[index]
        at = Self.putVarint(UInt64(row &- previous), out, at)
        previous = row
      }
      return at
    }
    positionLength =
      positional
      ? positionBytes.withUnsafeMutableBufferPointer { out in
        var at = 0
        for index in start..<source.rows.count {
          guard let positions = source.positions(of: index), let first = positions.first else { continue }
          at = Self.putVarint(UInt64(first) << 1 | (positions.count > 1 ? 1 : 0), out, at)
          guard positions.count > 1 else { continue }
          at = Self.putVarint(UInt64(positions.count - 1), out, at)
          for offset in 1..<positions.count {
            at = Self.putVarint(UInt64(positions[offset] - positions[offset - 1]), out, at)
          }
        }
        return at
      } : 0
    if headerSize(key: key, rowCount: remaining) + rowLength + positionLength <= room {
      return remaining
    }
    // Too long for the room: row by row, as far as it goes.
    var rows: [UInt8] = []
    var positions: [UInt8] = []
    var previous = segment
    var index = start
    while index < source.rows.count {
      let rowMark = rows.count
      let positionMark = positions.count
      let row = source.rows[index]
      PageBytes.appendVarint(UInt64(row &- previous), to: &rows)
      if positional, let list = source.positions(of: index) {
        PostingPage.encodePositions(list, to: &positions)
      }
      rowLength = rows.count
      positionLength = positions.count
      let taken = index - start + 1
      if headerSize(key: key, rowCount: taken) + rowLength + positionLength > room
        && !(atLeastOne && taken == 1)
      {
        rows.removeSubrange(rowMark...)
        positions.removeSubrange(positionMark...)
        break
      }
      previous = row
      index += 1
    }
    Self.fill(&rowBytes, with: rows)
    rowLength = rows.count
    Self.fill(&positionBytes, with: positions)
    positionLength = positions.count
    return index - start
  }

  @inline(__always)
  private static func fill(_ buffer: inout [UInt8], with bytes: [UInt8]) {
    bytes.withUnsafeBytes { fill(&buffer, with: $0) }
  }

  @inline(__always)
  private static func putVarint(_ value: UInt64, _ out: UnsafeMutableBufferPointer<UInt8>, _ at: Int) -> Int {
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

  private func headerSize(key: [UInt8], rowCount: Int) -> Int {
    PageBytes.varintSize(UInt64(key.count)) + key.count + PageBytes.varintSize(UInt64(rowCount))
      + PageBytes.varintSize(UInt64(rowLength))
      + (positional ? PageBytes.varintSize(UInt64(positionLength)) : 0)
  }

  private mutating func append(key: [UInt8], firstRow row: Row, rowCount: Int) {
    if offsets.isEmpty {
      firstKey = key
      firstRow = row
    }
    offsets.append(entries.count)
    PageBytes.appendVarint(UInt64(key.count), to: &entries)
    entries.append(contentsOf: key)
    PageBytes.appendVarint(UInt64(rowCount), to: &entries)
    PageBytes.appendVarint(UInt64(rowLength), to: &entries)
    if positional { PageBytes.appendVarint(UInt64(positionLength), to: &entries) }
    entries.append(contentsOf: rowBytes[0..<rowLength])
    entries.append(contentsOf: positionBytes[0..<positionLength])
  }

  /// Closes the current page.
  mutating func flush() {
    guard !offsets.isEmpty else { return }
    let header = 2 + 2 * offsets.count
    var value: [UInt8] = []
    value.reserveCapacity(header + entries.count)
    value.append(UInt8(truncatingIfNeeded: offsets.count))
    value.append(UInt8(truncatingIfNeeded: offsets.count >> 8))
    for offset in offsets {
      value.append(UInt8(truncatingIfNeeded: header + offset))
      value.append(UInt8(truncatingIfNeeded: (header + offset) >> 8))
    }
    value.append(contentsOf: entries)
    pages.append((IndexPageKey.make(segment: segment, kind: kind, entryKey: firstKey, row: firstRow), value))
    entries.removeAll(keepingCapacity: true)
    offsets.removeAll(keepingCapacity: true)
  }

  /// Whether pages were closed since the last `takePages()`.
  var hasPages: Bool { !pages.isEmpty }

  /// The pages closed so far, handed over in key order.
  mutating func takePages() -> [(key: [UInt8], value: [UInt8])] {
    defer { pages.removeAll(keepingCapacity: true) }
    return pages
  }
}
