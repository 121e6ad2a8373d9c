import LMDB

extension IndexReader {
  /// The rows whose value of `field` lies in `lower ... upper`, ascending; `limit` stops the
  /// count early (for estimates), leaving the rows unsorted.
  func orderedRows(field: Field, lower: OrderedKey, upper: OrderedKey, limit: Int? = nil) throws -> [Row] {
    let slot = UInt8(truncatingIfNeeded: field.position)
    let width = OrderedKey.width(of: field.type)
    var rows = try withIndex { cursor -> [Row] in
      var rows: [Row] = []
      var segmentRows: [Row] = []
      for segment in directory.starts {
        segmentRows.removeAll(keepingCapacity: true)
        try SegmentLookup.forEachOrdered(
          field: slot, width: width, segment: segment, from: lower, cursor: &cursor
        ) { key, row in
          guard key <= upper else { return false }
          segmentRows.append(row)
          return limit.map { rows.count + segmentRows.count <= $0 } ?? true
        }
        // A segment's rows come in value order; its rows are one run, so a bitmap sorts them.
        rows.append(contentsOf: limit == nil ? RowSet.ascending(segmentRows) : segmentRows)
        if let limit, rows.count > limit { return rows }
      }
      return rows
    }
    if !recent.isEmpty {
      let matching = recent.rows { entry in
        guard let key = entry.orderedKey(field: slot) else { return false }
        return key >= lower && key <= upper
      }
      rows = limit == nil ? recent.overlay(rows, matching: matching) : rows + matching
    }
    return rows
  }

  /// Calls `body` with every row whose value of `field` lies in `range` (every row's when nil),
  /// in value order — ascending or descending — with ties in row order, until `body` returns
  /// false. The segments' runs and the recent rows are merged as they are read.
  func walk(
    field: Field, range: OrderedBounds?, ascending: Bool, _ body: (OrderedKey, Row) throws -> Bool
  ) throws {
    let slot = UInt8(truncatingIfNeeded: field.position)
    let width = OrderedKey.width(of: field.type)
    let lower = range?.lower ?? OrderedKey(flag: 0, high: 0, low: 0)
    let upper = range?.upper ?? OrderedKey(flag: .max, high: .max, low: .max)
    var recentEntries: [(OrderedKey, Row)] = []
    for (row, entry) in zip(recent.rows, recent.entries) where !entry.isDeleted {
      if let key = entry.orderedKey(field: slot), key >= lower, key <= upper {
        recentEntries.append((key, row))
      }
    }
    recentEntries.sort { ($0.0, $0.1) < ($1.0, $1.1) }
    if !ascending { recentEntries.reverse() }
    try withIndex { cursor in
      var streams = directory.starts.map {
        OrderedStream(segment: $0, slot: slot, width: width, lower: lower, upper: upper, ascending: ascending)
      }
      var heads: [(OrderedKey, Row)?] = []
      for index in streams.indices { heads.append(try streams[index].next(&cursor)) }
      var recentIndex = 0
      while true {
        // The next entry in walk order among the segments' heads and the recent rows.
        var best: Int?
        for index in heads.indices {
          guard let head = heads[index] else { continue }
          if let current = best, let other = heads[current] {
            let before =
              ascending ? (head.0, head.1) < (other.0, other.1) : (head.0, head.1) > (other.0, other.1)
            if !before { continue }
          }
          best = index
        }
        let takeRecent: Bool
        if recentIndex < recentEntries.count {
          if let best, let head = heads[best] {
            let entry = recentEntries[recentIndex]
            takeRecent =
              ascending ? (entry.0, entry.1) < (head.0, head.1) : (entry.0, entry.1) > (head.0, head.1)
          } else {
            takeRecent = true
          }
        } else {
          takeRecent = false
        }
        if takeRecent {
          let (key, row) = recentEntries[recentIndex]
          recentIndex += 1
          guard try body(key, row) else { return }
          continue
        }
        guard let best, let (key, row) = heads[best] else { return }
        heads[best] = try streams[best].next(&cursor)
        // A recent row's entry replaces the segment's.
        if recent.entry(of: row) != nil { continue }
        guard try body(key, row) else { return }
      }
    }
  }
}

/// One segment's ordered entries of one field within bounds, read page by page in either
/// direction, sharing the caller's cursor with the other segments' streams.
struct OrderedStream {
  let segment: Row
  let slot: UInt8
  let width: Int
  let lower: OrderedKey
  let upper: OrderedKey
  let ascending: Bool
  private var buffer: [(OrderedKey, Row)] = []
  private var position = 0
  /// The key of the page to read next, and whether one is left.
  private var nextPage: [UInt8]?
  private var started = false

  init(segment: Row, slot: UInt8, width: Int, lower: OrderedKey, upper: OrderedKey, ascending: Bool) {
    self.segment = segment
    self.slot = slot
    self.width = width
    self.lower = lower
    self.upper = upper
    self.ascending = ascending
  }

  mutating func next(_ cursor: inout Cursor) throws -> (OrderedKey, Row)? {
    while true {
      while position < buffer.count {
        let entry = buffer[position]
        position += 1
        if entry.0 < lower || entry.0 > upper {
          // Past the bound in the walk's direction: done; before it: skip.
          if ascending ? entry.0 > upper : entry.0 < lower {
            buffer.removeAll()
            nextPage = nil
            return nil
          }
          continue
        }
        return entry
      }
      guard try load(&cursor) else { return nil }
    }
  }

  /// Reads the next page in the walk's direction into `buffer`; false at the end.
  private mutating func load(_ cursor: inout Cursor) throws -> Bool {
    var page: Entry?
    if !started {
      started = true
      var entryKey: [UInt8] = [slot]
      (ascending ? lower : upper).append(to: &entryKey, width: width)
      let target = IndexPageKey.make(
        segment: segment, kind: .ordered, entryKey: entryKey, row: ascending ? 0 : Row.max)
      let found = try cursor.seek(atLeast: target)
      if ascending {
        // The page before may hold the first entries in range.
        if let before = found == nil ? try cursor.last() : try cursor.previous(),
          SegmentLookup.isPage(before.key, of: slot, segment: segment)
        {
          page = before
        } else {
          page = try cursor.seek(atLeast: target)
        }
      } else {
        page = found == nil ? try cursor.last() : try cursor.previous()
      }
    } else {
      guard let key = nextPage else { return false }
      _ = try cursor.seek(atLeast: key)
      page = ascending ? try cursor.next() : try cursor.previous()
    }
    guard let current = page, SegmentLookup.isPage(current.key, of: slot, segment: segment) else {
      nextPage = nil
      return false
    }
    nextPage = Array(current.key)
    buffer.removeAll(keepingCapacity: true)
    position = 0
    var reader = try OrderedPage.Reader(pageKey: current.key, value: current.value, width: width)
    while let entry = try reader.next() { buffer.append(entry) }
    if !ascending { buffer.reverse() }
    return true
  }
}
