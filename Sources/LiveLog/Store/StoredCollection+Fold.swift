import LMDB

/// Folding: the recent rows, and a large commit's changes, written into the row table, the
/// segments and the ordered columns. Rows past the segments make a new segment, written in key
/// order with `MDB_APPEND` (pages at the end of the database, filled whole); rows already in a
/// segment have the index entries of the fields that changed edited in place (`SegmentEditor`),
/// and their changed ordered values written into their column blocks. The recent rows are then
/// empty, and the last segments merge, four of about one size at a time (up to
/// `maximumSegmentRows`), so that a lookup reads a dozen segments, not one per fold.
extension StoredCollection {
  /// The inserts at the end of `changes` whose rows ascend from `first`, past the rows of every
  /// change before them: rows no fold has seen, that nothing else in the fold touches. A commit
  /// hands out new rows in order, so its inserts after its last other change qualify.
  static func appendedInserts(_ changes: [RecordChange], after first: UInt64) -> Range<Int> {
    var start = changes.endIndex
    var next = UInt64.max
    // By index, as `apply` reads the changes.
    while start > changes.startIndex {
      let (kind, row) = (changes[start - 1].kind, changes[start - 1].row)
      guard kind == .inserted, row < next, row >= first else { break }
      next = row
      start -= 1
    }
    // Every earlier change must touch a row before the first appended one.
    guard start < changes.endIndex,
      changes.indices[..<start].allSatisfy({ changes[$0].row < changes[start].row })
    else {
      return changes.endIndex..<changes.endIndex
    }
    return start..<changes.endIndex
  }

  /// The most rows a merge makes a segment of: each lookup reads every segment, and each merge
  /// rewrites the segments it joins.
  static var maximumSegmentRows: Row { 262_144 }

  /// A touched row's state after the fold: its version and key, and its values when new.
  private struct FoldedRow {
    var lsn: UInt64
    var key: [UInt8]
    var isDeleted: Bool
    var isNew: Bool
    /// A new row's values, by slot (rows already folded are diffed from their records).
    var values: [FieldValue]?
  }

  /// Folds the recent rows and `changes` (a commit's, already in the keys database) into the row
  /// table and segments; `indexes: false` (a migration) writes the row table only, and the
  /// migration rebuilds the indexes.
  func fold(_ changes: [RecordChange], nextRow: UInt64, _ txn: WriteTransaction, indexes: Bool = true) throws
  {
    var directory = try self.directory(txn)
    var touched: [Row: FoldedRow] = [:]
    let recent = try RecentRows.load(self, txn)
    for (row, entry) in zip(recent.rows, recent.entries) {
      // A new row's entries come from its record: the recent rows keep no positions.
      touched[row] = FoldedRow(
        lsn: entry.lsn, key: Array(entry.key), isDeleted: entry.isDeleted, isNew: entry.isNew,
        values: entry.isNew && !entry.isDeleted
          ? try values(try record(at: UInt64(row), lsn: entry.lsn, txn), row: UInt64(row)) : nil)
    }
    // A commit's inserts take rows past every other row it or the recent rows touch, in order:
    // they go straight into the new segment, without the table of touched rows.
    let appended = Self.appendedInserts(
      changes, after: max(UInt64(directory.end), recent.rows.last.map { UInt64($0) + 1 } ?? 0))
    for change in changes[..<appended.lowerBound] {
      let row = Row(change.row)
      let isNew = touched[row]?.isNew ?? (row >= directory.end)
      switch change.kind {
      case .deleted:
        if isNew {
          touched[row] = nil
        } else {
          touched[row] = FoldedRow(lsn: change.lsn, key: keyBytes(change.key), isDeleted: true, isNew: false)
        }
      case .inserted, .updated:
        touched[row] = FoldedRow(
          lsn: change.lsn, key: keyBytes(change.key), isDeleted: false, isNew: isNew,
          values: isNew ? try newValues(of: change) : nil)
      }
    }
    try txn.removeAll(databases.recent)

    var tableChanges: [RowTable.Change] = []
    var columnChanges: [OrderedColumns.Change] = []
    let orderedFields = OrderedColumns.orderedFields(of: schema)
    var postingEdits: [Int: [PostingEdit]] = [:]
    var orderedEdits: [Int: [OrderedEdit]] = [:]
    var newRows: [Row] = []
    var newValues: [[FieldValue]] = []
    func appendNew(_ row: Row, lsn: UInt64, key: [UInt8], values: [FieldValue]) {
      newRows.append(row)
      newValues.append(values)
      tableChanges.append(RowTable.Change(row: row, lsn: lsn, key: key, isRemoval: false))
      if indexes {
        columnChanges.append(OrderedColumns.change(row: row, values: values, fields: orderedFields))
      }
    }
    for row in touched.keys.sorted() {
      guard let state = touched[row] else { continue }
      if state.isNew {
        // Past the segments: into the new segment (a row inserted and deleted since has no state).
        guard let values = state.values else { continue }
        appendNew(row, lsn: state.lsn, key: state.key, values: values)
        continue
      }
      tableChanges.append(
        RowTable.Change(row: row, lsn: state.lsn, key: state.key, isRemoval: state.isDeleted))
      guard indexes, let segment = directory.segment(of: row) else { continue }
      let (old, new) = try changedEntries(of: row, newLSN: state.isDeleted ? nil : state.lsn, txn)
      if state.isDeleted || !new.ordered.isEmpty {
        columnChanges.append(
          OrderedColumns.Change(
            row: row, keys: new.ordered.map { ($0.field, $0.key) }, isRemoval: state.isDeleted))
      }
      // A row keeps its key for life: its covering entries carry the key it has now.
      let id =
        directory.coversKeys && state.key.count == 8
        ? state.key.withUnsafeBytes { $0.loadUnaligned(as: Int64.self) } : 0
      Self.edits(
        row: row, id: id, from: old, to: new, postings: &postingEdits[segment, default: []],
        ordered: &orderedEdits[segment, default: []])
    }
    // By index, as `apply` reads the changes.
    for index in appended {
      // The values read in place: passing the change whole copied it, retaining each of its arrays.
      let values = try changes[index].newValues ?? self.newValues(of: changes[index])
      appendNew(
        Row(changes[index].row), lsn: changes[index].lsn, key: keyBytes(changes[index].key), values: values)
    }
    for (segment, edits) in postingEdits.sorted(by: { $0.key < $1.key }) where !edits.isEmpty {
      try SegmentEditor(
        index: databases.index, segment: directory.starts[segment], txn: txn, coversKeys: directory.coversKeys
      ).apply(edits.sorted())
    }
    for (segment, edits) in orderedEdits.sorted(by: { $0.key < $1.key }) where !edits.isEmpty {
      try SegmentEditor(
        index: databases.index, segment: directory.starts[segment], txn: txn, coversKeys: directory.coversKeys
      ).apply(edits.sorted())
    }
    let newEnd = Row(truncatingIfNeeded: nextRow)
    if newEnd > directory.end {
      if indexes {
        directory.begin(for: schema)
        let values = newValues
        let parts = try SegmentBuilder.build(schema: schema, rows: newRows) { values[$0] }
        for (key, value) in SegmentBuilder.pages(
          parts, segment: directory.end, coversKeys: directory.coversKeys)
        {
          try txn.put(databases.index, key, value, flags: .append)
        }
      }
      directory.starts.append(directory.end)
      directory.end = newEnd
    }
    try rowTable.apply(tableChanges, txn)
    if indexes {
      try applyToColumns(columnChanges, txn)
      try mergeLastSegments(&directory, txn)
    }
    try directory.write(name, meta: meta, txn)
  }

  /// The key width of each slot's values (256 entries, by slot; 9 for a slot without a field):
  /// a table read per entry, rather than a field looked up (and copied) per entry.
  var orderedWidths: [Int] {
    var widths = [Int](repeating: 9, count: 256)
    for field in schema.fields where widths.indices.contains(field.position) {
      widths[field.position] = OrderedKey.width(of: field.type)
    }
    return widths
  }

  /// The entries, before and after, of only the indexed fields that differ between `row`'s folded
  /// version and its version at `newLSN` (nil: deleted, so every entry goes): a change of stars
  /// alone never folds text into trigrams.
  private func changedEntries(of row: Row, newLSN: UInt64?, _ txn: WriteTransaction) throws
    -> (old: IndexEntries, new: IndexEntries)
  {
    guard let base = try rowTable.slot(of: row, txn) else {
      throw StoreError.corruptState(
        reason: "\(name): row \(row) is in a segment but not in the row table")
    }
    let oldValues = try values(try record(at: UInt64(row), lsn: base.lsn, txn), row: UInt64(row))
    guard let newLSN else { return (IndexEntries(oldValues, schema: schema), IndexEntries()) }
    let newValues = try values(try record(at: UInt64(row), lsn: newLSN, txn), row: UInt64(row))
    return Self.changedEntries(from: oldValues, to: newValues, schema: schema)
  }

  /// The entries, before and after, of the indexed fields whose values differ between `old` and
  /// `new` (by slot): the entries of a field that kept its value would cancel out.
  static func changedEntries(from old: [FieldValue], to new: [FieldValue], schema: CollectionSchema)
    -> (old: IndexEntries, new: IndexEntries)
  {
    let changed = schema.indexedFields.filter { field in
      (field.position < old.count ? old[field.position] : .null)
        != (field.position < new.count ? new[field.position] : .null)
    }
    guard !changed.isEmpty else { return (IndexEntries(), IndexEntries()) }
    return (IndexEntries(old, fields: changed), IndexEntries(new, fields: changed))
  }

  /// The edits that turn `row`'s entries `old` into `new`; `id` is the row's key, for covering
  /// ordered pages (0 otherwise).
  static func edits(
    row: Row, id: Int64, from old: IndexEntries, to new: IndexEntries, postings: inout [PostingEdit],
    ordered: inout [OrderedEdit]
  ) {
    // Trigrams: both sides ascending by code, then position; a code whose positions differ is
    // written again whole.
    var i = 0
    var j = 0
    let a = old.trigrams
    let b = new.trigrams
    func run(_ list: [UInt64], from start: Int) -> (code: UInt32, positions: [UInt32], end: Int) {
      let code = UInt32(truncatingIfNeeded: list[start] >> 32)
      var end = start
      var positions: [UInt32] = []
      while end < list.count && UInt32(truncatingIfNeeded: list[end] >> 32) == code {
        positions.append(UInt32(truncatingIfNeeded: list[end]))
        end += 1
      }
      return (code, positions, end)
    }
    while i < a.count || j < b.count {
      let left = i < a.count ? run(a, from: i) : nil
      let right = j < b.count ? run(b, from: j) : nil
      if let left, right == nil || left.code < right?.code ?? .max {
        postings.append(
          PostingEdit(kind: .trigram, key: IndexKeys.trigramPrefix(left.code), row: row, positions: nil))
        i = left.end
      } else if let right, left == nil || right.code < left?.code ?? .max {
        postings.append(
          PostingEdit(
            kind: .trigram, key: IndexKeys.trigramPrefix(right.code), row: row, positions: right.positions))
        j = right.end
      } else if let left, let right {
        if left.positions != right.positions {
          postings.append(
            PostingEdit(
              kind: .trigram, key: IndexKeys.trigramPrefix(right.code), row: row, positions: right.positions))
        }
        i = left.end
        j = right.end
      }
    }
    i = 0
    j = 0
    while i < old.terms.count || j < new.terms.count {
      let order =
        i == old.terms.count
        ? 1 : j == new.terms.count ? -1 : TextMatching.compare(old.terms[i], new.terms[j])
      if order < 0 {
        postings.append(PostingEdit(kind: .term, key: old.terms[i], row: row, positions: nil))
        i += 1
      } else if order > 0 {
        postings.append(PostingEdit(kind: .term, key: new.terms[j], row: row, positions: []))
        j += 1
      } else {
        i += 1
        j += 1
      }
    }
    for entry in old.ordered where !new.ordered.contains(entry) {
      ordered.append(OrderedEdit(entry: entry.with(row: row, id: id), isInsertion: false))
    }
    for entry in new.ordered where !old.ordered.contains(entry) {
      ordered.append(OrderedEdit(entry: entry.with(row: row, id: id), isInsertion: true))
    }
  }

  /// Segments a merge joins: enough that each row is written again only a couple of times as the
  /// segments grow, few enough that a lookup reads a dozen segments, not one per fold.
  static var mergeFanIn: Int { 4 }

  /// Merges the last `mergeFanIn` segments while they are of about one size (none more than
  /// twice another) and together within `maximumSegmentRows`: a tiered merge, which writes each
  /// row about twice on its way into a full segment (a merge of every two, about four times).
  private func mergeLastSegments(_ directory: inout SegmentDirectory, _ txn: WriteTransaction) throws {
    let fanIn = Self.mergeFanIn
    while directory.count >= fanIn {
      let last = (directory.count - fanIn)..<directory.count
      let sizes = last.map { directory.rows(of: $0).count }
      guard let smallest = sizes.min(), let largest = sizes.max(), largest <= 2 * max(smallest, 1),
        sizes.reduce(0, +) <= Int(Self.maximumSegmentRows)
      else { return }
      try SegmentMerger(index: databases.index, txn: txn, coversKeys: directory.coversKeys).merge(
        Array(directory.starts[last]))
      directory.starts.removeLast(fanIn - 1)
    }
  }
}
