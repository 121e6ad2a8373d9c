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

  private var trigramAdditions: [UInt32: [Row]] = [:]
  private var trigramRemovals: [UInt32: [Row]] = [:]
  private var termAdditions: [[UInt8]: [Row]] = [:]
  private var termRemovals: [[UInt8]: [Row]] = [:]
  private var orderedPuts: [[UInt8]] = []
  private var orderedDeletes: [[UInt8]] = []

  init(trigrams: Database, terms: Database, ordered: Database) {
    self.trigrams = trigrams
    self.terms = terms
    self.ordered = ordered
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
    while i < a.count || j < b.count {
      if j == b.count || (i < a.count && a[i] < b[j]) {
        trigramRemovals[a[i], default: []].append(row)
        i += 1
      } else if i == a.count || b[j] < a[i] {
        trigramAdditions[b[j], default: []].append(row)
        j += 1
      } else {
        i += 1
        j += 1
      }
    }
    for term in before.terms where !after.terms.contains(term) { termRemovals[term, default: []].append(row) }
    for term in after.terms where !before.terms.contains(term) {
      termAdditions[term, default: []].append(row)
    }
    if before.ordered != after.ordered {
      for prefix in before.ordered where !after.ordered.contains(prefix) {
        orderedDeletes.append(withRow(prefix, row))
      }
      for prefix in after.ordered where !before.ordered.contains(prefix) {
        orderedPuts.append(withRow(prefix, row))
      }
    }
  }

  private func withRow(_ prefix: [UInt8], _ row: Row) -> [UInt8] {
    var key = prefix
    key.append(UInt8(truncatingIfNeeded: row >> 24))
    key.append(UInt8(truncatingIfNeeded: row >> 16))
    key.append(UInt8(truncatingIfNeeded: row >> 8))
    key.append(UInt8(truncatingIfNeeded: row))
    return key
  }

  /// Writes every change, in key order so that LMDB touches each page once.
  func flush(_ txn: WriteTransaction) throws {
    let trigramKeys = Set(trigramAdditions.keys).union(trigramRemovals.keys).sorted()
    for code in trigramKeys {
      try PostingBlocks.apply(
        IndexKeys.trigramPrefix(code), adding: RowSet.normalized(trigramAdditions[code] ?? []),
        removing: RowSet.normalized(trigramRemovals[code] ?? []), in: trigrams, txn)
    }
    let termKeys = Set(termAdditions.keys).union(termRemovals.keys).sorted {
      $0.lexicographicallyPrecedes($1)
    }
    for term in termKeys {
      try PostingBlocks.apply(
        term, adding: RowSet.normalized(termAdditions[term] ?? []),
        removing: RowSet.normalized(termRemovals[term] ?? []), in: terms, txn)
    }
    for key in orderedDeletes.sorted(by: { $0.lexicographicallyPrecedes($1) }) {
      try txn.delete(ordered, key)
    }
    for key in orderedPuts.sorted(by: { $0.lexicographicallyPrecedes($1) }) { try txn.put(ordered, key, []) }
  }
}
