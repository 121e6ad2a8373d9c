import LMDB

/// Puts matching rows in `SORT` order: by each sort key in turn, then by row (insertion order).
///
/// Two ways, chosen by their expected cost:
/// - **index walk**: when the first key has an ordered index, walk that index in the requested
///   direction (every segment's run and the recent rows, merged) and keep the rows that match;
///   with a `LIMIT`, stop once enough rows are out. Ties on the first key are ordered by the
///   other keys, read from the records of the tie only.
/// - **fetch and sort**: read each matching record's sort keys and sort them in memory.
struct ResultSorter<Txn: ReadableTransaction> {
  let collection: StoredCollection
  let txn: Txn
  let indexes: IndexReader<Txn>

  /// Relative costs per item, measured on this engine: a step of the walk over the ordered
  /// index, and a record read and decoded for its keys.
  private static var walkStepCost: Double { 0.05 }
  private static var fetchCost: Double { 1.0 }

  /// `rows` (ascending; `nil` for every row) in sort order, at most `limit` of them; with their
  /// keys when an index walk read them from covering pages.
  func sorted(_ rows: [Row]?, by descriptors: [SortDescriptor], limit: Int?) throws -> (
    rows: [Row], ids: [Int64]?
  ) {
    guard let first = descriptors.first else { return (Array((rows ?? []).prefix(limit ?? Int.max)), nil) }
    let total = try collection.count(txn)
    let matches = rows?.count ?? total
    if first.field.indexes.contains(.ordered) && !first.field.type.isList {
      let visits =
        limit.map { min(Double(total), Double($0) * Double(total) / Double(max(matches, 1))) }
        ?? Double(total)
      let fetch = Double(matches) * Self.fetchCost + (rows == nil ? Double(total) * Self.walkStepCost : 0)
      if visits * Self.walkStepCost <= fetch {
        return try walk(
          first, then: Array(descriptors.dropFirst()), members: rows, visits: Int(visits), limit: limit)
      }
    }
    let candidates = try rows ?? collection.everyRow(txn, recent: indexes.recent)
    return (try fetchAndSort(candidates, by: descriptors, limit: limit), nil)
  }

  /// The rows of an exact range of the first key's ordered index, in sort order, at most `limit`
  /// of them: the range alone is walked, in the requested direction, and no record is read but
  /// those of ties on the first key when more keys follow.
  func sorted(range: OrderedBounds, by descriptors: [SortDescriptor], limit: Int?) throws -> [Row] {
    try sortedWithKeys(range: range, by: descriptors, limit: limit).rows
  }

  /// `sorted(range:by:limit:)`, with the rows' keys when the pages cover them and the first key
  /// is the only one (ties in row order: no record is read at all).
  func sortedWithKeys(range: OrderedBounds, by descriptors: [SortDescriptor], limit: Int?) throws -> (
    rows: [Row], ids: [Int64]?
  ) {
    guard let first = descriptors.first else { return ([], nil) }
    return try walk(first, then: Array(descriptors.dropFirst()), members: nil, range: range, limit: limit)
  }

  private func fetchAndSort(_ rows: [Row], by descriptors: [SortDescriptor], limit: Int?) throws -> [Row] {
    // Records are read in row order, with one cursor each over the row table and the log.
    var records: [Row: UnsafeRawBufferPointer] = [:]
    records.reserveCapacity(rows.count)
    let ascending = RowSet.normalized(rows)
    try collection.forEachRecord(of: ascending, txn, recent: indexes.recent) { row, record in
      records[row] = record
      return true
    }
    return try SortOrder.sorted(rows, by: descriptors, limit: limit) { row in
      guard let record = records[row] else {
        throw StoreError.corruptState(reason: "row \(row) has no record")
      }
      return record
    }
  }

  /// Walks the ordered index of `first` (only the keys in `range`, when given) and keeps
  /// `members` (every row when nil), about `visits` of whose entries it expects to read; with the
  /// rows' keys when the walk reads them from covering pages and no other key orders the ties.
  private func walk(
    _ first: SortDescriptor, then others: [SortDescriptor], members: [Row]?, visits: Int = 0,
    range: OrderedBounds? = nil, limit: Int?
  ) throws -> (rows: [Row], ids: [Int64]?) {
    let wanted = limit ?? Int.max
    var runs = Runs(keepsIDs: others.isEmpty && indexes.directory.coversKeys, expected: wanted)
    // Ties on the first key: ordered by the other keys, read from the tie's records only.
    let orderTie: ([Row]) throws -> [Row] = { rows in try fetchAndSort(rows, by: others, limit: nil) }
    let membership = members.map { RowMembership($0, questions: visits) }
    let stopsInTies = first.ascending && others.isEmpty
    try indexes.walk(field: first.field, range: range, ascending: first.ascending, keeping: membership) {
      key, row, id in
      if key != runs.key {
        try runs.flush(others.isEmpty ? nil : orderTie)
        if runs.rows.count >= wanted { return false }
        runs.key = key
      }
      runs.run.append((row, id))
      // An ascending walk gives a tie's rows in row order, the order ties keep when no other key
      // orders them: once enough rows are out, the rest of the tie is not wanted.
      if stopsInTies && runs.rows.count + runs.run.count >= wanted { return false }
      return true
    }
    try runs.flush(others.isEmpty ? nil : orderTie)
    return (Array(runs.rows.prefix(wanted)), runs.keepsIDs ? Array(runs.ids.prefix(wanted)) : nil)
  }
}

/// A walk's output, gathered a run of equal first keys at a time. A value type held by the
/// walk's closure: plain stored properties, so that the per-entry work needs no exclusivity
/// checks at run time (locals shared by a closure and a nested function get them).
private struct Runs {
  let keepsIDs: Bool
  var rows: [Row] = []
  var ids: [Int64] = []
  /// (row, key) of the current run, and the first key they share.
  var run: [(Row, Int64)] = []
  var key: OrderedKey?

  /// Room for `expected` rows (a `LIMIT`), at most 1,024, made at once rather than by doubling.
  init(keepsIDs: Bool, expected: Int) {
    self.keepsIDs = keepsIDs
    let room = min(expected, 1_024)
    rows.reserveCapacity(room)
    if keepsIDs { ids.reserveCapacity(room) }
    run.reserveCapacity(min(room, 16))
  }

  /// Moves the current run to the output: in row order (insertion order breaks ties), or in
  /// the order `orderTie` gives when other sort keys follow.
  mutating func flush(_ orderTie: (([Row]) throws -> [Row])?) throws {
    guard !run.isEmpty else { return }
    if run.count > 1 { run.sort { $0.0 < $1.0 } }
    if let orderTie {
      rows.append(contentsOf: try orderTie(run.map(\.0)))
    } else {
      for (row, id) in run {
        rows.append(row)
        if keepsIDs { ids.append(id) }
      }
    }
    run.removeAll(keepingCapacity: true)
  }
}
