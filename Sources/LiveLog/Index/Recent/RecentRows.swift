import LMDB

/// The rows small commits changed since the last fold, as one read transaction sees them.
///
/// Why: a new record files about a hundred trigrams, and filed by trigram they land on as many
/// pages of the index, so a commit of 30 search results dirtied hundreds of pages. A small commit
/// writes each changed row's whole state — version, key, every index entry — as one value of the
/// `recent` database instead, on a page or two at its end; queries read those rows beside the
/// segments, and a recent row's entries replace whatever the segments hold for it. A commit that
/// would take the recent rows past `capacity`, or that changes more than `smallCommit` rows,
/// folds them into the segments first (`StoredCollection+Fold`).
struct RecentRows {
  /// Rows that a commit of at most this many changes files here.
  static let smallCommit = 256
  /// Rows the recent rows hold before a fold. Every index lookup reads each of them (a test of its
  /// trigram filter, a scan of its terms or ordered values), while a fold rewrites the pages its
  /// rows touch: this trades one against the other.
  static let capacity = 512

  /// Rows with an entry, ascending, and their entries (pointing into the map).
  let rows: [Row]
  let entries: [RecentEntry.View]

  var isEmpty: Bool { rows.isEmpty }

  /// Whether a commit of `changes` rows files them here, beside the `recent` rows already here,
  /// with room for `capacity` (else it folds).
  static func files(_ changes: Int, besides recent: Int, capacity: Int) -> Bool {
    changes <= min(smallCommit, capacity) && recent + changes <= capacity
  }

  /// The recent rows of `collection` in `txn`.
  static func load(_ collection: StoredCollection, _ txn: some ReadableTransaction) throws -> RecentRows {
    try txn.withCursor(collection.databases.recent) { cursor in
      var rows: [Row] = []
      var entries: [RecentEntry.View] = []
      var entry = try cursor.first()
      while let current = entry {
        guard let key = current.integerKey, key <= UInt64(Row.max) else {
          throw collection.damaged("a recent row's key", PageDamage("\(current.key.count) bytes"))
        }
        rows.append(Row(key))
        entries.append(try collection.recentEntry(current.value, row: Row(key)))
        entry = try cursor.next()
      }
      return RecentRows(rows: rows, entries: entries)
    }
  }

  /// The entry of `row`, if it has one.
  func entry(of row: Row) -> RecentEntry.View? {
    guard !rows.isEmpty else { return nil }
    var low = 0
    var high = rows.count
    while low < high {
      let middle = (low + high) / 2
      if rows[middle] < row { low = middle + 1 } else { high = middle }
    }
    return low < rows.count && rows[low] == row ? entries[low] : nil
  }

  /// Rows whose recent entry holds a record (not deleted), ascending.
  var presentRows: [Row] {
    zip(rows, entries).compactMap { $0.1.isDeleted ? nil : $0.0 }
  }

  /// Rows of `rows` (ascending) that matched in the segments, without the rows a recent entry
  /// replaces, and with the recent rows that match (`matching`, ascending).
  func overlay(_ segmentRows: [Row], matching: [Row]) -> [Row] {
    guard !self.rows.isEmpty else { return segmentRows }
    return RowSet.union(RowSet.subtracting(segmentRows, self.rows), matching)
  }

  /// Recent rows (not deleted) whose entries satisfy `test`, ascending.
  func rows(where test: (RecentEntry.View) throws -> Bool) rethrows -> [Row] {
    var result: [Row] = []
    for (row, entry) in zip(rows, entries) where !entry.isDeleted {
      if try test(entry) { result.append(row) }
    }
    return result
  }
}
