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

  private func fetchAndSort(_ rows: [Row], by descriptors: [SortDescriptor], limit: Int?) throws -> [Row] {
    try SortOrder.sorted(rows, by: descriptors, limit: limit) { row in
      guard let bytes = try collection.record(at: UInt64(row), txn) else {
        throw StoreError.corruptState(reason: "row \(row) has no record")
      }
      return bytes
    }
  }

  /// Walks the ordered index of `first` and keeps `members` (every row when nil).
  private func walk(_ first: SortDescriptor, then others: [SortDescriptor], members: [Row]?, limit: Int?)
    throws
    -> [Row]
  {
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
    try txn.withCursor(collection.databases.ordered) { cursor in
      var entry: Entry?
      if first.ascending {
        entry = try cursor.seek(atLeast: [field])
      } else {
        entry = try cursor.seek(atLeast: [field &+ 1])
        entry = entry == nil ? try cursor.last() : try cursor.previous()
      }
      while let current = entry, layout.holds(current.key) {
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
