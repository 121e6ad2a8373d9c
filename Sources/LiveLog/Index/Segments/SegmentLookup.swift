import LMDB

/// Finding entries in one segment's pages of the `index` database.
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

  /// Rows in the list `key` of `segment`, from the page headers alone.
  static func count(of key: [UInt8], kind: IndexKind, segment: Row, cursor: inout Cursor) throws -> Int {
    var count = 0
    try forEachPart(of: key, kind: kind, segment: segment, cursor: &cursor) { count += $0.rowCount }
    return count
  }

  /// Calls `body` with the ordered entries of field `slot` (key width `width`) in `segment`
  /// from `lower` on, ascending, until it returns false or the field's entries end.
  static func forEachOrdered(
    field slot: UInt8, width: Int, segment: Row, from lower: OrderedKey, coversKeys: Bool,
    cursor: inout Cursor,
    _ body: (OrderedPage.Entry) throws -> Bool
  ) throws {
    var entryKey: [UInt8] = [slot]
    lower.append(to: &entryKey, width: width)
    let target = IndexPageKey.make(segment: segment, kind: .ordered, entryKey: entryKey, row: 0)
    let found = try cursor.seek(atLeast: target)
    // The page before may hold entries at or past `lower`: start there when it is this field's.
    var page: Entry?
    if let before = found == nil ? try cursor.last() : try cursor.previous(),
      isPage(before.key, of: slot, segment: segment)
    {
      page = before
    } else {
      page = try cursor.seek(atLeast: target)
    }
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

  static func isPage(_ key: UnsafeRawBufferPointer, of slot: UInt8, segment: Row) -> Bool {
    IndexPageKey.belongs(key, segment: segment, kind: .ordered) && key[IndexPageKey.headerSize] == slot
  }
}
