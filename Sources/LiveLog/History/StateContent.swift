import LMDB

/// A store's state read as what it holds rather than how it is laid out, for digests and
/// comparisons: a store that grew commit by commit and its replay hold the same records, keys and
/// index entries, in different segments, pages and recent rows.
///
/// Each collection reads as three tables:
/// - `NAME.keys`: the keys database, entry for entry (its layout is its content);
/// - `NAME.rows`: every row holding a record, ascending, with the LSN of its version and its key
///   (the row table with the recent rows on top);
/// - `NAME.indexes`: every index entry — a trigram of a row at each of its positions (a posting), a
///   term of a row, an ordered value of a row, and again that value by row (the ordered columns) —
///   whichever segment, page, column block or recent row holds it.
///   Entries come in no particular order, so the table's digest is a sum of their hashes; that a
///   row's postings of one trigram form one entry is checked as the pages are read (`IndexVisit`).
enum StateContent {
  /// One index entry, as the digest hashes it.
  struct IndexEntry {
    var kind: IndexKind
    var key: [UInt8]
    var row: Row
    var positions: [UInt32]

    var hash: UInt64 {
      key.withUnsafeBytes { key in
        positions.withUnsafeBufferPointer { Self.hash(kind, key, row, $0) }
      }
    }

    /// What one entry adds to a fingerprint (`IndexFingerprints`): the sum of its hashes, each
    /// with its low bit set, and how many it counts for. A trigram entry counts as its postings, one
    /// per position, each hashed on its own (`trigramPosting`): a record's postings can then be
    /// summed as they are listed, without being sorted and grouped by code, which took most of
    /// a verification's fingerprinting. Any other entry (and a trigram entry without positions or
    /// with a key of another length, which only damage makes) counts as one.
    static func fingerprint(
      _ kind: IndexKind, _ key: UnsafeRawBufferPointer, _ row: Row, _ positions: UnsafeBufferPointer<UInt32>
    ) -> (sum: UInt64, entries: Int) {
      guard kind == .trigram, key.count == 4, !positions.isEmpty else {
        return (hash(kind, key, row, positions) | 1, 1)
      }
      let code = UInt64(UInt32(bigEndian: key.loadUnaligned(as: UInt32.self)))
      let seed = rowSeed(row)
      var sum: UInt64 = 0
      for position in positions { sum &+= trigramPosting(code << 32 | UInt64(position), seed: seed) }
      return (sum, positions.count)
    }

    /// The hash of one trigram posting `code << 32 | position` (as `TrigramPostings` lists them) of
    /// the row whose `rowSeed` is `seed`, with its low bit set.
    @inline(__always)
    static func trigramPosting(_ posting: UInt64, seed: UInt64) -> UInt64 {
      mix(posting ^ seed) | 1
    }

    /// A row's part of its trigram postings' hashes, computed once per row rather than per posting.
    @inline(__always)
    static func rowSeed(_ row: Row) -> UInt64 { mix(UInt64(row) ^ 0x5851_F42D_4C95_7F2D) }

    /// What the ordered columns' copy of an ordered entry (`OrderedColumns`) adds to a
    /// fingerprint, from the entry's own hash (`fingerprint` of it): both copies count, so a column
    /// that disagrees with the records shows as a difference of the index.
    @inline(__always)
    static func columnCopy(ofOrdered hash: UInt64) -> UInt64 { mix(hash ^ 0x2545_F491_4F6C_DD1D) | 1 }

    /// A 64-bit finalizer (every input bit changes each output bit with probability about one half):
    /// sums of its values, unlike sums of the raw postings, do not cancel out in structured ways.
    @inline(__always)
    private static func mix(_ value: UInt64) -> UInt64 {
      var x = value
      x ^= x >> 33
      x &*= 0xFF51_AFD7_ED55_8CCD
      x ^= x >> 33
      x &*= 0xC4CE_B9FE_1A85_EC53
      x ^= x >> 33
      return x
    }

    /// The hash of one entry, from the bytes it is read from (no entry is built for it).
    static func hash(
      _ kind: IndexKind, _ key: UnsafeRawBufferPointer, _ row: Row, _ positions: some Collection<UInt32>
    ) -> UInt64 {
      var hasher = DigestHasher()
      hasher.combine(UInt64(kind.rawValue))
      hasher.combine(key)
      hasher.combine(UInt64(row))
      hasher.combine(UInt64(positions.count))
      for position in positions { hasher.combine(UInt64(position)) }
      return hasher.value
    }

    /// For people: "trigram 'abc' of full_name at row 12", "term … of language at row 3".
    func describe(_ schema: CollectionSchema) -> String {
      let field = { (slot: UInt8) in schema.field(atSlot: Int(slot))?.name ?? "slot \(slot)" }
      switch kind {
      case .trigram:
        guard key.count == 4 else { return "a trigram entry at row \(row)" }
        if key[1...] == [0xFF, 0xFF, 0xFF] { return "the [d]-fold marker of \(field(key[0])) at row \(row)" }
        return "trigram '\(String(decoding: key[1...], as: UTF8.self))' of \(field(key[0])) at row \(row)"
          + " (positions \(positions.map(String.init).joined(separator: ",")))"
      case .term:
        guard let slot = key.first else { return "a term entry at row \(row)" }
        return "term \(key.dropFirst().map { String($0, radix: 16) }.joined(separator: " ")) of "
          + "\(field(slot)) at row \(row)"
      case .ordered:
        guard let slot = key.first else { return "an ordered entry at row \(row)" }
        return "ordered value \(key.dropFirst().map { String($0, radix: 16) }.joined(separator: " ")) of "
          + "\(field(slot)) at row \(row)"
      }
    }
  }

  /// Calls `body` with every index entry of `collection` (in no particular order); `onlyRow`,
  /// when given, limits them to that row.
  static func forEachIndexEntry(
    of collection: StoredCollection, _ txn: some ReadableTransaction, onlyRow: Row? = nil,
    _ body: (IndexEntry) throws -> Void
  ) throws {
    try visitIndexEntries(of: collection, txn, onlyRow: onlyRow) { kind, key, row, positions in
      try body(IndexEntry(kind: kind, key: Array(key), row: row, positions: Array(positions)))
    }
  }

  /// Every index entry as the bytes it is read from, valid only during the call: a digest of a
  /// million-record store visits tens of millions of entries, too many to build one each.
  static func visitIndexEntries(
    of collection: StoredCollection, _ txn: some ReadableTransaction, onlyRow: Row?,
    _ body: (IndexKind, UnsafeRawBufferPointer, Row, UnsafeBufferPointer<UInt32>) throws -> Void
  ) throws {
    let visit = try IndexVisit(collection, txn, onlyRow: onlyRow)
    var scratch = IndexVisit.Scratch()
    var coveredKeys: UInt64 = 0
    try txn.withCursor(collection.databases.index) { cursor in
      var entry = try cursor.first()
      while let page = entry {
        coveredKeys &+= try visit.visitPage(key: page.key, value: page.value, &scratch, body)
        entry = try cursor.next()
      }
    }
    try visit.finish(coveredKeys: coveredKeys, txn, body)
  }

  /// One visit of a collection's index entries: the pages, one by one (on any thread, in any
  /// order), then the recent rows and the check of the keys the pages carry.
  struct IndexVisit {
    let collection: StoredCollection
    let recent: RecentRows
    let coversKeys: Bool
    let onlyRow: Row?
    /// Rows a recent entry holds: their entries in pages are stale.
    let shadowed: Set<Row>
    /// The rows of each segment, by its start: a page holds only its segment's rows.
    let segmentRows: [Row: Range<Row>]

    init(_ collection: StoredCollection, _ txn: some ReadableTransaction, onlyRow: Row?) throws {
      self.collection = collection
      recent = try RecentRows.load(collection, txn)
      let directory = try collection.directory(txn)
      coversKeys = directory.coversKeys
      segmentRows = Dictionary(
        directory.starts.indices.map { (directory.starts[$0], directory.rows(of: $0)) },
        uniquingKeysWith: { first, _ in first })
      self.onlyRow = onlyRow
      shadowed = Set(recent.rows)
    }

    /// Buffers one page's decoding reuses, and the ends of the posting lists seen so far.
    struct Scratch {
      var rows: [Row] = []
      var bounds: [Int] = []
      var positions: [UInt32] = []
      /// The first part these pages hold, and the last one's last row.
      var first: ListEnd?
      var last: ListEnd?
    }

    /// Where a run of pages starts or ends within a posting list: the list's segment, kind and key,
    /// and the first or last row there.
    struct ListEnd: Sendable {
      var segment: Row
      var kind: IndexKind
      var key: [UInt8]
      var row: Row

      func isSameList(as other: ListEnd) -> Bool {
        segment == other.segment && kind == other.kind && key == other.key
      }
    }

    /// Throws when the pages of two runs read one after the other (`earlier` ending where `later`
    /// starts) repeat a row of one list, as `visitPage` checks within a run.
    static func checkContinuity(_ earlier: ListEnd?, _ later: ListEnd?) throws(PageDamage) {
      guard let earlier, let later, earlier.isSameList(as: later), later.row <= earlier.row else { return }
      throw PageDamage(
        "a list's part starts at row \(later.row), not after the row \(earlier.row) it follows")
    }

    func isVisited(_ row: Row) -> Bool {
      (onlyRow == nil || onlyRow == row) && (shadowed.isEmpty || !shadowed.contains(row))
    }

    /// Calls `body` with the entries of one page of the index; returns the sum of the (row, key)
    /// hashes of the keys its ordered entries carry.
    func visitPage(
      key pageKey: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer, _ scratch: inout Scratch,
      _ body: (IndexKind, UnsafeRawBufferPointer, Row, UnsafeBufferPointer<UInt32>) throws -> Void
    ) throws -> UInt64 {
      do {
        return try visit(pageKey, value, &scratch, body)
      } catch let damage as PageDamage {
        throw collection.damaged("the index", damage)
      }
    }

    private func visit(
      _ pageKey: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer, _ scratch: inout Scratch,
      _ body: (IndexKind, UnsafeRawBufferPointer, Row, UnsafeBufferPointer<UInt32>) throws -> Void
    ) throws -> UInt64 {
      guard IndexPageKey.isWellFormed(pageKey), let kind = IndexPageKey.kind(of: pageKey) else {
        throw PageDamage("a page key of \(pageKey.count) bytes")
      }
      let segment = IndexPageKey.segment(of: pageKey)
      var coveredKeys: UInt64 = 0
      switch kind {
      case .trigram, .term:
        let positional = kind == .trigram
        let view = try PostingPage.View(value, positional: positional)
        for index in 0..<view.count {
          let part = try view.entry(index)
          scratch.rows.removeAll(keepingCapacity: true)
          scratch.bounds.removeAll(keepingCapacity: true)
          scratch.bounds.append(0)
          scratch.positions.removeAll(keepingCapacity: true)
          try PostingPage.decode(
            part, segment: segment, positional: positional, rows: &scratch.rows, bounds: &scratch.bounds,
            positions: &scratch.positions)
          try checkPlace(of: scratch.rows, kind: kind, key: part.key, segment: segment, &scratch)
          let (rows, bounds) = (scratch.rows, scratch.bounds)
          try scratch.positions.withUnsafeBufferPointer { all in
            for (index, row) in rows.enumerated() where isVisited(row) {
              let own =
                positional
                ? UnsafeBufferPointer(rebasing: all[bounds[index]..<bounds[index + 1]])
                : UnsafeBufferPointer(start: nil, count: 0)
              try body(kind, part.key, row, own)
            }
          }
        }
      case .ordered:
        let width = IndexPageKey.orderedWidth(of: pageKey)
        let slot = IndexPageKey.field(of: pageKey)
        var reader = try OrderedPage.Reader(
          pageKey: pageKey, value: value, width: width, coversKeys: coversKeys)
        while let entry = try reader.next() {
          guard isVisited(entry.row) else { continue }
          coveredKeys &+= StateContent.coverHash(entry.row, entry.id)
          try entry.key.withBytes(field: slot, width: width) {
            try body(.ordered, $0, entry.row, UnsafeBufferPointer(start: nil, count: 0))
          }
        }
      }
      return coveredKeys
    }

    /// Checks that a posting list part's rows lie in its segment and come after the rows of the
    /// list's previous part, and notes the part as the last one seen. Parts split a list between
    /// rows, never within a row's positions, so a row in two parts of its list, or in two segments,
    /// is damage: the fingerprints, which sum postings, would not see it, and a reader that steps
    /// from part to part would skip it.
    private func checkPlace(
      of rows: [Row], kind: IndexKind, key: UnsafeRawBufferPointer, segment: Row, _ scratch: inout Scratch
    ) throws(PageDamage) {
      guard let firstRow = rows.first, let lastRow = rows.last else { return }
      if let range = segmentRows[segment], !range.contains(firstRow) || !range.contains(lastRow) {
        throw PageDamage(
          "a list holds row \(range.contains(firstRow) ? lastRow : firstRow), outside its segment's rows "
            + "\(range.lowerBound)..<\(range.upperBound)")
      }
      if let last = scratch.last, last.segment == segment, last.kind == kind, last.key.elementsEqual(key) {
        try Self.checkContinuity(last, ListEnd(segment: segment, kind: kind, key: last.key, row: firstRow))
        scratch.last?.row = lastRow
        return
      }
      if scratch.first == nil {
        scratch.first = ListEnd(segment: segment, kind: kind, key: Array(key), row: firstRow)
      }
      // The previous list's end is written over, its key's buffer kept: a new array per list was
      // a thirtieth of a verification's CPU.
      var end = scratch.last ?? ListEnd(segment: segment, kind: kind, key: [], row: lastRow)
      scratch.last = nil
      end.segment = segment
      end.kind = kind
      end.key.replaceSubrange(end.key.indices, with: key)
      end.row = lastRow
      scratch.last = end
    }

    /// Checks `coveredKeys`, the pages' sum, against the row table, and calls `body` with the
    /// entries of the recent rows.
    func finish(
      coveredKeys: UInt64, _ txn: some ReadableTransaction,
      _ body: (IndexKind, UnsafeRawBufferPointer, Row, UnsafeBufferPointer<UInt32>) throws -> Void
    ) throws {
      if coversKeys && onlyRow == nil {
        try StateContent.checkCoveredKeys(coveredKeys, of: collection, shadowed: shadowed, txn)
      }
      let none = UnsafeBufferPointer<UInt32>(start: nil, count: 0)
      var key: [UInt8] = []
      let width = collection.orderedWidths
      for (row, view) in zip(recent.rows, recent.entries) where !view.isDeleted {
        guard onlyRow == nil || onlyRow == row else { continue }
        // What the recent row holds: its codes (with the positions its record gives them, since it
        // keeps none), terms and ordered values. A code, term or value it lacks or holds wrongly
        // reads differently from the entries a replay builds; a filter, which lists no codes, is
        // compared with the one its record makes instead.
        let record = try collection.entries(
          of: try collection.record(at: UInt64(row), lsn: view.lsn, txn), row: UInt64(row))
        var codePositions: [UInt32: [UInt32]] = [:]
        for posting in record.trigrams {
          codePositions[UInt32(truncatingIfNeeded: posting >> 32), default: []].append(
            UInt32(truncatingIfNeeded: posting))
        }
        let codes: [UInt32]
        if let filter = view.trigramFilter {
          guard filter.elementsEqual(TrigramFilter.filter(of: record.trigrams)) else {
            throw collection.damaged(
              "the recent rows", PageDamage("row \(row)'s trigram filter is not the one its record makes"))
          }
          codes = Array(codePositions.keys)
        } else {
          codes = (0..<view.trigramCount).map { view.code($0) }
        }
        for code in codes {
          try IndexKeys.trigramPrefix(code).withUnsafeBytes { key in
            try (codePositions[code] ?? []).withUnsafeBufferPointer { try body(.trigram, key, row, $0) }
          }
        }
        try view.forEachTerm { term in
          try body(.term, UnsafeRawBufferPointer(term), row, none)
        }
        for index in 0..<view.orderedCount {
          let slot = view.orderedField(index)
          guard let value = view.orderedKey(field: slot) else { continue }
          key.removeAll(keepingCapacity: true)
          key.append(slot)
          value.append(to: &key, width: width[Int(slot)])
          try key.withUnsafeBytes { try body(.ordered, $0, row, none) }
        }
      }
    }
  }

  static func coverHash(_ row: Row, _ id: Int64) -> UInt64 {
    var hasher = DigestHasher()
    hasher.combine(UInt64(row))
    hasher.combine(UInt64(bitPattern: id))
    return hasher.value
  }

  /// Checks the keys that covering ordered pages carry (`sum`, of the rows not `shadowed` by a
  /// recent entry) against the row table: each such row files one entry per ordered field, each
  /// with the row's key. Entries are otherwise read as (field, value, row) alone, so without
  /// this a wrong key in a page would reach `ids()` unseen by verify.
  static func checkCoveredKeys(
    _ sum: UInt64, of collection: StoredCollection, shadowed: Set<Row>, _ txn: some ReadableTransaction
  ) throws {
    let perRow = UInt64(OrderedColumns.orderedFields(of: collection.schema).count)
    var expected: UInt64 = 0
    do {
      try collection.rowTable.forEachBlock(txn) { block in
        try block.forEach { row, _, key in
          if key.count == 8 && !shadowed.contains(row) {
            expected &+= perRow &* coverHash(row, key.loadUnaligned(as: Int64.self))
          }
          return true
        }
        return true
      }
    } catch let damage as PageDamage {
      throw collection.damaged("the row table", damage)
    }
    guard expected == sum else {
      throw StoreError.corruptState(
        reason: "\(collection.name): the keys its ordered index carries disagree with its row table;"
          + " `livelog replay --in-place` rebuilds the state from the log")
    }
  }

  /// Calls `body` with every row holding a record, ascending, with its version's LSN and its key.
  static func forEachRow(
    of collection: StoredCollection, _ txn: some ReadableTransaction,
    _ body: (Row, UInt64, UnsafeRawBufferPointer) throws -> Void
  ) throws {
    let recent = try RecentRows.load(collection, txn)
    var next = 0
    func flushRecent(before row: Row?) throws {
      while next < recent.rows.count && row.map({ recent.rows[next] < $0 }) ?? true {
        let entry = recent.entries[next]
        if !entry.isDeleted { try body(recent.rows[next], entry.lsn, entry.key) }
        next += 1
      }
    }
    do {
      try collection.rowTable.forEachBlock(txn) { block in
        try block.forEach { row, lsn, key in
          try flushRecent(before: row)
          if recent.entry(of: row) == nil { try body(row, lsn, key) }
          return true
        }
        return true
      }
    } catch let damage as PageDamage {
      throw collection.damaged("the row table", damage)
    }
    try flushRecent(before: nil)
  }
}
