import LMDB
import Synchronization

/// The repositories that match a query, as a random-access collection over one read snapshot.
///
/// ```swift
/// let results = try store.objects(Repository.self)
///   .filter("full_name CONTAINS[c] %@ AND language = %@", "anim", "Swift")
/// for repository in results { print(repository.fullName) }
/// ```
///
/// A `Results` is built without touching the store; it runs its query on first use and keeps the
/// state it saw (one LMDB read transaction) for its whole life, so `count`, subscripts and
/// iteration agree however the store changes meanwhile. Records are decoded when accessed.
///
/// Collection access cannot throw: if running the query fails (an I/O error, a damaged store),
/// the collection is empty and `error` says why. Call `evaluate()` to run it and get the error
/// thrown instead.
public final class Results: RandomAccessCollection, Sendable {
  /// The store the results come from.
  public let store: Store
  /// The query they answer.
  public let query: Query
  /// The LSN the results are as of, or `nil` for the store's version when they run.
  public let asOf: UInt64?
  private let state = Mutex<Evaluation?>(nil)

  struct Evaluation: Sendable {
    var rows: RowList
    var snapshot: Snapshot?
    var version: UInt64
    /// Rows whose record must be read from the log, at these LSNs (as-of results).
    var history: [Row: UInt64] = [:]
    var error: StoreFailure?
  }

  init(store: Store, query: Query, asOf: UInt64? = nil) {
    self.store = store
    self.query = query
    self.asOf = asOf
  }

  init(store: Store, query: Query, asOf: UInt64? = nil, evaluation: Evaluation) {
    self.store = store
    self.query = query
    self.asOf = asOf
    state.withLock { $0 = evaluation }
  }

  /// Runs the query now (if it has not run yet); throws what went wrong.
  @discardableResult
  public func evaluate() throws -> Results {
    let evaluation = evaluated
    if let error = evaluation.error { throw error.error }
    return self
  }

  /// Why running the query failed, or `nil`.
  public var error: (any Error)? { evaluated.error?.error }

  /// The store's version (last LSN) the results reflect.
  public var version: UInt64 { evaluated.version }

  var evaluated: Evaluation {
    if let done = state.withLock({ $0 }) { return done }
    let evaluation: Evaluation
    do {
      let snapshot = try store.environment.makeSnapshot()
      evaluation = try snapshot.read { txn in
        let current = try store.log.lastLSN(txn)
        if let asOf, asOf != current {
          let history = try HistoricalState.at(asOf, current: current, log: store.log, txn)
          let run = HistoricalQuery(
            materializer: store.materializer, log: store.log, txn: txn, state: history)
          return Evaluation(
            rows: .array(try run.rows(for: query)), snapshot: snapshot, version: asOf,
            history: history.versions)
        }
        var run = QueryRun(materializer: store.materializer, txn: txn)
        return Evaluation(rows: .array(try run.rows(for: query)), snapshot: snapshot, version: current)
      }
    } catch {
      evaluation = Evaluation(rows: .array([]), snapshot: nil, version: 0, error: StoreFailure(error))
    }
    return state.withLock { current in
      if let current { return current }
      current = evaluation
      return evaluation
    }
  }

  // MARK: Collection

  public var startIndex: Int { 0 }
  public var endIndex: Int { evaluated.rows.count }

  /// The repository at `position`. A record that cannot be decoded (a damaged store) reads as
  /// a placeholder whose `fullName` says so; `repository(at:)` throws instead.
  public subscript(position: Int) -> Repository {
    do {
      return try repository(at: position)
    } catch {
      return Repository(id: 0, fullName: "<unreadable record: \(error)>")
    }
  }

  /// The repository at `position`, or the error that kept it from being read.
  public func repository(at position: Int) throws -> Repository {
    let evaluation = evaluated
    if let error = evaluation.error { throw error.error }
    guard position >= 0, position < evaluation.rows.count, let snapshot = evaluation.snapshot else {
      throw StoreError.corruptState(
        reason: "result position \(position) is outside 0..<\(evaluation.rows.count)")
    }
    let row = evaluation.rows[position]
    return try snapshot.read { txn in
      try StoredRecord.repository(try record(row, evaluation, txn), row: UInt64(row))
    }
  }

  /// The record of `row` as the results see it.
  private func record(_ row: Row, _ evaluation: Evaluation, _ txn: Transaction) throws
    -> UnsafeRawBufferPointer
  {
    if let lsn = evaluation.history[row] { return try store.log.record(at: lsn, txn) }
    guard let bytes = try txn.get(store.materializer.records, UInt64(row)) else {
      throw StoreError.corruptState(reason: "row \(row) has no record")
    }
    return bytes
  }

  /// The ids of the results, in order, from the compact row → id table (no record is read).
  public func ids() throws -> [Int64] {
    let evaluation = evaluated
    if let error = evaluation.error { throw error.error }
    guard let snapshot = evaluation.snapshot else { return [] }
    let rows = evaluation.rows.rows
    return try snapshot.read { txn in
      // Read in row order with one cursor: neighbouring rows share pages.
      var order = Array(rows.indices)
      if !rows.isSortedAscending { order.sort { rows[$0] < rows[$1] } }
      var ids = [Int64](repeating: 0, count: rows.count)
      try txn.withCursor(store.materializer.ids) { cursor in
        for index in order {
          let row = rows[index]
          if let lsn = evaluation.history[row] {
            ids[index] = try RecordView(bytes: try store.log.record(at: lsn, txn), row: row).id()
            continue
          }
          guard let entry = try cursor.seek(to: UInt64(row)) else {
            throw StoreError.corruptState(reason: "row \(row) has no id")
          }
          ids[index] = try Materializer.id(entry.value, row: UInt64(row))
        }
      }
      return ids
    }
  }

  /// Rows of the results, in order (the engine's own numbering, for live queries and tests).
  var rows: [Row] { evaluated.rows.rows }

  // MARK: Building

  /// Results of the same store with another query (and the same as-of LSN).
  public func with(_ query: Query) -> Results { Results(store: store, query: query, asOf: asOf) }

  /// These results as of an earlier LSN: exactly what a store that had received only the events
  /// up to `lsn` would give.
  public func asOf(_ lsn: UInt64) -> Results { Results(store: store, query: query, asOf: lsn) }
}

/// An error kept to be thrown later, from any thread.
struct StoreFailure: @unchecked Sendable {
  // @unchecked: errors are values; LiveLog's own are Sendable, and others are only rethrown.
  let error: any Error
  init(_ error: any Error) { self.error = error }
}

extension Store {
  /// Every repository, to be narrowed with `filter`, `where`, `sorted` and `limit`.
  public func objects(_ type: Repository.Type = Repository.self) -> Results {
    Results(store: self, query: Query())
  }

  /// The results of `query`, run now; as of `lsn` when given (see `Results.asOf(_:)`).
  public func results(_ query: Query, asOf lsn: UInt64? = nil) throws -> Results {
    try Results(store: self, query: query, asOf: lsn).evaluate()
  }

  /// How the store answers `query`: the plan's steps with estimated and actual candidates.
  public func explain(_ query: Query) throws -> QueryExplanation {
    try environment.read { txn in
      var run = QueryRun(materializer: materializer, txn: txn)
      let rows = try run.rows(for: query)
      return QueryExplanation(query: query, steps: run.steps, checked: run.checked, results: rows.count)
    }
  }
}

/// The plan of a query and what running it took.
public struct QueryExplanation: Sendable, Hashable {
  public var query: Query
  /// The plan, depth first.
  public var steps: [PlanStep]
  /// Records read to check candidates (0 when the indexes answered exactly).
  public var checked: Int
  /// Rows in the result.
  public var results: Int

  /// Whether any index served the query.
  public var usesIndex: Bool {
    steps.contains { $0.description.contains("index") && $0.skipped == nil }
  }
}

extension Results {
  /// These results narrowed by a predicate in the query language, with `%@` values and `%K`
  /// field names taken from `arguments`, as in Realm:
  /// `store.objects(Repository.self).filter("full_name CONTAINS[c] %@ AND language = %@", term, "Swift")`.
  public func filter(_ text: String, _ arguments: any QueryArgument...) throws(QueryError) -> Results {
    with(try query.filter(text, arguments: arguments))
  }

  /// These results narrowed by a condition the compiler checks:
  /// `.where { $0.fullName.contains(term, options: .caseInsensitive) && $0.language == "Swift" }`.
  public func `where`(_ build: (RepositoryFields) -> QueryCondition) -> Results {
    with(query.where(build))
  }

  /// These results sorted by a field named as in queries (`stargazers_count`), after any
  /// earlier sort keys; ties keep insertion order.
  public func sorted(by field: String, ascending: Bool = true) throws(QueryError) -> Results {
    with(try query.sorted(by: field, ascending: ascending))
  }

  /// These results sorted by a typed field: `.sorted(by: \.stargazersCount, ascending: false)`.
  public func sorted<F: SortableField>(by keyPath: KeyPath<RepositoryFields, F>, ascending: Bool = true)
    -> Results
  {
    with(query.sorted(by: keyPath, ascending: ascending))
  }

  /// At most the first `count` results.
  public func limit(_ count: Int) -> Results {
    with(query.limit(count))
  }
}

extension Array where Element == Row {
  fileprivate var isSortedAscending: Bool {
    indices.dropFirst().allSatisfy { self[$0 - 1] < self[$0] }
  }
}
