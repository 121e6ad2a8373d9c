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
  private var rowBytes: [UInt8] = []
  private var positionBytes: [UInt8] = []

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
    key: [UInt8], firstRow: Row, rowCount: Int, rows: UnsafeRawBufferPointer, positions: UnsafeRawBufferPointer
  ) {
    rowBytes.removeAll(keepingCapacity: true)
    rowBytes.append(contentsOf: rows)
    positionBytes.removeAll(keepingCapacity: true)
    positionBytes.append(contentsOf: positions)
    let size = headerSize(key: key, rowCount: rowCount) + rowBytes.count + positionBytes.count
    if !offsets.isEmpty && pageSize + 2 + size > PostingPage.capacity { flush() }
    append(key: key, firstRow: firstRow, rowCount: rowCount)
  }

  /// Encodes rows from `start` into `rowBytes` and `positionBytes` while the entry stays within
  /// `room` bytes; returns how many (at least one when `atLeastOne`, even past the room: one
  /// row's positions may exceed a page).
  private mutating func encode(
    key: [UInt8], _ source: PostingListSource, from start: Int, room: Int, atLeastOne: Bool
  ) -> Int {
    rowBytes.removeAll(keepingCapacity: true)
    positionBytes.removeAll(keepingCapacity: true)
    var previous = segment
    var index = start
    while index < source.rows.count {
      let rowMark = rowBytes.count
      let positionMark = positionBytes.count
      let row = source.rows[index]
      PageBytes.appendVarint(UInt64(row &- previous), to: &rowBytes)
      if positional, let positions = source.positions(of: index) {
        PostingPage.encodePositions(positions, to: &positionBytes)
      }
      let taken = index - start + 1
      if headerSize(key: key, rowCount: taken) + rowBytes.count + positionBytes.count > room
        && !(atLeastOne && taken == 1)
      {
        rowBytes.removeSubrange(rowMark...)
        positionBytes.removeSubrange(positionMark...)
        break
      }
      previous = row
      index += 1
    }
    return index - start
  }

  private func headerSize(key: [UInt8], rowCount: Int) -> Int {
    PageBytes.varintSize(UInt64(key.count)) + key.count + PageBytes.varintSize(UInt64(rowCount))
      + PageBytes.varintSize(UInt64(rowBytes.count))
      + (positional ? PageBytes.varintSize(UInt64(positionBytes.count)) : 0)
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
    PageBytes.appendVarint(UInt64(rowBytes.count), to: &entries)
    if positional { PageBytes.appendVarint(UInt64(positionBytes.count), to: &entries) }
    entries.append(contentsOf: rowBytes)
    entries.append(contentsOf: positionBytes)
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

  /// The pages closed so far, handed over in key order.
  mutating func takePages() -> [(key: [UInt8], value: [UInt8])] {
    defer { pages.removeAll(keepingCapacity: true) }
    return pages
  }
}
