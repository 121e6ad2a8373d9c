import Foundation
import LMDB

extension StateContent {
  /// Per row of a collection, the wrapping sum of its index entries' hashes (a trigram entry's
  /// postings' hashes, `IndexEntry.fingerprint`): two stores whose pages read without damage
  /// (each row's postings of a trigram in one entry, which `IndexVisit` checks) hold the same index
  /// entries exactly when their fingerprints agree row by row (up to hash collisions), and the
  /// first row where they do not is the first difference. One word per row, since the
  /// entries of a trigram visit rows in no cache-friendly order; or, for a digest, which needs only
  /// the sum of them all, no word per row at all (`byRow` false): adding each entry to its row's
  /// word costs a cache miss almost every time.
  struct IndexFingerprints: Sendable {
    /// Whether the sums are kept row by row, which `firstDifferingRow` needs.
    let byRow: Bool
    /// The sums of rows `base ..< base + sums.count`: a part of an index read on its own
    /// (`indexFingerprints`) starts at its first segment, so that the parts' arrays together are
    /// about as long as the rows, not one each.
    private var sums: [UInt64] = []
    private var base = 0
    /// The sum of every entry's hash (which no order changes).
    private(set) var sum: UInt64 = 0
    /// Entries as `IndexEntry.fingerprint` counts them: a trigram entry as its positions.
    private(set) var entries = 0

    /// Fingerprints of no entries, of rows from `base` on (or below, which costs a copy).
    init(base: Row = 0, byRow: Bool = true) {
      self.base = Int(base)
      self.byRow = byRow
    }

    /// Adds `entries` entries of `row` whose hashes, each with its low bit set (so that an entry
    /// whose hash is 0 still changes its row's sum), sum to `sum`: `IndexEntry.fingerprint`.
    mutating func add(sum: UInt64, entries: Int, row: Row) {
      self.sum &+= sum
      self.entries += entries
      guard byRow else { return }
      var index = Int(row) - base
      if index < 0 {
        // Only from a damaged page (rows lie at or past their segment's start): still counted.
        sums.insert(contentsOf: repeatElement(0, count: -index), at: 0)
        base = Int(row)
        index = 0
      }
      if index >= sums.count {
        // Rows are dense, so the array grows to the row count and no further.
        sums.append(contentsOf: repeatElement(0, count: max(index + 1, sums.count * 2, 1024) - sums.count))
      }
      sums[index] &+= sum
    }

    /// Adds `other`'s entries: the fingerprints of both sets of entries together.
    mutating func merge(_ other: IndexFingerprints) {
      precondition(byRow == other.byRow, "fingerprints by row merged with totals")
      guard byRow else {
        sum &+= other.sum
        entries += other.entries
        return
      }
      for (index, sum) in other.sums.enumerated() where sum != 0 {
        add(sum: sum, entries: 0, row: Row(other.base + index))
      }
      entries += other.entries
    }

    /// The sum of the hashes of `row`'s entries (fingerprints by row only).
    func sum(ofRow row: Int) -> UInt64 {
      assert(byRow, "the sum of a row of fingerprints kept in total")
      return row >= base && row - base < sums.count ? sums[row - base] : 0
    }

    /// The first row whose entries differ between the two, both kept by row.
    func firstDifferingRow(from other: Self) -> Row? {
      precondition(byRow && other.byRow, "the first differing row of fingerprints kept in total")
      let start = min(base, other.base)
      let end = max(base + sums.count, other.base + other.sums.count)
      for row in start..<max(start, end) where sum(ofRow: row) != other.sum(ofRow: row) {
        return Row(row)
      }
      return nil
    }
  }

  /// The fingerprints of `collection`'s index, row by row or in total (`byRow`). The pages are read
  /// on every core, each part summed on its own; fingerprints are sums, so the parts add up to the
  /// whole.
  static func indexFingerprints(
    of collection: StoredCollection, byRow: Bool, _ txn: some ReadableTransaction
  ) throws -> IndexFingerprints {
    let visit = try IndexVisit(collection, txn, onlyRow: nil)
    // A store without columns (format 7, read-only) is read as if they agreed with its index.
    let copiesOrdered = collection.databases.columns == nil
    var pages: [(key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer)] = []
    try txn.withCursor(collection.databases.index) { cursor in
      var entry = try cursor.first()
      while let page = entry {
        pages.append((page.key, page.value))
        entry = try cursor.next()
      }
    }
    let shared = MapShared((visit: visit, pages: pages))
    let shares = try ParallelMap.mapParts(pages.count, minimum: 64) { part in
      let (visit, pages) = shared.value
      var fingerprints = IndexFingerprints(
        base: part.isEmpty || !IndexPageKey.isWellFormed(pages[part.lowerBound].key)
          ? 0 : IndexPageKey.segment(of: pages[part.lowerBound].key), byRow: byRow)
      var scratch = IndexVisit.Scratch()
      var coveredKeys: UInt64 = 0
      for index in part {
        coveredKeys &+= try visit.visitPage(key: pages[index].key, value: pages[index].value, &scratch) {
          kind, key, row, positions in
          let (sum, entries) = IndexEntry.fingerprint(kind, key, row, positions)
          fingerprints.add(sum: sum, entries: entries, row: row)
          if copiesOrdered && kind == .ordered {
            fingerprints.add(sum: IndexEntry.columnCopy(ofOrdered: sum), entries: 1, row: row)
          }
        }
      }
      return (fingerprints, coveredKeys, scratch.first, scratch.last)
    }
    var fingerprints = IndexFingerprints(byRow: byRow)
    var coveredKeys: UInt64 = 0
    // Each share checked its own lists' parts; where a list runs on from one share into the next,
    // the two ends meet here.
    var previousEnd: IndexVisit.ListEnd?
    for (share, covered, first, last) in shares {
      fingerprints.merge(share)
      coveredKeys &+= covered
      do {
        try IndexVisit.checkContinuity(previousEnd, first)
      } catch {
        throw collection.damaged("the index", error)
      }
      previousEnd = last ?? previousEnd
    }
    try visit.finish(coveredKeys: coveredKeys, txn) { kind, key, row, positions in
      let (sum, entries) = IndexEntry.fingerprint(kind, key, row, positions)
      fingerprints.add(sum: sum, entries: entries, row: row)
      // A recent row's entry stands for its columns too.
      if kind == .ordered {
        fingerprints.add(sum: IndexEntry.columnCopy(ofOrdered: sum), entries: 1, row: row)
      }
    }
    if let columns = collection.orderedColumns {
      fingerprints.merge(try columnFingerprints(of: collection, columns, byRow: byRow, txn))
    }
    return fingerprints
  }

  /// The fingerprints of `collection`'s ordered columns, each key as `columnCopy(ofOrdered:)` of
  /// the entry its ordered index holds for it, but for the rows of the recent rows, whose entries
  /// stand for both (`IndexVisit`). Blocks are read on every core, as pages are.
  private static func columnFingerprints(
    of collection: StoredCollection, _ columns: OrderedColumns, byRow: Bool, _ txn: some ReadableTransaction
  ) throws -> IndexFingerprints {
    let recent = try RecentRows.load(collection, txn)
    // A block past the collection's rows is damage, and would make the fingerprints by row as long
    // as its row.
    let end = try collection.nextRow(txn)
    var blocks: [(key: UInt64, value: UnsafeRawBufferPointer)] = []
    try txn.withCursor(columns.database) { cursor in
      var entry = try cursor.first()
      while let current = entry {
        guard let key = current.integerKey else {
          throw collection.damaged("the ordered columns", PageDamage("a key of \(current.key.count) bytes"))
        }
        guard OrderedColumns.firstRow(ofKey: key) < end else {
          throw collection.damaged(
            "the ordered columns",
            PageDamage("a block of rows from \(OrderedColumns.firstRow(ofKey: key)), past the last"))
        }
        blocks.append((key, current.value))
        entry = try cursor.next()
      }
    }
    let widths = collection.orderedWidths
    let shared = MapShared((blocks: blocks, recent: recent))
    let shares = try ParallelMap.mapParts(blocks.count, minimum: 256) { part in
      let (blocks, recent) = shared.value
      var fingerprints = IndexFingerprints(
        base: part.isEmpty
          ? 0 : Row(truncatingIfNeeded: OrderedColumns.firstRow(ofKey: blocks[part.lowerBound].key)),
        byRow: byRow)
      for index in part {
        let (key, value) = blocks[index]
        let slot = OrderedColumns.slot(ofKey: key)
        let first = Row(truncatingIfNeeded: OrderedColumns.firstRow(ofKey: key))
        let width = widths[Int(slot)]
        let block: OrderedColumnBlock
        do {
          block = try OrderedColumnBlock(value)
        } catch {
          throw collection.damaged("the ordered columns", error)
        }
        block.forEach { bit, orderedKey in
          let row = first + Row(bit)
          // A recent row's columns are its entry's, which the index's fingerprints count twice.
          guard recent.entry(of: row) == nil else { return }
          let hash =
            orderedKey.withBytes(field: slot, width: width) {
              IndexEntry.hash(.ordered, $0, row, EmptyCollection())
            } | 1
          fingerprints.add(sum: IndexEntry.columnCopy(ofOrdered: hash), entries: 1, row: row)
        }
      }
      return fingerprints
    }
    var fingerprints = IndexFingerprints(byRow: byRow)
    for share in shares { fingerprints.merge(share) }
    return fingerprints
  }

  /// Buffers `fingerprint(ofRecord:schema:row:_:)` reuses from one record to the next.
  struct FingerprintScratch {
    var terms: [UInt64] = []
    var term: [UInt8] = []
  }

  /// The sum of the hashes (as `IndexEntry.fingerprint` gives them) of the entries an index
  /// built from the encoded record `bytes` under `schema` holds for it at `row`, and their number
  /// (as `IndexEntry.fingerprint` counts them): one per trigram posting, one per distinct term,
  /// two per ordered value (its entry and its copy in the ordered columns). What
  /// `indexFingerprints` reads for that row, computed without building the index.
  ///
  /// The record is read in place (`IndexEntries.forEach(inRecord:schema:scratch:into:)`), checked
  /// as decoding checks what it reads; a verification has checked every event's record whole
  /// besides.
  static func fingerprint(
    ofRecord bytes: UnsafeRawBufferPointer, schema: CollectionSchema, row: Row,
    _ scratch: inout FingerprintScratch
  ) throws(MalformedBytes) -> (sum: UInt64, entries: Int) {
    var sums = EntrySums(row: row, scratch: &scratch)
    // The buffer a term is built in, apart from the sums that take it.
    var term: [UInt8] = []
    swap(&term, &scratch.term)
    defer {
      sums.giveBack(to: &scratch)
      swap(&term, &scratch.term)
    }
    try IndexEntries.forEach(inRecord: bytes, schema: schema, scratch: &term, into: &sums)
    return sums.total()
  }

  /// The hashes of one row's entries, summed as `IndexEntries.forEach` lists them.
  private struct EntrySums: IndexEntrySink {
    let row: Row
    let seed: UInt64
    var sum: UInt64 = 0
    var count = 0
    /// The terms' hashes, summed once each at the end (a list may repeat a term).
    var terms: [UInt64]

    /// Sums for `row`, with its buffers taken out of `scratch` (and put back by `giveBack(to:)`).
    init(row: Row, scratch: inout FingerprintScratch) {
      self.row = row
      seed = IndexEntry.rowSeed(row)
      terms = []
      swap(&terms, &scratch.terms)
      terms.removeAll(keepingCapacity: true)
    }

    mutating func giveBack(to scratch: inout FingerprintScratch) {
      swap(&terms, &scratch.terms)
    }

    mutating func trigram(_ posting: UInt64) {
      sum &+= IndexEntry.trigramPosting(posting, seed: seed)
      count += 1
    }

    // A term's hash covers its bytes, so equal hashes are a repeated term (a list's).
    mutating func term(_ prefix: UnsafeRawBufferPointer) {
      terms.append(IndexEntry.hash(.term, prefix, row, Self.none) | 1)
    }

    mutating func ordered(_ entry: OrderedEntry) {
      let row = self.row
      let hash =
        entry.key.withBytes(field: entry.field, width: Int(entry.width)) {
          IndexEntry.hash(.ordered, $0, row, Self.none)
        } | 1
      sum &+= hash &+ IndexEntry.columnCopy(ofOrdered: hash)
      count += 2
    }

    mutating func total() -> (sum: UInt64, entries: Int) {
      if terms.count > 1 { terms.sort() }
      for (index, hash) in terms.enumerated() where index == 0 || terms[index - 1] != hash {
        sum &+= hash
        count += 1
      }
      return (sum, count)
    }

    private static var none: UnsafeBufferPointer<UInt32> { UnsafeBufferPointer(start: nil, count: 0) }
  }
}
