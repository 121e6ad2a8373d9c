import LMDB

/// Joins adjacent segments — the last ones of the `indexes` database — into one that starts where
/// the first did. Each one's rows all come before the next one's, so each posting list of the
/// result is the first's parts followed by the next ones': parts are copied as they are stored,
/// but for the first row of each of the later segments' parts, written again against the new
/// start.
/// Small parts of one list are joined into one, by their bytes (`Pending`), so that a list merged
/// many times does not become a chain of tiny parts. Ordered entries merge as two sorted runs.
///
/// The merged pages are laid out in lanes, on every core: the trigram lists cut by key into
/// `trigramPieces`, the terms, and each ordered field. A bulk ingest folds on one thread, the
/// write transaction's, and merging was the largest part of it done on one core.
struct SegmentMerger {
  let index: Database
  let txn: WriteTransaction
  /// Whether the ordered pages carry keys (`SegmentDirectory.coversKeys`), read and written alike.
  let coversKeys: Bool
  /// Lanes the trigram lists are cut into, by key, of about equal counts of pages (of the input
  /// with the most): trigrams hold most of a segment's pages. Any count merges the same entries
  /// (tests vary it).
  var trigramPieces = ParallelMap.cores

  /// Parts smaller than this are joined with their neighbours of the same list.
  static let smallPart = 160

  /// One stored part of a posting list, pointing into the map (valid while the merge reads:
  /// it writes only once every part is read).
  struct Part {
    var key: UnsafeRawBufferPointer
    var segment: Row
    var entry: PostingPage.Entry
  }

  /// A page as the map holds it.
  typealias StoredPage = (key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer)

  /// A share of the merged segment laid out on its own: the entries of one kind whose keys lie
  /// in `lower ..< upper` (nil: unbounded), read from each input segment's pages that may hold
  /// them.
  struct Lane {
    var kind: IndexKind
    /// Per input segment, in order, its pages that may hold the lane's entries.
    var pages: [[StoredPage]]
    var lower: [UInt8]? = nil
    var upper: [UInt8]? = nil
  }

  /// Merges the consecutive segments starting at `starts` (ascending), the last of the index,
  /// into one that starts at the first.
  func merge(_ starts: [Row]) throws {
    guard starts.count > 1 else { return }
    // The pages are found here, on the write transaction's thread, and read by the lanes on
    // every core, this thread laying out a share itself: nothing writes until every lane is laid
    // out, so the pointers into the map (and into pages this transaction wrote) stay valid.
    let shared = MapShared((lanes: try lanes(of: starts), starts: starts))
    let coversKeys = self.coversKeys
    let laidOut = try ParallelMap.map(shared.value.lanes.count, minimumPerWorker: 1) { index in
      let (lanes, starts) = shared.value
      return lanes[index].kind == .ordered
        ? try Self.layOutOrdered(lanes[index], first: starts[0], coversKeys: coversKeys)
        : try Self.layOutPostings(lanes[index], starts: starts)
    }
    for segment in starts { try SegmentMerger.delete(segment: segment, in: index, txn) }
    // Lanes follow one another in key order, and so do their pages.
    for pages in laidOut {
      for (key, value) in pages { try txn.put(index, key, value, flags: .append) }
    }
  }

  /// The lanes of a merge of the segments at `starts`, in the order of their keys.
  func lanes(of starts: [Row]) throws -> [Lane] {
    var lanes = Self.split(
      try starts.map { try pages(of: $0, kind: .trigram) }, kind: .trigram, into: trigramPieces)
    lanes.append(Lane(kind: .term, pages: try starts.map { try pages(of: $0, kind: .term) }))
    // A field's ordered pages are one key range of each segment (their keys start with it).
    let ordered = try starts.map { try pages(of: $0, kind: .ordered) }
    let fields = Set(ordered.joined().map { IndexPageKey.field(of: $0.key) })
    for field in fields.sorted() {
      lanes.append(
        Lane(kind: .ordered, pages: ordered.map { $0.filter { IndexPageKey.field(of: $0.key) == field } }))
    }
    return lanes
  }

  /// One kind's lists cut by key into up to `pieces` lanes of about equal counts of pages (of the
  /// input with the most). A page's key names its first entry, so each segment gives a lane its
  /// pages that start in the lane's range and the one before them, which may end in it.
  static func split(_ pages: [[StoredPage]], kind: IndexKind, into pieces: Int) -> [Lane] {
    let largest = pages.max { $0.count < $1.count } ?? []
    let cuts = max(1, min(pieces, largest.count))
    var bounds: [[UInt8]] = []
    for piece in 1..<cuts {
      let key = Array(IndexPageKey.entryKey(of: largest[largest.count * piece / cuts].key))
      // A list that fills many pages gives several pages one key: one cut at most.
      if let last = bounds.last, key.withUnsafeBytes({ ByteOrder.compare($0, last) }) <= 0 { continue }
      bounds.append(key)
    }
    // How many of `pages` start before `key`: their first entries ascend.
    func startingBefore(_ key: [UInt8], _ pages: [StoredPage]) -> Int {
      var low = 0
      var high = pages.count
      while low < high {
        let middle = (low + high) / 2
        if ByteOrder.compare(IndexPageKey.entryKey(of: pages[middle].key), key) < 0 {
          low = middle + 1
        } else {
          high = middle
        }
      }
      return low
    }
    return (0...bounds.count).map { piece in
      let lower = piece > 0 ? bounds[piece - 1] : nil
      let upper = piece < bounds.count ? bounds[piece] : nil
      let lanePages = pages.map { segmentPages in
        let from = lower.map { max(0, startingBefore($0, segmentPages) - 1) } ?? 0
        let to = upper.map { startingBefore($0, segmentPages) } ?? segmentPages.count
        return Array(segmentPages[from..<max(from, to)])
      }
      return Lane(kind: kind, pages: lanePages, lower: lower, upper: upper)
    }
  }

  /// The merged pages of a lane of posting lists.
  static func layOutPostings(_ lane: Lane, starts: [Row]) throws -> [(key: [UInt8], value: [UInt8])] {
    let first = starts[0]
    let positional = lane.kind == .trigram
    let inputs = try zip(lane.pages, starts).map { try parts(of: $0, segment: $1, in: lane) }
    var cursors = [Int](repeating: 0, count: inputs.count)
    var writer = PostingPageWriter(segment: first, kind: lane.kind)
    var pending = Pending()
    var pages: [(key: [UInt8], value: [UInt8])] = []
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
      try add(part, to: &writer, pending: &pending, start: first, positional: positional)
      if writer.hasPages { pages.append(contentsOf: writer.takePages()) }
    }
    pending.flush(into: &writer)
    writer.flush()
    pages.append(contentsOf: writer.takePages())
    return pages
  }

  /// The merged pages of a lane of ordered entries: each segment's entries are one sorted run,
  /// merged two at a time.
  static func layOutOrdered(_ lane: Lane, first: Row, coversKeys: Bool) throws -> [(
    key: [UInt8], value: [UInt8]
  )] {
    var runs = try lane.pages.map { try orderedEntries(of: $0, coversKeys: coversKeys) }
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
    var pages: [(key: [UInt8], value: [UInt8])] = []
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
    return pages
  }

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

  /// Small parts of one list, joined by their bytes, waiting to be written as one part: each
  /// part's rows go on from the last row of the part before (only its first step is written
  /// again), its positions as stored (each row's end themselves). Decoding the parts into rows
  /// and positions and encoding them again was about a third of a bulk ingest's merging.
  struct Pending {
    var key: [UInt8] = []
    var firstRow: Row = 0
    var lastRow: Row = 0
    var rowCount = 0
    var rows: [UInt8] = []
    var positions: [UInt8] = []

    var isEmpty: Bool { rowCount == 0 }
    var byteCount: Int { rows.count + positions.count }

    /// Joins `part` (of `key`, past the rows joined so far) to the pending rows of the merged
    /// segment starting at `start`; its rows are checked as a decoding checks them (ascending,
    /// within 2^32, as many as its count says), its positions only for their number of rows, as a
    /// part copied whole is not checked at all.
    mutating func join(_ part: Part, start: Row, positional: Bool) throws {
      var reader = PageReader(part.entry.rows, at: 0)
      var row = UInt64(part.segment) + (try reader.varint())
      let rest = reader.offset
      guard row >= (isEmpty ? UInt64(start) : UInt64(lastRow) + 1), row <= UInt64(Row.max) else {
        throw PageDamage("a posting part starts at row \(row), before the rows ahead of it")
      }
      let first = Row(row)
      var count = 1
      while !reader.isAtEnd {
        let step = try reader.varint()
        guard step > 0 else { throw PageDamage("a posting list repeats a row") }
        row += step
        guard row <= UInt64(Row.max) else { throw PageDamage("a posting row past 2^32") }
        count += 1
      }
      guard count == part.entry.rowCount else {
        throw PageDamage("a posting part holds \(count) rows, not the \(part.entry.rowCount) it says")
      }
      if positional {
        // A byte below 0x80 ends a row's positions.
        let ends = part.entry.positions.reduce(0) { $0 + ($1 < 0x80 ? 1 : 0) }
        guard ends == count, part.entry.positions.last.map({ $0 < 0x80 }) ?? false else {
          throw PageDamage("a posting part's positions hold \(ends) rows, not \(count)")
        }
      }
      if isEmpty {
        firstRow = first
        PageBytes.appendVarint(UInt64(first - start), to: &rows)
      } else {
        PageBytes.appendVarint(UInt64(first - lastRow), to: &rows)
      }
      rows.append(contentsOf: UnsafeRawBufferPointer(rebasing: part.entry.rows[rest...]))
      positions.append(contentsOf: part.entry.positions)
      lastRow = Row(row)
      rowCount += count
    }

    mutating func flush(into writer: inout PostingPageWriter) {
      guard !isEmpty else { return }
      key.withUnsafeBytes { key in
        rows.withUnsafeBytes { rows in
          positions.withUnsafeBytes { positions in
            writer.addPart(key: key, firstRow: firstRow, rowCount: rowCount, rows: rows, positions: positions)
          }
        }
      }
      rowCount = 0
      rows.removeAll(keepingCapacity: true)
      positions.removeAll(keepingCapacity: true)
    }
  }

  /// Writes one part into the merged segment: a small one joins the pending parts of its list,
  /// a large one is copied (after the pending ones), its first row rebased on `start`.
  private static func add(
    _ part: Part, to writer: inout PostingPageWriter, pending: inout Pending, start: Row, positional: Bool
  ) throws {
    let key = part.key
    let size = part.entry.rows.count + part.entry.positions.count
    // Compared and kept without an array per part: most lists of a merge are short. A joined
    // part stays well within a page.
    if !pending.isEmpty
      && (pending.key.withUnsafeBytes({ ByteOrder.compare($0, key) }) != 0
        || pending.byteCount + size > PostingPage.capacity / 2)
    {
      pending.flush(into: &writer)
    }
    if size < Self.smallPart {
      if pending.isEmpty {
        pending.key.removeAll(keepingCapacity: true)
        pending.key.append(contentsOf: key)
      }
      try pending.join(part, start: start, positional: positional)
      return
    }
    pending.flush(into: &writer)
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

  /// `segment`'s pages of `kind`, in key order.
  func pages(of segment: Row, kind: IndexKind) throws -> [StoredPage] {
    try txn.withCursor(index) { cursor in
      var pages: [StoredPage] = []
      var page = try cursor.seek(atLeast: IndexPageKey.start(segment: segment, kind: kind))
      while let current = page, IndexPageKey.belongs(current.key, segment: segment, kind: kind) {
        pages.append((current.key, current.value))
        page = try cursor.next()
      }
      return pages
    }
  }

  /// The parts of `lane`'s keys in `pages` (of `segment`), in key order (and row order within a
  /// key).
  static func parts(of pages: [StoredPage], segment: Row, in lane: Lane) throws -> [Part] {
    var parts: [Part] = []
    for page in pages {
      let view = try PostingPage.View(page.value, positional: lane.kind == .trigram)
      // The lanes are cut by the keys of pages: a page whose key is not its first entry's would
      // give entries to the wrong lane, or to none.
      guard try ByteOrder.compare(view.key(0), IndexPageKey.entryKey(of: page.key)) == 0 else {
        throw PageDamage("a posting page whose key is not its first entry's")
      }
      for position in 0..<view.count {
        let entry = try view.entry(position)
        if let lower = lane.lower, ByteOrder.compare(entry.key, lower) < 0 { continue }
        if let upper = lane.upper, ByteOrder.compare(entry.key, upper) >= 0 { break }
        parts.append(Part(key: entry.key, segment: segment, entry: entry))
      }
    }
    return parts
  }

  /// Every ordered entry of `pages`, in order.
  static func orderedEntries(of pages: [StoredPage], coversKeys: Bool) throws -> [OrderedEntry] {
    var entries: [OrderedEntry] = []
    for page in pages {
      let width = IndexPageKey.orderedWidth(of: page.key)
      let field = IndexPageKey.field(of: page.key)
      var reader = try OrderedPage.Reader(
        pageKey: page.key, value: page.value, width: width, coversKeys: coversKeys)
      while let entry = try reader.next() {
        entries.append(OrderedEntry(field: field, key: entry.key, row: entry.row, width: width, id: entry.id))
      }
    }
    return entries
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
