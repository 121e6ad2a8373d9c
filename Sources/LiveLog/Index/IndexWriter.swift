import LMDB

/// The indexes' databases, and the changes one commit makes to them.
///
/// The materializer reports each record's entries before and after the commit; the writer keeps
/// only the differences, grouped by key, and writes them when the commit is complete — one
/// read-modify-write per touched posting block, however many records share a term.
struct IndexWriter {
  let trigrams: Database
  let terms: Database
  let ordered: Database

  /// Trigram postings to add and remove, as `code << 32 | row`: flat arrays sorted once at the
  /// end cost far less than a dictionary of arrays for the ~100 trigrams of every record.
  private var trigramAdditions: [UInt64] = []
  private var trigramRemovals: [UInt64] = []
  private var termAdditions: [TermKey: [Row]] = [:]
  private var termRemovals: [TermKey: [Row]] = [:]
  private var orderedPuts: [OrderedEntry] = []
  private var orderedDeletes: [OrderedEntry] = []
  /// Whether new rows may go to the trigram index's segment of recent rows (`RecentTrigrams`):
  /// only a commit's writer, whose `old: nil` means a record that did not exist. Other writers
  /// (index builds, replays) fold the segment into the posting lists when they flush.
  private let fillsRecentSegment: Bool
  /// Rows that did not exist, with every trigram they have, while `fillsRecentSegment`.
  private var insertedTrigrams: [(row: Row, codes: [UInt32])] = []
  /// Rows whose trigrams changed otherwise: in the segment, they are changed there.
  private var changedTrigramRows: Set<Row> = []

  init(trigrams: Database, terms: Database, ordered: Database, fillsRecentSegment: Bool = false) {
    self.trigrams = trigrams
    self.terms = terms
    self.ordered = ordered
    self.fillsRecentSegment = fillsRecentSegment
  }

  /// Records that `row` had the entries `old` (nil: it did not exist) and now has `new` (nil:
  /// it is deleted).
  mutating func change(row: Row, old: IndexEntries?, new: IndexEntries?) {
    let before = old ?? IndexEntries()
    let after = new ?? IndexEntries()
    // Trigrams: both sides ascending; walk them together.
    var i = 0
    var j = 0
    let a = before.trigrams
    let b = after.trigrams
    if fillsRecentSegment {
      if old == nil {
        if !b.isEmpty { insertedTrigrams.append((row, b)) }
        j = b.count
      } else if a != b {
        changedTrigramRows.insert(row)
      }
    }
    while i < a.count || j < b.count {
      if j == b.count || (i < a.count && a[i] < b[j]) {
        trigramRemovals.append(UInt64(a[i]) << 32 | UInt64(row))
        i += 1
      } else if i == a.count || b[j] < a[i] {
        trigramAdditions.append(UInt64(b[j]) << 32 | UInt64(row))
        j += 1
      } else {
        i += 1
        j += 1
      }
    }
    // Terms: both sides ascending too.
    i = 0
    j = 0
    while i < before.terms.count || j < after.terms.count {
      let order =
        i == before.terms.count
        ? 1 : j == after.terms.count ? -1 : TextMatching.compare(before.terms[i], after.terms[j])
      if order < 0 {
        termRemovals[TermKey(before.terms[i]), default: []].append(row)
        i += 1
      } else if order > 0 {
        termAdditions[TermKey(after.terms[j]), default: []].append(row)
        j += 1
      } else {
        i += 1
        j += 1
      }
    }
    if before.ordered != after.ordered {
      for entry in before.ordered where !after.ordered.contains(entry) {
        orderedDeletes.append(entry.with(row: row))
      }
      for entry in after.ordered where !before.ordered.contains(entry) {
        orderedPuts.append(entry.with(row: row))
      }
    }
  }

  /// Writes every change, in key order so that LMDB touches each page once.
  func flush(_ txn: WriteTransaction) throws {
    var additions = trigramAdditions
    var removals = trigramRemovals
    try fileRecentRows(&additions, &removals, txn)
    additions = PairSort.sorted(additions)
    removals = PairSort.sorted(removals)
    try txn.withCursor(trigrams) { cursor in
      try flushTrigrams(additions, removals, &cursor, txn)
    }
    let termKeys = Set(termAdditions.keys).union(termRemovals.keys).sorted {
      TextMatching.compare($0.bytes, $1.bytes) < 0
    }
    try txn.withCursor(terms) { cursor in
      for term in termKeys {
        try PostingBlocks.apply(
          term.bytes, adding: RowSet.normalized(termAdditions[term] ?? []),
          removing: RowSet.normalized(termRemovals[term] ?? []), cursor: &cursor, txn, in: terms)
      }
    }
    for entry in orderedDeletes.sorted() {
      try txn.delete(ordered, entry.bytes)
    }
    for entry in orderedPuts.sorted() { try txn.put(ordered, entry.bytes, []) }
  }

  /// Files a small commit's new rows in the segment of recent rows and changes the rows it holds
  /// there; moves the segment's postings to `additions` (to fold it into the posting lists) when
  /// this writer may not fill it, the commit is large, or the segment is past its capacity.
  private func fileRecentRows(
    _ additions: inout [UInt64], _ removals: inout [UInt64], _ txn: WriteTransaction
  )
    throws
  {
    let isSmall = fillsRecentSegment && insertedTrigrams.count <= RecentTrigrams.smallCommit
    if isSmall {
      for (row, codes) in insertedTrigrams {
        try RecentTrigrams.set(codes, of: row, wasStored: false, in: trigrams, txn)
      }
    } else {
      for (row, codes) in insertedTrigrams {
        for code in codes { additions.append(UInt64(code) << 32 | UInt64(row)) }
      }
    }
    if !changedTrigramRows.isEmpty, try RecentTrigrams.count(in: trigrams, txn) > 0 {
      var held: [Row: [UInt32]] = [:]
      for row in changedTrigramRows {
        if let codes = try RecentTrigrams.codes(of: row, in: trigrams, txn) { held[row] = codes }
      }
      if !held.isEmpty {
        var added: [Row: [UInt32]] = [:]
        var removed: [Row: Set<UInt32>] = [:]
        additions.removeAll { pair in
          let row = Row(truncatingIfNeeded: pair)
          guard held[row] != nil else { return false }
          added[row, default: []].append(UInt32(pair >> 32))
          return true
        }
        removals.removeAll { pair in
          let row = Row(truncatingIfNeeded: pair)
          guard held[row] != nil else { return false }
          removed[row, default: []].insert(UInt32(pair >> 32))
          return true
        }
        for (row, codes) in held {
          let gone = removed[row] ?? []
          let kept = codes.filter { !gone.contains($0) } + (added[row] ?? [])
          try RecentTrigrams.set(Array(Set(kept)).sorted(), of: row, wasStored: true, in: trigrams, txn)
        }
      }
    }
    let isFull = try isSmall && RecentTrigrams.count(in: trigrams, txn) > RecentTrigrams.capacity
    if !isSmall || isFull {
      additions.append(contentsOf: try RecentTrigrams.takeAll(from: trigrams, txn))
    }
  }

  /// The trigram pairs, grouped by code, applied with one cursor.
  private func flushTrigrams(
    _ additions: [UInt64], _ removals: [UInt64], _ cursor: inout Cursor, _ txn: WriteTransaction
  )
    throws
  {
    var i = 0
    var j = 0
    while i < additions.count || j < removals.count {
      let code = min(
        i < additions.count ? additions[i] >> 32 : UInt64.max,
        j < removals.count ? removals[j] >> 32 : UInt64.max)
      var added: [Row] = []
      while i < additions.count && additions[i] >> 32 == code {
        added.append(Row(truncatingIfNeeded: additions[i]))
        i += 1
      }
      var removed: [Row] = []
      while j < removals.count && removals[j] >> 32 == code {
        removed.append(Row(truncatingIfNeeded: removals[j]))
        j += 1
      }
      // Additions of one code arrive in row order only when every row is new: sort otherwise.
      if added.count > 1 && !added.indices.dropFirst().allSatisfy({ added[$0 - 1] < added[$0] }) {
        added = RowSet.normalized(added)
      }
      try PostingBlocks.apply(
        IndexKeys.trigramPrefix(UInt32(code)), adding: added, removing: removed, cursor: &cursor, txn,
        in: trigrams)
    }
  }
}

/// An equality prefix as a dictionary key, hashed as one run of bytes rather than byte by byte.
struct TermKey: Hashable {
  var bytes: [UInt8]

  init(_ bytes: [UInt8]) { self.bytes = bytes }

  func hash(into hasher: inout Hasher) {
    bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
  }
}

/// Sorting of `code << 32 | row` pairs: a least-significant-digit radix sort over the eight
/// bytes, linear in the number of pairs (a million per 10,000 records ingested).
enum PairSort {
  static func sorted(_ values: [UInt64]) -> [UInt64] {
    guard values.count > 64 else { return values.sorted() }
    var source = values
    var target = [UInt64](repeating: 0, count: values.count)
    // Skip the passes over bytes that are equal in every value.
    var differing: UInt64 = 0
    if let first = values.first { for value in values { differing |= value ^ first } }
    for pass in 0..<8 {
      let shift = UInt64(pass * 8)
      guard (differing >> shift) & 0xFF != 0 else { continue }
      var counts = [Int](repeating: 0, count: 257)
      for value in source { counts[Int((value >> shift) & 0xFF) + 1] += 1 }
      for index in 1..<257 { counts[index] += counts[index - 1] }
      for value in source {
        let bucket = Int((value >> shift) & 0xFF)
        target[counts[bucket]] = value
        counts[bucket] += 1
      }
      swap(&source, &target)
    }
    return source
  }
}
