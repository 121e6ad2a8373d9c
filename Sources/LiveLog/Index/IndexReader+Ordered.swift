import LMDB

extension IndexReader {
  /// The rows whose value of `field` lies in `lower ... upper`, ascending.
  func orderedRows(field: Field, lower: OrderedKey, upper: OrderedKey) throws -> [Row] {
    let slot = UInt8(truncatingIfNeeded: field.position)
    let width = OrderedKey.width(of: field.type)
    let rows = try withIndex { cursor -> [Row] in
      var rows: [Row] = []
      var segmentRows: [Row] = []
      for segment in directory.starts {
        segmentRows.removeAll(keepingCapacity: true)
        try SegmentLookup.forEachOrdered(
          field: slot, width: width, segment: segment, from: lower, coversKeys: directory.coversKeys,
          cursor: &cursor
        ) { entry in
          guard entry.key <= upper else { return false }
          segmentRows.append(entry.row)
          return true
        }
        // A segment's rows come in value order; its rows are one run, so a bitmap sorts them.
        rows.append(contentsOf: RowSet.ascending(segmentRows))
      }
      return rows
    }
    guard !recent.isEmpty else { return rows }
    return recent.overlay(rows, matching: recentRows(field: slot, lower: lower, upper: upper))
  }

  /// The rows of `candidates` (ascending) whose value of `field` lies in `lower ... upper`, read
  /// by row from the ordered columns (a recent row's from its entry), or `nil` when the store has
  /// none (format 7, read-only): one block read per 64 rows, for an `AND` whose range is far
  /// larger than its other parts' rows.
  func orderedRows(field: Field, lower: OrderedKey, upper: OrderedKey, among candidates: [Row]) throws
    -> [Row]?
  {
    guard let columns = collection.orderedColumns else { return nil }
    let slot = UInt8(truncatingIfNeeded: field.position)
    var rows: [Row] = []
    var block: OrderedColumnBlock?
    var blockIndex = UInt64.max
    do {
      for row in candidates {
        let key: OrderedKey?
        if let entry = recent.entry(of: row) {
          key = entry.isDeleted ? nil : entry.orderedKey(field: slot)
        } else {
          let index = RowTable.block(of: row)
          if index != blockIndex {
            block = try columns.block(of: row, slot: slot, txn)
            blockIndex = index
          }
          key = block?.key(atBit: Int(row & 63))
        }
        guard let key else {
          throw StoreError.corruptState(
            reason: "\(collection.name): an index names row \(row), which has no value of \(field.name)")
        }
        if key >= lower && key <= upper { rows.append(row) }
      }
    } catch let damage as PageDamage {
      throw collection.damaged("the ordered columns", damage)
    }
    return rows
  }

  /// About how many rows have a value of `field` in `lower ... upper`, counting at most
  /// `limit + 1` of the segments' entries (a recent row's entry is counted beside the one it
  /// replaces): a range's estimate, read from page headers wherever whole pages lie in the range.
  func orderedCount(field: Field, lower: OrderedKey, upper: OrderedKey, limit: Int) throws -> Int {
    let slot = UInt8(truncatingIfNeeded: field.position)
    let width = OrderedKey.width(of: field.type)
    let count = try withIndex { cursor -> Int in
      var count = 0
      for segment in directory.starts where count <= limit {
        count += try SegmentLookup.countOrdered(
          field: slot, width: width, segment: segment, lower: lower, upper: upper,
          coversKeys: directory.coversKeys, limit: limit - count, cursor: &cursor)
      }
      return min(count, limit + 1)
    }
    return recent.isEmpty ? count : count + recentRows(field: slot, lower: lower, upper: upper).count
  }

  /// The recent rows whose value of field `slot` lies in `lower ... upper`.
  private func recentRows(field slot: UInt8, lower: OrderedKey, upper: OrderedKey) -> [Row] {
    recent.rows { entry in
      guard let key = entry.orderedKey(field: slot) else { return false }
      return key >= lower && key <= upper
    }
  }

  /// `orderedRows(field:lower:upper:)` with each row's key beside it, read from covering pages
  /// rather than from the row table: `nil` when the pages do not cover keys. With `limit`, the
  /// segments after the one that completes the first `limit` rows are not read (more rows may
  /// come back; the first `limit` are the answer).
  func orderedRowsWithKeys(field: Field, lower: OrderedKey, upper: OrderedKey, limit: Int? = nil) throws -> (
    rows: [Row], ids: [Int64]
  )? {
    guard directory.coversKeys else { return nil }
    let slot = UInt8(truncatingIfNeeded: field.position)
    let width = OrderedKey.width(of: field.type)
    var rows: [Row] = []
    var ids: [Int64] = []
    try withIndex { cursor in
      var found = OrderedMatches()
      for (index, segment) in directory.starts.enumerated() {
        found.removeAll()
        try SegmentLookup.forEachOrdered(
          field: slot, width: width, segment: segment, from: lower, coversKeys: true, cursor: &cursor
        ) { entry in
          guard entry.key <= upper else { return false }
          // A recent row's entry replaces the segment's.
          if recent.isEmpty || recent.entry(of: entry.row) == nil { found.append(entry.row, entry.id) }
          return true
        }
        try found.appendAscending(to: &rows, &ids, within: directory.rows(of: index))
        // Later segments hold only later rows.
        if let limit, rows.count >= limit { break }
      }
    }
    guard !recent.isEmpty else { return (rows, ids) }
    var recentRows: [Row] = []
    var recentIDs: [Int64] = []
    for (row, entry) in zip(recent.rows, recent.entries) where !entry.isDeleted {
      guard let key = entry.orderedKey(field: slot), key >= lower, key <= upper else { continue }
      guard entry.key.count == 8 else { throw recentKeyDamage(row, entry) }
      recentRows.append(row)
      recentIDs.append(entry.key.loadUnaligned(as: Int64.self))
    }
    // Both ascending and disjoint: one merge.
    var mergedRows: [Row] = []
    var mergedIDs: [Int64] = []
    mergedRows.reserveCapacity(rows.count + recentRows.count)
    mergedIDs.reserveCapacity(rows.count + recentRows.count)
    var i = 0
    var j = 0
    while i < rows.count || j < recentRows.count {
      if j == recentRows.count || (i < rows.count && rows[i] < recentRows[j]) {
        mergedRows.append(rows[i])
        mergedIDs.append(ids[i])
        i += 1
      } else {
        mergedRows.append(recentRows[j])
        mergedIDs.append(recentIDs[j])
        j += 1
      }
    }
    return (mergedRows, mergedIDs)
  }

  /// A recent entry of a collection with integer keys whose key is not one.
  private func recentKeyDamage(_ row: Row, _ entry: RecentEntry.View) -> StoreError {
    .corruptState(
      reason: "\(collection.name): the recent entry of row \(row) holds a key of \(entry.key.count) bytes")
  }

  /// Calls `body` with every row whose value of `field` lies in `range` (every row's when nil),
  /// in value order — ascending or descending — with ties in row order, until `body` returns
  /// false. The segments' runs and the recent rows are merged as they are read. The third
  /// argument is the row's key when the pages cover keys (`directory.coversKeys`), else 0.
  /// With `members`, only their rows are given to `body`: the others are dropped as each page is
  /// decoded, before the merge, which then orders the members' entries alone (for a top 20 of
  /// Swift's rows by stars, about one entry in fifty of those read). At 1M records, on one store,
  /// that top 20 went from 96–97 to 82 µs.
  func walk(
    field: Field, range: OrderedBounds?, ascending: Bool, keeping members: RowMembership? = nil,
    _ body: (OrderedKey, Row, Int64) throws -> Bool
  ) throws {
    let slot = UInt8(truncatingIfNeeded: field.position)
    let width = OrderedKey.width(of: field.type)
    let lower = range?.lower ?? OrderedKey(flag: 0, high: 0, low: 0)
    let upper = range?.upper ?? OrderedKey(flag: .max, high: .max, low: .max)
    var recentEntries: [(OrderedKey, Row, Int64)] = []
    for (row, entry) in zip(recent.rows, recent.entries) where !entry.isDeleted {
      if members?.contains(row) == false { continue }
      if let key = entry.orderedKey(field: slot), key >= lower, key <= upper {
        var id: Int64 = 0
        if directory.coversKeys {
          guard entry.key.count == 8 else { throw recentKeyDamage(row, entry) }
          id = entry.key.loadUnaligned(as: Int64.self)
        }
        recentEntries.append((key, row, id))
      }
    }
    recentEntries.sort { ($0.0, $0.1) < ($1.0, $1.1) }
    if !ascending { recentEntries.reverse() }
    try withIndex { cursor in
      var streams = directory.starts.map {
        OrderedStream(
          segment: $0, slot: slot, width: width, lower: lower, upper: upper, ascending: ascending,
          coversKeys: directory.coversKeys, members: members)
      }
      // Each stream's next entry, and the streams that have one, in walk order of those entries:
      // after the first is taken, its stream's next entry moves down past the ones it follows,
      // mostly none (one segment holds most rows), so an entry costs about one comparison rather
      // than one per segment. A stream without one keeps a placeholder head, never read: it is not
      // in `order`.
      var heads: [OrderedPage.Entry] = []
      var order: [Int] = []
      for index in streams.indices {
        let head = try streams[index].next(&cursor)
        heads.append(head ?? OrderedPage.Entry(key: lower, row: 0, id: 0))
        if head != nil { order.append(index) }
      }
      @inline(__always) func precedes(_ a: OrderedPage.Entry, _ b: OrderedPage.Entry) -> Bool {
        ascending ? (a.key, a.row) < (b.key, b.row) : (a.key, a.row) > (b.key, b.row)
      }
      order.sort { precedes(heads[$0], heads[$1]) }
      var recentIndex = 0
      while true {
        if recentIndex < recentEntries.count {
          let entry = recentEntries[recentIndex]
          let takeRecent =
            if let best = order.first {
              ascending
                ? (entry.0, entry.1) < (heads[best].key, heads[best].row)
                : (entry.0, entry.1) > (heads[best].key, heads[best].row)
            } else { true }
          if takeRecent {
            recentIndex += 1
            guard try body(entry.0, entry.1, entry.2) else { return }
            continue
          }
        }
        guard let best = order.first else { return }
        let head = heads[best]
        if let next = try streams[best].next(&cursor) {
          heads[best] = next
          var position = 0
          while position + 1 < order.count && precedes(heads[order[position + 1]], next) {
            order.swapAt(position, position + 1)
            position += 1
          }
        } else {
          order.removeFirst()
        }
        // A recent row's entry replaces the segment's.
        if !recent.isEmpty && recent.entry(of: head.row) != nil { continue }
        guard try body(head.key, head.row, head.id) else { return }
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
  let coversKeys: Bool
  /// The rows the walk keeps (every row's when nil): the others' entries within the bounds are
  /// dropped as a page is decoded. Entries past a bound are kept: they end the stream.
  let members: RowMembership?
  /// The current page's entries in stored (ascending) order; a descending walk takes them from
  /// the end.
  private var buffer: [OrderedPage.Entry] = []
  /// How many of `buffer` the walk has taken.
  private var taken = 0
  /// The key of the page just read, from which the next is found; empty once none is left.
  private var pageKey: [UInt8] = []
  private var started = false

  init(
    segment: Row, slot: UInt8, width: Int, lower: OrderedKey, upper: OrderedKey, ascending: Bool,
    coversKeys: Bool, members: RowMembership? = nil
  ) {
    self.coversKeys = coversKeys
    self.members = members
    self.segment = segment
    self.slot = slot
    self.width = width
    self.lower = lower
    self.upper = upper
    self.ascending = ascending
  }

  mutating func next(_ cursor: inout Cursor) throws -> OrderedPage.Entry? {
    while true {
      while taken < buffer.count {
        let entry = buffer[ascending ? taken : buffer.count - 1 - taken]
        taken += 1
        if entry.key < lower || entry.key > upper {
          // Past the bound in the walk's direction: done; before it: skip.
          if ascending ? entry.key > upper : entry.key < lower {
            buffer.removeAll()
            taken = 0
            pageKey.removeAll()
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
      guard !pageKey.isEmpty else { return false }
      _ = try cursor.seek(atLeast: pageKey)
      page = ascending ? try cursor.next() : try cursor.previous()
    }
    pageKey.removeAll(keepingCapacity: true)
    guard let current = page, SegmentLookup.isPage(current.key, of: slot, segment: segment) else {
      return false
    }
    pageKey.append(contentsOf: current.key)
    buffer.removeAll(keepingCapacity: true)
    taken = 0
    var reader = try OrderedPage.Reader(
      pageKey: current.key, value: current.value, width: width, coversKeys: coversKeys)
    // Every entry takes a byte at least: a damaged count cannot ask for more.
    buffer.reserveCapacity(min(reader.remaining, current.value.count + 1))
    // Entries ascend in a page, so none after one past `upper` is wanted: a page is decoded
    // only up to it (a descending walk's first page, an ascending walk's last), and an ascending
    // walk keeps that one entry, which ends it. Damage further into the page goes unreported
    // here, as in pages the walk never reaches; `verify` reads every page whole.
    while let entry = try reader.next() {
      if entry.key > upper {
        if ascending { buffer.append(entry) }
        break
      }
      if let members, entry.key >= lower, !members.contains(entry.row) { continue }
      buffer.append(entry)
    }
    return true
  }
}

/// One segment's rows of an ordered range, found in value order with their keys, put in row
/// order: scattered into a table over the segment's rows when they are many, sorted otherwise.
struct OrderedMatches {
  private var rows: [Row] = []
  private var ids: [Int64] = []

  mutating func removeAll() {
    rows.removeAll(keepingCapacity: true)
    ids.removeAll(keepingCapacity: true)
  }

  mutating func append(_ row: Row, _ id: Int64) {
    rows.append(row)
    ids.append(id)
  }

  /// Appends the rows, ascending, and their keys; every row found must lie in `span`, the
  /// segment's rows (a page that says otherwise is damaged).
  func appendAscending(to allRows: inout [Row], _ allIDs: inout [Int64], within span: Range<Row>) throws {
    guard !rows.isEmpty else { return }
    for row in rows where !span.contains(row) {
      throw PageDamage("an ordered page's row \(row) outside its segment, rows \(span)")
    }
    allRows.reserveCapacity(allRows.count + rows.count)
    allIDs.reserveCapacity(allIDs.count + rows.count)
    if rows.count * 16 < span.count {
      var previous: Row?
      for index in rows.indices.sorted(by: { rows[$0] < rows[$1] }) where rows[index] != previous {
        allRows.append(rows[index])
        allIDs.append(ids[index])
        previous = rows[index]
      }
      return
    }
    var present = [UInt64](repeating: 0, count: span.count / 64 + 1)
    var table = [Int64](repeating: 0, count: span.count)
    for (row, id) in zip(rows, ids) {
      let offset = Int(row - span.lowerBound)
      present[offset >> 6] |= 1 << UInt64(offset & 63)
      table[offset] = id
    }
    for (word, bits) in present.enumerated() where bits != 0 {
      var bits = bits
      while bits != 0 {
        let offset = word << 6 + bits.trailingZeroBitCount
        bits &= bits - 1
        allRows.append(span.lowerBound + Row(offset))
        allIDs.append(table[offset])
      }
    }
  }
}
