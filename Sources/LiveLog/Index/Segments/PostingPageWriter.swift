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
  /// Where each row encoded by `encode` ends in `rowBytes` and `positionBytes`.
  private var rowEnds: [(rows: Int, positions: Int)] = []

  init(segment: Row, kind: IndexKind) {
    self.segment = segment
    self.kind = kind
  }

  private var pageSize: Int { 2 + 2 * offsets.count + entries.count }

  /// Adds a list, filling the current page and going on into new ones as parts.
  mutating func add(key: [UInt8], _ source: PostingListSource) {
    key.withUnsafeBytes { add(key: $0, source) }
  }

  /// `add(key:_:)` with the key lent rather than in an array: the lists of a segment are many
  /// and mostly short, and an array per key cost an allocation each.
  mutating func add(key: UnsafeRawBufferPointer, _ source: PostingListSource) {
    var start = 0
    let count = source.rows.count
    while start < count {
      // A sliver of room would make a part that is mostly header.
      if !offsets.isEmpty && PostingPage.capacity - pageSize < 64 { flush() }
      let room = PostingPage.capacity - pageSize - 2
      let taken = encode(keyCount: key.count, source, from: start, room: room, atLeastOne: offsets.isEmpty)
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
    key: UnsafeRawBufferPointer, firstRow: Row, rowCount: Int, rows: UnsafeRawBufferPointer,
    positions: UnsafeRawBufferPointer
  ) {
    Self.fill(&rowBytes, with: rows)
    rowLength = rows.count
    Self.fill(&positionBytes, with: positions)
    positionLength = positions.count
    let size =
      Self.headerSize(
        keyCount: key.count, rowCount: rowCount, rowLength: rowLength, positionLength: positionLength,
        positional: positional) + rowLength + positionLength
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
  ///
  /// Only as many rows are encoded as could fit — each takes a byte of rows at least, and a byte
  /// of positions in a trigram list — so that a long list, cut into many parts, costs its length
  /// once rather than its length for every part. The largest run that fits is then found from
  /// each row's end, through pointers.
  private mutating func encode(
    keyCount: Int, _ source: PostingListSource, from start: Int, room: Int, atLeastOne: Bool
  ) -> Int {
    let positional = self.positional
    let end = start + min(source.rows.count - start, max(positional ? room / 2 : room, 1))
    let rows = end - start
    let positionCount = positional ? (source.bounds.map { $0[end] - $0[start] } ?? 0) : 0
    // A row's step is a varint of five bytes at most.
    if rowBytes.count < rows * 5 { rowBytes = [UInt8](repeating: 0, count: rows * 10) }
    let positionRoom = positionCount * PostingPage.maximumBytesPerPosition
    if positionBytes.count < positionRoom {
      positionBytes = [UInt8](repeating: 0, count: positionRoom * 2)
    }
    if rowEnds.count < rows { rowEnds = [(rows: Int, positions: Int)](repeating: (0, 0), count: rows * 2) }
    let segment = self.segment
    rowEnds.withUnsafeMutableBufferPointer { ends in
      rowBytes.withUnsafeMutableBufferPointer { rowOut in
        positionBytes.withUnsafeMutableBufferPointer { positionOut in
          var rowAt = 0
          var positionAt = 0
          // A part's first row steps from the segment's start, as a whole list's does.
          var previous = segment
          for index in start..<end {
            let row = source.rows[index]
            rowAt = PageBytes.putVarint(UInt64(row &- previous), into: rowOut, at: rowAt)
            previous = row
            if positional, let positions = source.positions(of: index) {
              positionAt = PostingPage.writePositions(positions, to: positionOut, at: positionAt)
            }
            ends[index - start] = (rowAt, positionAt)
          }
        }
      }
    }
    // The entry of the first `taken` rows grows with `taken`: find the most that fit. Read
    // through a pointer, with nothing of `self`: a closure over `self` copied the whole writer
    // (and retained each of its arrays) on every step of the search.
    var low = 0
    var high = rows
    rowEnds.withUnsafeBufferPointer { ends in
      while low < high {
        let middle = (low + high + 1) / 2
        let (rowLength, positionLength) = ends[middle - 1]
        let size =
          Self.headerSize(
            keyCount: keyCount, rowCount: middle, rowLength: rowLength, positionLength: positionLength,
            positional: positional) + rowLength + positionLength
        if size <= room { low = middle } else { high = middle - 1 }
      }
    }
    let taken = low == 0 && atLeastOne ? 1 : low
    guard taken > 0 else { return 0 }
    (rowLength, positionLength) = rowEnds[taken - 1]
    return taken
  }

  private static func headerSize(
    keyCount: Int, rowCount: Int, rowLength: Int, positionLength: Int, positional: Bool
  ) -> Int {
    PageBytes.varintSize(UInt64(keyCount)) + keyCount + PageBytes.varintSize(UInt64(rowCount))
      + PageBytes.varintSize(UInt64(rowLength))
      + (positional ? PageBytes.varintSize(UInt64(positionLength)) : 0)
  }

  private mutating func append(key: UnsafeRawBufferPointer, firstRow row: Row, rowCount: Int) {
    if offsets.isEmpty {
      firstKey.removeAll(keepingCapacity: true)
      firstKey.append(contentsOf: key)
      firstRow = row
    }
    offsets.append(entries.count)
    PageBytes.appendVarint(UInt64(key.count), to: &entries)
    entries.append(contentsOf: key)
    PageBytes.appendVarint(UInt64(rowCount), to: &entries)
    PageBytes.appendVarint(UInt64(rowLength), to: &entries)
    if positional { PageBytes.appendVarint(UInt64(positionLength), to: &entries) }
    // Through pointers: a slice of each buffer retained and released it, for every entry.
    let (rowLength, positionLength) = (self.rowLength, self.positionLength)
    rowBytes.withUnsafeBytes {
      entries.append(contentsOf: UnsafeRawBufferPointer(rebasing: $0[0..<rowLength]))
    }
    positionBytes.withUnsafeBytes {
      entries.append(contentsOf: UnsafeRawBufferPointer(rebasing: $0[0..<positionLength]))
    }
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
