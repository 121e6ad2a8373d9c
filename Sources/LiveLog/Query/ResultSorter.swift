import LMDB

/// Puts matching rows in `SORT` order: by each sort key in turn, then by row (insertion order).
///
/// Two ways, chosen by their expected cost:
/// - **index walk**: when the first key has an ordered index, walk that index in the requested
///   direction and keep the rows that match; with a `LIMIT`, stop once enough rows are out. Ties
///   on the first key are ordered by the other keys, read from the records of the tie only.
/// - **fetch and sort**: read each matching record's sort keys and sort them in memory.
struct ResultSorter<Txn: ReadableTransaction> {
  let collection: StoredCollection
  let txn: Txn

  /// Relative costs per item, measured on this engine: a step of a cursor over the ordered
  /// index, and a record read and decoded for its keys.
  private static var walkStepCost: Double { 0.05 }
  private static var fetchCost: Double { 1.0 }

  /// `rows` (ascending; `nil` for every row) in sort order, at most `limit` of them.
  func sorted(_ rows: [Row]?, by descriptors: [SortDescriptor], limit: Int?) throws -> [Row] {
    guard let first = descriptors.first else { return Array((rows ?? []).prefix(limit ?? Int.max)) }
    let total = try txn.statistics(collection.records).entries
    let matches = rows?.count ?? total
    if first.field.indexes.contains(.ordered) {
      let visits =
        limit.map { min(Double(total), Double($0) * Double(total) / Double(max(matches, 1))) }
        ?? Double(total)
      let fetch = Double(matches) * Self.fetchCost + (rows == nil ? Double(total) * Self.walkStepCost : 0)
      if visits * Self.walkStepCost <= fetch {
        return try walk(first, then: Array(descriptors.dropFirst()), members: rows, limit: limit)
      }
    }
    let candidates = try rows ?? collection.everyRow(txn)
    return try fetchAndSort(candidates, by: descriptors, limit: limit)
  }

  /// The rows of an exact range of the first key's ordered index, in sort order, at most `limit`
  /// of them: the range alone is walked, in the requested direction, and no record is read but
  /// those of ties on the first key when more keys follow.
  func sorted(range: OrderedBounds, by descriptors: [SortDescriptor], limit: Int?) throws -> [Row] {
    guard let first = descriptors.first else { return [] }
    return try walk(first, then: Array(descriptors.dropFirst()), members: nil, range: range, limit: limit)
  }

  private func fetchAndSort(_ rows: [Row], by descriptors: [SortDescriptor], limit: Int?) throws -> [Row] {
    try SortOrder.sorted(rows, by: descriptors, limit: limit) { row in
      guard let bytes = try collection.record(at: UInt64(row), txn) else {
        throw StoreError.corruptState(reason: "row \(row) has no record")
      }
      return bytes
    }
  }

  /// Walks the ordered index of `first` (only the keys in `range`, when given) and keeps
  /// `members` (every row when nil).
  private func walk(
    _ first: SortDescriptor, then others: [SortDescriptor], members: [Row]?, range: OrderedBounds? = nil,
    limit: Int?
  ) throws -> [Row] {
    let layout = OrderedLayout(first.field)
    let field = layout.slot
    let wanted = limit ?? Int.max
    var output: [Row] = []
    var run: [Row] = []
    var runValue: [UInt8] = []
    func flush() throws {
      guard !run.isEmpty else { return }
      // Within a run of equal first keys: the other keys, then insertion order.
      run.sort()
      if !others.isEmpty { run = try fetchAndSort(run, by: others, limit: nil) }
      output.append(contentsOf: run)
      run.removeAll(keepingCapacity: true)
    }
    // Where the walk starts and the key it must not pass, as prefixes: the whole field's keys
    // without a range.
    let low = range.map { layout.prefix($0.lower) } ?? [field]
    let high = range.map { layout.prefix($0.upper.successor(width: layout.width)) } ?? [field &+ 1]
    try txn.withCursor(collection.databases.ordered) { cursor in
      var entry: Entry?
      if first.ascending {
        entry = try cursor.seek(atLeast: low)
      } else {
        entry = try cursor.seek(atLeast: high)
        entry = entry == nil ? try cursor.last() : try cursor.previous()
      }
      while let current = entry, layout.holds(current.key),
        first.ascending ? layout.key(current.key, isBefore: high) : !layout.key(current.key, isBefore: low)
      {
        let value = current.key[0..<(layout.keyLength - 4)]
        if !value.elementsEqual(runValue) {
          try flush()
          if output.count >= wanted { return }
          runValue = Array(value)
        }
        let row = layout.row(current.key)
        if members.map({ RowSet.contains($0, row) }) ?? true { run.append(row) }
        entry = first.ascending ? try cursor.next() : try cursor.previous()
      }
      try flush()
    }
    return Array(output.prefix(wanted))
  }
}
