import LMDB

/// Finding entries in one segment's pages of the `indexes` database.
enum SegmentLookup {
  /// Calls `body` with each part of the posting list `key` in `segment`, in row order: the
  /// list's entries, from the page before the first page whose key passes `key` (where a list
  /// may start) on through the pages that go on with it. `cursor` is moved.
  static func forEachPart(
    of key: [UInt8], kind: IndexKind, segment: Row, cursor: inout Cursor,
    _ body: (PostingPage.Entry) throws -> Void
  ) throws {
    let positional = kind == .trigram
    let target = IndexPageKey.make(segment: segment, kind: kind, entryKey: key, row: 0)
    let found = try cursor.seek(atLeast: target)
    var page: Entry?
    // The page before: the list's first parts may be its last entries.
    if let before = found == nil ? try cursor.last() : try cursor.previous(),
      IndexPageKey.belongs(before.key, segment: segment, kind: kind)
    {
      let view = try PostingPage.View(before.value, positional: positional)
      var index = try key.withUnsafeBytes { try view.lowerBound($0) }
      while index < view.count {
        let entry = try view.entry(index)
        guard ByteOrder.compare(entry.key, key) == 0 else { return }
        try body(entry)
        index += 1
      }
      page = found == nil ? nil : try cursor.next()
    } else if found != nil {
      page = try cursor.seek(atLeast: target)
    }
    // The pages that begin with the list, while it runs to their ends.
    while let current = page, IndexPageKey.belongs(current.key, segment: segment, kind: kind),
      ByteOrder.compare(IndexPageKey.entryKey(of: current.key), key) == 0
    {
      let view = try PostingPage.View(current.value, positional: positional)
      for index in 0..<view.count {
        let entry = try view.entry(index)
        guard ByteOrder.compare(entry.key, key) == 0 else { return }
        try body(entry)
      }
      page = try cursor.next()
    }
  }

  /// The parts of the list `key` of `segment` (`forEachPart`) and their rows in all (from the
  /// page headers alone), for a caller that counts lists before it reads some of them: finding a
  /// list again costs a seek and a search of its page. The parts point into the map: they stay
  /// valid until the transaction writes or ends.
  static func parts(of key: [UInt8], kind: IndexKind, segment: Row, cursor: inout Cursor) throws
    -> (parts: [PostingPage.Entry], rowCount: Int)
  {
    var parts: [PostingPage.Entry] = []
    var count = 0
    try forEachPart(of: key, kind: kind, segment: segment, cursor: &cursor) {
      parts.append($0)
      count += $0.rowCount
    }
    return (parts, count)
  }

  /// Calls `body` with the ordered entries of field `slot` (key width `width`) in `segment`
  /// from `lower` on, ascending, until it returns false or the field's entries end.
  static func forEachOrdered(
    field slot: UInt8, width: Int, segment: Row, from lower: OrderedKey, coversKeys: Bool,
    cursor: inout Cursor,
    _ body: (OrderedPage.Entry) throws -> Bool
  ) throws {
    var page = try firstOrderedPage(field: slot, width: width, segment: segment, from: lower, cursor: &cursor)
    while let current = page, isPage(current.key, of: slot, segment: segment) {
      var reader = try OrderedPage.Reader(
        pageKey: current.key, value: current.value, width: width, coversKeys: coversKeys)
      while let entry = try reader.next() {
        if entry.key < lower { continue }
        guard try body(entry) else { return }
      }
      page = try cursor.next()
    }
  }

  /// How many ordered entries of field `slot` in `segment` lie in `lower ... upper`, or some
  /// number past `limit` once the count passes it. A page's entries all precede the next page's
  /// first, so a page whose first entry is at or past `lower` and whose successor's first is at
  /// or before `upper` is counted from its header; only the pages at the range's two ends in the
  /// segment are decoded. A range's estimate costs a cursor step per few dozen entries, not a
  /// decode of each.
  static func countOrdered(
    field slot: UInt8, width: Int, segment: Row, lower: OrderedKey, upper: OrderedKey, coversKeys: Bool,
    limit: Int, cursor: inout Cursor
  ) throws -> Int {
    func reader(_ page: Entry?) throws -> OrderedPage.Reader? {
      guard let page, isPage(page.key, of: slot, segment: segment) else { return nil }
      return try OrderedPage.Reader(
        pageKey: page.key, value: page.value, width: width, coversKeys: coversKeys)
    }
    var count = 0
    var current = try reader(
      try firstOrderedPage(field: slot, width: width, segment: segment, from: lower, cursor: &cursor))
    while var page = current, page.firstKey <= upper, count <= limit {
      // The values a cursor returns stay valid until the transaction writes or ends.
      let next = try reader(try cursor.next())
      if page.firstKey >= lower, let next, next.firstKey <= upper {
        count += page.remaining
      } else {
        while let entry = try page.next(), entry.key <= upper {
          if entry.key >= lower { count += 1 }
        }
      }
      current = next
    }
    return count
  }

  /// The page of field `slot` in `segment` where entries from `lower` on begin (the page
  /// before the first whose key passes `lower`, when it is this field's, may hold some), with
  /// `cursor` on it; `nil` or another field's page when there is none.
  private static func firstOrderedPage(
    field slot: UInt8, width: Int, segment: Row, from lower: OrderedKey, cursor: inout Cursor
  ) throws -> Entry? {
    var entryKey: [UInt8] = [slot]
    lower.append(to: &entryKey, width: width)
    let target = IndexPageKey.make(segment: segment, kind: .ordered, entryKey: entryKey, row: 0)
    let found = try cursor.seek(atLeast: target)
    if let before = found == nil ? try cursor.last() : try cursor.previous(),
      isPage(before.key, of: slot, segment: segment)
    {
      return before
    }
    return try cursor.seek(atLeast: target)
  }

  static func isPage(_ key: UnsafeRawBufferPointer, of slot: UInt8, segment: Row) -> Bool {
    IndexPageKey.belongs(key, segment: segment, kind: .ordered) && IndexPageKey.field(of: key) == slot
  }
}
