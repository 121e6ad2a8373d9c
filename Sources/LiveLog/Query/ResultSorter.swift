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
        return try walk(first, then: Array(descriptors.dropFirst()), members: rows, limit: limit)
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
  /// `members` (every row when nil); with the rows' keys when the walk reads them from covering
  /// pages and no other key orders the ties.
  private func walk(
    _ first: SortDescriptor, then others: [SortDescriptor], members: [Row]?, range: OrderedBounds? = nil,
    limit: Int?
  ) throws -> (rows: [Row], ids: [Int64]?) {
    let wanted = limit ?? Int.max
    let keepsIDs = others.isEmpty && indexes.directory.coversKeys
    var output: [Row] = []
    var outputIDs: [Int64] = []
    // (row, key) of a run of equal first keys.
    var run: [(Row, Int64)] = []
    var runKey: OrderedKey?
    func flush() throws {
      guard !run.isEmpty else { return }
      // Within a run of equal first keys: the other keys, then insertion order.
      run.sort { $0.0 < $1.0 }
      if others.isEmpty {
        for (row, id) in run {
          output.append(row)
          if keepsIDs { outputIDs.append(id) }
        }
      } else {
        output.append(contentsOf: try fetchAndSort(run.map(\.0), by: others, limit: nil))
      }
      run.removeAll(keepingCapacity: true)
    }
    try indexes.walk(field: first.field, range: range, ascending: first.ascending) { key, row, id in
      if key != runKey {
        try flush()
        if output.count >= wanted { return false }
        runKey = key
      }
      if members.map({ RowSet.contains($0, row) }) ?? true { run.append((row, id)) }
      return true
    }
    try flush()
    return (Array(output.prefix(wanted)), keepsIDs ? Array(outputIDs.prefix(wanted)) : nil)
  }
}
