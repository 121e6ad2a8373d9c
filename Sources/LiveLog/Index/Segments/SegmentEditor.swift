import LMDB

/// One change to a posting list of a segment: `row` gains or keeps the list `key` with
/// `positions` (trigram lists; empty for terms), or leaves it (`positions == nil`).
struct PostingEdit: Comparable {
  var kind: IndexKind
  var key: [UInt8]
  var row: Row
  var positions: [UInt32]?

  static func < (a: PostingEdit, b: PostingEdit) -> Bool {
    if a.kind != b.kind { return a.kind.rawValue < b.kind.rawValue }
    let order = TextMatching.compare(a.key, b.key)
    if order != 0 { return order < 0 }
    return a.row < b.row
  }

  static func == (a: PostingEdit, b: PostingEdit) -> Bool {
    a.kind == b.kind && a.key == b.key && a.row == b.row
  }
}

/// One change to an ordered index: the entry goes in or out.
struct OrderedEdit: Comparable {
  var entry: OrderedEntry
  var isInsertion: Bool

  static func < (a: OrderedEdit, b: OrderedEdit) -> Bool { a.entry < b.entry }
  static func == (a: OrderedEdit, b: OrderedEdit) -> Bool { a.entry == b.entry }
}

/// Changes the entries of rows already in a segment, in place: each change reads the pages
/// that hold (or would hold) its key — a page, or a long list's run of pages — and writes them
/// again. A fold's changes to folded rows go this way; its new rows make a new segment.
struct SegmentEditor {
  let index: Database
  let segment: Row
  let txn: WriteTransaction
  /// Whether the ordered pages carry keys (`SegmentDirectory.coversKeys`), read and written alike.
  let coversKeys: Bool

  /// Applies posting edits, sorted, each (kind, key, row) at most once.
  func apply(_ edits: [PostingEdit]) throws {
    var start = 0
    while start < edits.count {
      start = try applyUnit(edits, from: start)
    }
  }

  /// Rewrites the pages that hold `edits[start].key` with every edit that falls in them;
  /// returns the first edit past them.
  private func applyUnit(_ edits: [PostingEdit], from start: Int) throws -> Int {
    let kind = edits[start].kind
    let positional = kind == .trigram
    // The unit: the pages a list of this key is in or goes into, with every part of each list
    // they hold (parts may run across pages), and the key after them.
    let (pageKeys, lists, limit) = try txn.withCursor(index) {
      cursor -> ([[UInt8]], [(key: [UInt8], postings: [(Row, [UInt32])])], [UInt8]?) in
      let key = edits[start].key
      let target = IndexPageKey.make(segment: segment, kind: kind, entryKey: key, row: 0)
      let found = try cursor.seek(atLeast: target)
      let foundKey = found.flatMap {
        IndexPageKey.belongs($0.key, segment: segment, kind: kind) ? Array($0.key) : nil
      }
      // Start at the page before the first page past the key when the key falls in it (its
      // parts may begin there) or after it with no page beginning with the key (it goes at its
      // end); else at the first page past the key.
      var first: [UInt8]?
      if let before = found == nil ? try cursor.last() : try cursor.previous(),
        IndexPageKey.belongs(before.key, segment: segment, kind: kind)
      {
        let view = try PostingPage.View(before.value, positional: positional)
        let reachesKey = key.withUnsafeBytes { wanted in
          ((try? view.key(view.count - 1)).map { ByteOrder.compare($0, wanted) >= 0 }) ?? true
        }
        let foundStartsWithKey =
          foundKey.map { page in
            page.withUnsafeBytes { ByteOrder.compare(IndexPageKey.entryKey(of: $0), key) == 0 }
          } ?? false
        first = reachesKey || !foundStartsWithKey ? Array(before.key) : foundKey
      } else {
        first = foundKey
      }
      guard var startKey = first else { return ([], [], nil) }
      // Back while the start page goes on with the list the page before it ends with.
      while true {
        guard let startPage = try cursor.seek(atLeast: startKey),
          let before = try cursor.previous(), IndexPageKey.belongs(before.key, segment: segment, kind: kind)
        else { break }
        let view = try PostingPage.View(before.value, positional: positional)
        let lastKey = try view.key(view.count - 1)
        guard ByteOrder.compare(lastKey, IndexPageKey.entryKey(of: startPage.key)) == 0 else { break }
        startKey = Array(before.key)
      }
      var keys: [[UInt8]] = []
      var lists: [(key: [UInt8], postings: [(Row, [UInt32])])] = []
      var page = try cursor.seek(atLeast: startKey)
      while let current = page, IndexPageKey.belongs(current.key, segment: segment, kind: kind) {
        // A page joins the unit when it goes on with the unit's last list.
        if !keys.isEmpty {
          guard let last = lists.last,
            ByteOrder.compare(IndexPageKey.entryKey(of: current.key), last.key) == 0
          else { break }
        }
        keys.append(Array(current.key))
        let view = try PostingPage.View(current.value, positional: positional)
        for position in 0..<view.count {
          let entry = try view.entry(position)
          let postings = try PostingPage.decode(entry, segment: segment, positional: positional)
          if let last = lists.last, ByteOrder.compare(entry.key, last.key) == 0 {
            lists[lists.count - 1].postings.append(contentsOf: postings)
          } else {
            lists.append((Array(entry.key), postings))
          }
        }
        page = try cursor.next()
      }
      let limit: [UInt8]? = page.flatMap {
        IndexPageKey.belongs($0.key, segment: segment, kind: kind)
          ? Array(IndexPageKey.entryKey(of: $0.key)) : nil
      }
      return (keys, lists, limit)
    }
    var merged = lists
    var end = start
    while end < edits.count && edits[end].kind == kind
      && limit.map({ TextMatching.compare(edits[end].key, $0) < 0 }) ?? true
    {
      let edit = edits[end]
      var low = 0
      var high = merged.count
      while low < high {
        let middle = (low + high) / 2
        if TextMatching.compare(merged[middle].key, edit.key) < 0 { low = middle + 1 } else { high = middle }
      }
      if low == merged.count || merged[low].key != edit.key {
        if edit.positions != nil {
          merged.insert((edit.key, []), at: low)
        } else {
          end += 1
          continue
        }
      }
      var postings = merged[low].postings
      var at = 0
      var top = postings.count
      while at < top {
        let middle = (at + top) / 2
        if postings[middle].0 < edit.row { at = middle + 1 } else { top = middle }
      }
      let present = at < postings.count && postings[at].0 == edit.row
      if let positions = edit.positions {
        if present {
          postings[at] = (edit.row, positions)
        } else {
          postings.insert((edit.row, positions), at: at)
        }
      } else if present {
        postings.remove(at: at)
      }
      merged[low].postings = postings
      end += 1
    }
    // Edits that fall before every page of the segment join the first unit: nothing to move.
    for key in pageKeys { try txn.delete(index, key) }
    var writer = PostingPageWriter(segment: segment, kind: kind)
    var rows: [Row] = []
    var bounds: [Int] = [0]
    var flat: [UInt32] = []
    for list in merged where !list.postings.isEmpty {
      rows.removeAll(keepingCapacity: true)
      bounds.removeAll(keepingCapacity: true)
      bounds.append(0)
      flat.removeAll(keepingCapacity: true)
      for (row, positions) in list.postings {
        rows.append(row)
        flat.append(contentsOf: positions)
        bounds.append(flat.count)
      }
      rows.withUnsafeBufferPointer { r in
        bounds.withUnsafeBufferPointer { b in
          flat.withUnsafeBufferPointer { p in
            writer.add(
              key: list.key,
              positional ? PostingListSource(rows: r, bounds: b, positions: p) : PostingListSource(rows: r))
          }
        }
      }
    }
    writer.flush()
    for (key, value) in writer.takePages() { try txn.put(index, key, value) }
    return max(end, start + 1)
  }

  /// Applies ordered edits, sorted, each entry at most once.
  func apply(_ edits: [OrderedEdit]) throws {
    var start = 0
    while start < edits.count {
      start = try applyOrderedUnit(edits, from: start)
    }
  }

  private func applyOrderedUnit(_ edits: [OrderedEdit], from start: Int) throws -> Int {
    let first = edits[start].entry
    let slot = first.field
    let width = Int(first.width)
    var entryKey: [UInt8] = [slot]
    first.key.append(to: &entryKey, width: width)
    let (pageKey, entries, limit) = try txn.withCursor(index) {
      cursor -> ([UInt8]?, [OrderedPage.Entry], OrderedEntry?) in
      let target = IndexPageKey.make(segment: segment, kind: .ordered, entryKey: entryKey, row: first.row)
      let found = try cursor.seek(atLeast: target)
      var page: Entry?
      if let at = found, ByteOrder.compare(at.key, target) == 0 {
        page = at
      } else if let before = found == nil ? try cursor.last() : try cursor.previous(),
        SegmentLookup.isPage(before.key, of: slot, segment: segment)
      {
        page = before
      } else if let at = try cursor.seek(atLeast: target),
        SegmentLookup.isPage(at.key, of: slot, segment: segment)
      {
        page = at
      }
      guard let page else { return (nil, [], nil) }
      var entries: [OrderedPage.Entry] = []
      var reader = try OrderedPage.Reader(
        pageKey: page.key, value: page.value, width: width, coversKeys: coversKeys)
      while let entry = try reader.next() { entries.append(entry) }
      let key = Array(page.key)
      var limit: OrderedEntry?
      if let next = try cursor.next(), SegmentLookup.isPage(next.key, of: slot, segment: segment) {
        var nextReader = try OrderedPage.Reader(
          pageKey: next.key, value: next.value, width: width, coversKeys: coversKeys)
        if let entry = try nextReader.next() {
          limit = OrderedEntry(field: slot, key: entry.key, row: entry.row, width: width)
        }
      }
      return (key, entries, limit)
    }
    var merged = entries
    var end = start
    while end < edits.count && edits[end].entry.field == slot && limit.map({ edits[end].entry < $0 }) ?? true
    {
      let edit = edits[end].entry
      var low = 0
      var high = merged.count
      while low < high {
        let middle = (low + high) / 2
        if (merged[middle].key, merged[middle].row) < (edit.key, edit.row) {
          low = middle + 1
        } else {
          high = middle
        }
      }
      let present = low < merged.count && merged[low].key == edit.key && merged[low].row == edit.row
      if edits[end].isInsertion {
        if !present { merged.insert(OrderedPage.Entry(key: edit.key, row: edit.row, id: edit.id), at: low) }
      } else if present {
        merged.remove(at: low)
      }
      end += 1
    }
    if let pageKey { try txn.delete(index, pageKey) }
    var writer = OrderedPageWriter(segment: segment, field: slot, width: width, coversKeys: coversKeys)
    for entry in merged { writer.add(entry.key, row: entry.row, id: entry.id) }
    writer.flush()
    for (key, value) in writer.takePages() { try txn.put(index, key, value) }
    return max(end, start + 1)
  }
}
