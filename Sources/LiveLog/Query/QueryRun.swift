import LMDB

/// Runs a whole query — candidates, per-row checks, order, limit — inside one read transaction.
struct QueryRun<Txn: ReadableTransaction> {
  let collection: StoredCollection
  let txn: Txn
  /// The plan's steps, for `explain` (`QueryExecutor.steps`).
  private(set) var steps: [PlanStep] = []
  /// Whether the run is for `explain` (`QueryExecutor.explaining`).
  let explaining: Bool
  /// Candidates that needed a per-row check, and how many of them matched.
  private(set) var checked = 0
  /// The keys of the rows `rows(for:)` returned, in their order, when the index gave them
  /// (an exact range of covering ordered pages); `nil` otherwise.
  private(set) var integerKeys: [Int64]?

  init(collection: StoredCollection, txn: Txn, explaining: Bool) {
    self.collection = collection
    self.txn = txn
    self.explaining = explaining
  }

  /// The rows of the query's results, in result order.
  mutating func rows(for query: Query) throws -> [Row] {
    let query = try query.bound(to: collection.schema)
    integerKeys = nil
    let rows = try leadingRows(for: query)
    guard query.hasLaterClauses else { return rows }
    // Later clauses reorder and drop rows: their keys are read afterwards.
    integerKeys = nil
    let fields = query.laterClauseFields
    return try LaterClauses.apply(query.leadingOrder.rest, to: rows, fields: fields) { row in
      guard let bytes = try collection.record(at: UInt64(row), txn) else {
        throw StoreError.corruptState(reason: "row \(row) has no record")
      }
      return try LaterClauses.values(of: RecordView(bytes: bytes, row: row), fields)
    }
  }

  /// What the per-row check must still test of `predicate`: the parts of its top `AND` that the
  /// intersection applied exactly (`QueryExecutor.exactTopParts`) are left out, so that a term
  /// the index decided is not matched again against every candidate's text. The plan's top `AND`
  /// has one part per predicate part unless ranges were merged; then nothing is left out.
  private static func residual(of predicate: Predicate, _ plan: PlanNode, applied: Set<Int>) -> Predicate {
    guard !applied.isEmpty, case .and(let parts) = predicate, case .and(let plans) = plan,
      plans.count == parts.count
    else { return predicate }
    let rest = parts.indices.filter { !applied.contains($0) }.map { parts[$0] }
    return rest.isEmpty ? .constant(true) : rest.count == 1 ? rest[0] : .and(rest)
  }

  /// The rows that match, in the order of the leading sort, up to the limit after it.
  private mutating func leadingRows(for query: Query) throws -> [Row] {
    let plan = QueryPlanner.plan(query.predicate)
    // One reader (the segment directory and the recent rows, read once) for whichever path runs.
    let indexes = try IndexReader(collection: collection, txn: txn)
    if let found = try coveredRange(plan, query, indexes) {
      integerKeys = found.ids
      return found.rows
    }
    if let rows = try rangeInSortOrder(plan, query, indexes) { return rows }
    // Without a sort, the first `limit` matches in row order are the answer: stop early.
    let earlyLimit = query.sort.isEmpty ? query.limit : nil
    var executor = QueryExecutor(indexes: indexes, explaining: explaining)
    executor.rootLimit = earlyLimit
    let candidates = try executor.candidates(plan)
    steps = executor.steps
    checked += executor.checked
    let predicate = Self.residual(of: query.predicate, plan, applied: executor.exactTopParts)
    let sorter = ResultSorter(collection: collection, txn: txn, indexes: executor.indexes)
    var rows: [Row]
    switch candidates {
    case .rows(let candidateRows, let unsure) where unsure.isEmpty:
      rows = candidateRows
    case .rows(let candidateRows, let unsure) where unsure.count == candidateRows.count:
      rows = try executor.check(candidateRows, predicate, limit: earlyLimit, checked: &checked)
    case .rows(let candidateRows, let unsure):
      let confirmed = try executor.check(unsure, predicate, limit: nil, checked: &checked)
      rows = RowSet.union(RowSet.subtracting(candidateRows, unsure), confirmed)
    case .all(true):
      // Every row matches: a sort may walk an index without listing them first.
      if !query.sort.isEmpty {
        let sorted = try sorter.sorted(nil, by: query.sort, limit: query.limit)
        integerKeys = sorted.ids
        return sorted.rows
      }
      rows = try collection.everyRow(txn, limit: earlyLimit, recent: executor.indexes.recent)
    case .all(false):
      rows = try executor.check(
        try collection.everyRow(txn, recent: executor.indexes.recent), predicate, limit: earlyLimit,
        checked: &checked)
    }
    if !query.sort.isEmpty {
      let sorted = try sorter.sorted(rows, by: query.sort, limit: query.limit)
      // `sorted` keeps at most `limit` rows, and their keys when the walk read them.
      integerKeys = sorted.ids
      return sorted.rows
    }
    if let limit = query.limit, rows.count > limit { rows.removeLast(rows.count - limit) }
    return rows
  }

  /// An unsorted query that is one exact range of an ordered field whose pages cover keys: its
  /// rows and their keys, from the pages alone (`nil` for other queries).
  private mutating func coveredRange(_ plan: PlanNode, _ query: Query, _ indexes: IndexReader<Txn>) throws
    -> (rows: [Row], ids: [Int64])?
  {
    guard query.sort.isEmpty, case .lookup(let lookup) = plan, lookup.isExact,
      case .ordered(let field, let lower, let upper, let range) = lookup.access, !field.type.isList
    else { return nil }
    guard
      var found = try indexes.orderedRowsWithKeys(
        field: field, lower: lower, upper: upper, limit: query.limit)
    else {
      return nil
    }
    if let limit = query.limit, found.rows.count > limit {
      found.rows.removeLast(found.rows.count - limit)
      found.ids.removeLast(found.ids.count - limit)
    }
    steps = [
      PlanStep(
        depth: 0, "ordered index of \(field.name): \(range.text), keys from its pages",
        actual: found.rows.count,
        exact: true, explaining: explaining)
    ]
    return found
  }

  /// A query that is one exact range of the field it sorts by first: the range's stretch of the
  /// ordered index, walked in sort order, is the answer (`nil` for other queries).
  private mutating func rangeInSortOrder(_ plan: PlanNode, _ query: Query, _ indexes: IndexReader<Txn>) throws
    -> [Row]?
  {
    guard case .lookup(let lookup) = plan, lookup.isExact,
      case .ordered(let field, let lower, let upper, let range) = lookup.access,
      let first = query.sort.first, first.field.position == field.position, !field.type.isList
    else { return nil }
    let sorter = ResultSorter(collection: collection, txn: txn, indexes: indexes)
    let (rows, ids) = try sorter.sortedWithKeys(
      range: OrderedBounds(lower: lower, upper: upper), by: query.sort, limit: query.limit)
    integerKeys = ids
    steps = [
      PlanStep(
        depth: 0,
        "ordered index of \(field.name): \(range.text), walked in sort order"
          + (ids == nil ? "" : ", keys from its pages"),
        actual: rows.count, exact: true, explaining: explaining)
    ]
    return rows
  }

}

/// The order of `SORT`: nil first, then values by type (numbers, dates, strings by Unicode scalar
/// values, false before true).
enum SortOrder {
  /// Whether a row whose sort keys are `a` comes before one whose keys are `b`: key by key, the
  /// `index`-th ascending when `ascending(index)`, then by row (insertion order). The one
  /// comparator of query runs, historical queries and live queries.
  @inline(__always)
  static func precedes(
    _ a: (keys: [FieldValue], row: Row), _ b: (keys: [FieldValue], row: Row), ascending: (Int) -> Bool
  ) -> Bool {
    precedes(
      rows: (a.row, b.row), keyCount: min(a.keys.count, b.keys.count), keys: { (a.keys[$0], b.keys[$0]) },
      ascending: ascending)
  }

  /// `precedes(_:_:ascending:)` for rows whose `index`-th keys `keys(index)` gives, as a pair.
  @inline(__always)
  static func precedes(
    rows: (Row, Row), keyCount: Int, keys: (Int) -> (FieldValue, FieldValue), ascending: (Int) -> Bool
  ) -> Bool {
    for index in 0..<keyCount {
      let (a, b) = keys(index)
      let order = compare(a, b)
      if order != 0 { return ascending(index) ? order < 0 : order > 0 }
    }
    return rows.0 < rows.1
  }

  static func compare(_ a: FieldValue, _ b: FieldValue) -> Int {
    switch (a, b) {
    case (.null, .null): return 0
    case (.null, _): return -1
    case (_, .null): return 1
    case (.integer(let x), .integer(let y)): return x < y ? -1 : (x > y ? 1 : 0)
    case (.double(let x), .double(let y)):
      // NaN sorts after every number, as the ordered index files it.
      if x.isNaN || y.isNaN { return x.isNaN == y.isNaN ? 0 : (x.isNaN ? 1 : -1) }
      return x < y ? -1 : (x > y ? 1 : 0)
    case (.date(let x), .date(let y)): return x < y ? -1 : (x > y ? 1 : 0)
    case (.bool(let x), .bool(let y)): return x == y ? 0 : (x ? 1 : -1)
    case (.string(let x), .string(let y)): return TextMatching.compare(Array(x.utf8), Array(y.utf8))
    default: return 0
    }
  }
}
