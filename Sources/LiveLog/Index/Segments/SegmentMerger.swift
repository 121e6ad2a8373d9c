import LMDB

/// Joins adjacent segments — the last ones of the `index` database — into one that starts where
/// the first did. Each one's rows all come before the next one's, so each posting list of the
/// result is the first's parts followed by the next ones': parts are copied as they are stored,
/// but for the first row of each of the later segments' parts, written again against the new
/// start.
/// Small parts of one list are joined into one (decoded and encoded again), so that a list merged
/// many times does not become a chain of tiny parts. Ordered entries merge as two sorted runs.
struct SegmentMerger {
  let index: Database
  let txn: WriteTransaction
  /// Whether the ordered pages carry keys (`SegmentDirectory.coversKeys`), read and written alike.
  let coversKeys: Bool

  /// Parts smaller than this are joined with their neighbours of the same list.
  static let smallPart = 160

  /// One stored part of a posting list, pointing into the map (valid while the merge reads:
  /// it writes only once every part is read).
  struct Part {
    var key: UnsafeRawBufferPointer
    var segment: Row
    var entry: PostingPage.Entry
  }

  /// Merges the consecutive segments starting at `starts` (ascending), the last of the index,
  /// into one that starts at the first.
  func merge(_ starts: [Row]) throws {
    guard let first = starts.first, starts.count > 1 else { return }
    var pages: [(key: [UInt8], value: [UInt8])] = []
    for kind in [IndexKind.trigram, .term] {
      let inputs = try starts.map { try parts(of: $0, kind: kind) }
      var cursors = [Int](repeating: 0, count: inputs.count)
      var writer = PostingPageWriter(segment: first, kind: kind)
      var pending = Pending()
      while true {
        // The smallest key among the inputs' next parts; equal keys go in segment order.
        var best: Int?
        for input in inputs.indices where cursors[input] < inputs[input].count {
          if let current = best,
            ByteOrder.compare(inputs[input][cursors[input]].key, inputs[current][cursors[current]].key) >= 0
          {
            continue
          }
          best = input
        }
        guard let input = best else { break }
        let part = inputs[input][cursors[input]]
        cursors[input] += 1
        try add(part, to: &writer, pending: &pending, start: first, positional: kind == .trigram)
        if writer.hasPages { pages.append(contentsOf: writer.takePages()) }
      }
      pending.flush(into: &writer, positional: kind == .trigram)
      writer.flush()
      pages.append(contentsOf: writer.takePages())
    }
    // Each segment's entries are one sorted run: merged two at a time.
    var runs = try starts.map { try orderedEntries(of: $0) }
    while runs.count > 1 {
      var next: [[OrderedEntry]] = []
      var index = 0
      while index + 1 < runs.count {
        next.append(Self.merged(runs[index], runs[index + 1]))
        index += 2
      }
      if index < runs.count { next.append(runs[index]) }
      runs = next
    }
    let merged = runs.first ?? []
    var start = 0
    while start < merged.count {
      let field = merged[start].field
      var writer = OrderedPageWriter(
        segment: first, field: field, width: Int(merged[start].width), coversKeys: coversKeys)
      while start < merged.count && merged[start].field == field {
        writer.add(merged[start].key, row: merged[start].row, id: merged[start].id)
        start += 1
      }
      writer.flush()
      pages.append(contentsOf: writer.takePages())
    }
    for segment in starts { try SegmentMerger.delete(segment: segment, in: index, txn) }
    for (key, value) in pages { try txn.put(index, key, value, flags: .append) }
  }

  func merge(_ first: Row, _ second: Row) throws { try merge([first, second]) }

  /// Two sorted runs of ordered entries as one.
  static func merged(_ a: [OrderedEntry], _ b: [OrderedEntry]) -> [OrderedEntry] {
    var result: [OrderedEntry] = []
    result.reserveCapacity(a.count + b.count)
    var i = 0
    var j = 0
    while i < a.count || j < b.count {
      if j == b.count || (i < a.count && a[i] < b[j]) {
        result.append(a[i])
        i += 1
      } else {
        result.append(b[j])
        j += 1
      }
    }
    return result
  }

  /// Small parts of one list, decoded, waiting to be written as one.
  struct Pending {
    var key: [UInt8] = []
    var rows: [Row] = []
    var bounds: [Int] = [0]
    var positions: [UInt32] = []

    mutating func flush(into writer: inout PostingPageWriter, positional: Bool) {
      guard !rows.isEmpty else { return }
      SegmentMerger.write(
        key: key, rows: rows, bounds: bounds, positions: positions, positional: positional, to: &writer)
      rows.removeAll(keepingCapacity: true)
      bounds.removeAll(keepingCapacity: true)
      bounds.append(0)
      positions.removeAll(keepingCapacity: true)
    }
  }

  /// Writes one part into the merged segment: a small one joins the pending parts of its list,
  /// a large one is copied (after the pending ones), its first row rebased on `start`.
  private func add(
    _ part: Part, to writer: inout PostingPageWriter, pending: inout Pending, start: Row, positional: Bool
  ) throws {
    let key = Array(part.key)
    if !pending.rows.isEmpty && pending.key != key { pending.flush(into: &writer, positional: positional) }
    if part.entry.rows.count + part.entry.positions.count < Self.smallPart {
      pending.key = key
      try PostingPage.decode(
        part.entry, segment: part.segment, positional: positional, rows: &pending.rows,
        bounds: &pending.bounds,
        positions: &pending.positions)
      return
    }
    pending.flush(into: &writer, positional: positional)
    var reader = PageReader(part.entry.rows, at: 0)
    let firstRow = UInt64(part.segment) + (try reader.varint())
    guard firstRow >= UInt64(start), firstRow <= UInt64(Row.max) else {
      throw PageDamage("a posting part starts at row \(firstRow), before its segment")
    }
    if part.segment == start {
      writer.addPart(
        key: key, firstRow: Row(firstRow), rowCount: part.entry.rowCount, rows: part.entry.rows,
        positions: part.entry.positions)
      return
    }
    var rebased: [UInt8] = []
    rebased.reserveCapacity(part.entry.rows.count + 2)
    PageBytes.appendVarint(firstRow - UInt64(start), to: &rebased)
    rebased.append(contentsOf: UnsafeRawBufferPointer(rebasing: part.entry.rows[reader.offset...]))
    rebased.withUnsafeBytes {
      writer.addPart(
        key: key, firstRow: Row(firstRow), rowCount: part.entry.rowCount, rows: $0,
        positions: part.entry.positions)
    }
  }

  static func write(
    key: [UInt8], rows: [Row], bounds: [Int], positions: [UInt32], positional: Bool,
    to writer: inout PostingPageWriter
  ) {
    rows.withUnsafeBufferPointer { r in
      bounds.withUnsafeBufferPointer { b in
        positions.withUnsafeBufferPointer { p in
          writer.add(
            key: key,
            positional ? PostingListSource(rows: r, bounds: b, positions: p) : PostingListSource(rows: r))
        }
      }
    }
  }

  /// Every part of `segment`'s pages of `kind`, in key order (and row order within a key).
  func parts(of segment: Row, kind: IndexKind) throws -> [Part] {
    try txn.withCursor(index) { cursor in
      var parts: [Part] = []
      var page = try cursor.seek(atLeast: IndexPageKey.start(segment: segment, kind: kind))
      while let current = page, IndexPageKey.belongs(current.key, segment: segment, kind: kind) {
        let view = try PostingPage.View(current.value, positional: kind == .trigram)
        for position in 0..<view.count {
          let entry = try view.entry(position)
          parts.append(Part(key: entry.key, segment: segment, entry: entry))
        }
        page = try cursor.next()
      }
      return parts
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
        var reader = try OrderedPage.Reader(
          pageKey: current.key, value: current.value, width: width, coversKeys: coversKeys)
        while let entry = try reader.next() {
          entries.append(
            OrderedEntry(field: field, key: entry.key, row: entry.row, width: width, id: entry.id))
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
      while let current = entry, current.key.count >= 4, IndexPageKey.bigEndian(current.key, at: 0) == segment
      {
        try cursor.deleteCurrent(in: txn)
        entry = try cursor.next()
      }
    }
  }
}
