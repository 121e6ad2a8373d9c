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
  private let state = Mutex<Evaluation?>(nil)

  struct Evaluation: Sendable {
    var rows: [Row]
    var snapshot: Snapshot?
    var version: UInt64
    var error: StoreFailure?
  }

  init(store: Store, query: Query) {
    self.store = store
    self.query = query
  }

  init(store: Store, query: Query, evaluation: Evaluation) {
    self.store = store
    self.query = query
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

  private var evaluated: Evaluation {
    if let done = state.withLock({ $0 }) { return done }
    let evaluation: Evaluation
    do {
      let snapshot = try store.environment.makeSnapshot()
      evaluation = try snapshot.read { txn in
        var run = QueryRun(materializer: store.materializer, txn: txn)
        let rows = try run.rows(for: query)
        return Evaluation(rows: rows, snapshot: snapshot, version: try store.log.lastLSN(txn), error: nil)
      }
    } catch {
      evaluation = Evaluation(rows: [], snapshot: nil, version: 0, error: StoreFailure(error))
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
    guard evaluation.rows.indices.contains(position), let snapshot = evaluation.snapshot else {
      throw StoreError.corruptState(
        reason: "result position \(position) is outside 0..<\(evaluation.rows.count)")
    }
    let row = evaluation.rows[position]
    return try snapshot.read { txn in
      guard let bytes = try txn.get(store.materializer.records, UInt64(row)) else {
        throw StoreError.corruptState(reason: "row \(row) has no record")
      }
      return try StoredRecord.repository(bytes, row: UInt64(row))
    }
  }

  /// The ids of the results, in order, from the compact row → id table (no record is read).
  public func ids() throws -> [Int64] {
    let evaluation = evaluated
    if let error = evaluation.error { throw error.error }
    guard let snapshot = evaluation.snapshot else { return [] }
    let rows = evaluation.rows
    return try snapshot.read { txn in
      // Read records in row order with one cursor: neighbouring rows share pages.
      var order = Array(rows.indices)
      if !rows.isSortedAscending { order.sort { rows[$0] < rows[$1] } }
      var ids = [Int64](repeating: 0, count: rows.count)
      try txn.withCursor(store.materializer.ids) { cursor in
        for index in order {
          let row = rows[index]
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
  var rows: [Row] { evaluated.rows }

  // MARK: Building

  /// Results of the same store with another query.
  public func with(_ query: Query) -> Results { Results(store: store, query: query) }
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

  /// The results of `query`, run now.
  public func results(_ query: Query) throws -> Results {
    try Results(store: self, query: query).evaluate()
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
