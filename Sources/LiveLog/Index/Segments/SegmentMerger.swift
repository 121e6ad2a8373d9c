import LMDB

/// Joins two adjacent segments — the last two of the `index` database — into one that starts
/// where the first did. The first's rows all come before the second's, so each posting list of
/// the result is the first's list followed by the second's, and ordered entries merge as two
/// sorted runs.
struct SegmentMerger {
  let index: Database
  let txn: WriteTransaction

  /// One posting list of a segment, decoded: rows and, for trigrams, their positions.
  struct List {
    var key: [UInt8]
    var rows: [Row] = []
    var bounds: [Int] = [0]
    var positions: [UInt32] = []
  }

  func merge(_ first: Row, _ second: Row) throws {
    var pages: [(key: [UInt8], value: [UInt8])] = []
    for kind in [IndexKind.trigram, .term] {
      let a = try lists(of: first, kind: kind)
      let b = try lists(of: second, kind: kind)
      var writer = PostingPageWriter(segment: first, kind: kind)
      var i = 0
      var j = 0
      while i < a.count || j < b.count {
        let order = i == a.count ? 1 : j == b.count ? -1 : TextMatching.compare(a[i].key, b[j].key)
        var list: List
        if order < 0 {
          list = a[i]
          i += 1
        } else if order > 0 {
          list = b[j]
          j += 1
        } else {
          list = a[i]
          let offset = list.positions.count
          list.rows.append(contentsOf: b[j].rows)
          list.positions.append(contentsOf: b[j].positions)
          list.bounds.append(contentsOf: b[j].bounds.dropFirst().map { $0 + offset })
          i += 1
          j += 1
        }
        Self.write(list, kind: kind, to: &writer)
        pages.append(contentsOf: writer.takePages())
      }
      writer.flush()
      pages.append(contentsOf: writer.takePages())
    }
    let a = try orderedEntries(of: first)
    let b = try orderedEntries(of: second)
    var merged: [OrderedEntry] = []
    merged.reserveCapacity(a.count + b.count)
    var i = 0
    var j = 0
    while i < a.count || j < b.count {
      if j == b.count || (i < a.count && a[i] < b[j]) {
        merged.append(a[i])
        i += 1
      } else {
        merged.append(b[j])
        j += 1
      }
    }
    var start = 0
    while start < merged.count {
      let field = merged[start].field
      var writer = OrderedPageWriter(segment: first, field: field, width: Int(merged[start].width))
      while start < merged.count && merged[start].field == field {
        writer.add(merged[start].key, row: merged[start].row)
        start += 1
      }
      writer.flush()
      pages.append(contentsOf: writer.takePages())
    }
    try SegmentMerger.delete(segment: first, in: index, txn)
    try SegmentMerger.delete(segment: second, in: index, txn)
    for (key, value) in pages { try txn.put(index, key, value, flags: .append) }
  }

  static func write(_ list: List, kind: IndexKind, to writer: inout PostingPageWriter) {
    list.rows.withUnsafeBufferPointer { rows in
      list.bounds.withUnsafeBufferPointer { bounds in
        list.positions.withUnsafeBufferPointer { positions in
          writer.add(
            key: list.key,
            kind == .trigram
              ? PostingListSource(rows: rows, bounds: bounds, positions: positions)
              : PostingListSource(rows: rows))
        }
      }
    }
  }

  /// Every posting list of `segment`'s pages of `kind`, in key order.
  func lists(of segment: Row, kind: IndexKind) throws -> [List] {
    let positional = kind == .trigram
    return try txn.withCursor(index) { cursor in
      var lists: [List] = []
      var page = try cursor.seek(atLeast: IndexPageKey.start(segment: segment, kind: kind))
      var decoded: [Row] = []
      while let current = page, IndexPageKey.belongs(current.key, segment: segment, kind: kind) {
        let view = try PostingPage.View(current.value, positional: positional)
        for position in 0..<view.count {
          let entry = try view.entry(position)
          if lists.last.map({ ByteOrder.compare(entry.key, $0.key) != 0 }) ?? true {
            lists.append(List(key: Array(entry.key)))
          }
          let last = lists.count - 1
          if positional {
            for (row, positions) in try PostingPage.decode(entry, segment: segment, positional: true) {
              lists[last].rows.append(row)
              lists[last].positions.append(contentsOf: positions)
              lists[last].bounds.append(lists[last].positions.count)
            }
          } else {
            decoded.removeAll(keepingCapacity: true)
            try PostingPage.appendRows(of: entry, segment: segment, to: &decoded)
            lists[last].rows.append(contentsOf: decoded)
          }
        }
        page = try cursor.next()
      }
      return lists
    }
  }

  /// Every ordered entry of `segment`, in order.
  func orderedEntries(of segment: Row) throws -> [OrderedEntry] {
    try txn.withCursor(index) { cursor in
      var entries: [OrderedEntry] = []
      var page = try cursor.seek(atLeast: IndexPageKey.start(segment: segment, kind: .ordered))
      while let current = page, IndexPageKey.belongs(current.key, segment: segment, kind: .ordered) {
        let width = current.key.count - IndexPageKey.headerSize - IndexPageKey.rowSize - 1
        let field = current.key[IndexPageKey.headerSize]
        var reader = try OrderedPage.Reader(pageKey: current.key, value: current.value, width: width)
        while let (key, row) = try reader.next() {
          entries.append(OrderedEntry(field: field, key: key, row: row, width: width))
        }
        page = try cursor.next()
      }
      return entries
    }
  }

  /// Deletes every page of `segment`.
  static func delete(segment: Row, in index: Database, _ txn: WriteTransaction) throws {
    var start: [UInt8] = []
    IndexPageKey.appendBigEndian(segment, to: &start)
    try txn.withCursor(index) { cursor in
      var entry = try cursor.seek(atLeast: start)
      while let current = entry, current.key.count >= 4, IndexPageKey.bigEndian(current.key, at: 0) == segment {
        try cursor.deleteCurrent(in: txn)
        entry = try cursor.next()
      }
    }
  }
}
