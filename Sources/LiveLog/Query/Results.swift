import LMDB
import Synchronization

/// The records of one collection that match a query, as a random-access collection frozen at one
/// version of the store.
///
/// ```swift
/// let results = try store.objects(Repository.self)
///   .filter("full_name CONTAINS[c] %@ AND language = %@", "anim", "Swift")
/// for repository in results { print(repository.fullName) }
/// ```
///
/// `Element` is the record type (`store.objects(Bookmark.self)`), or `RecordValues` for a
/// collection read by name (`store.objects(in: "bookmarks")`).
///
/// A `Results` is built without touching the store; it runs its query on first use and is frozen
/// at the version it saw (as Realm's frozen results), so `count`, subscripts and iteration agree
/// however the store changes meanwhile. It holds no LMDB reader while it lives: each access is one
/// short read, and records that later commits changed are read, as they were, from the log.
/// Records are decoded when accessed.
///
/// Collection access cannot throw: if running the query fails (an I/O error, a damaged store),
/// the collection is empty and `error` says why; a record that cannot be read comes back blank
/// (every field empty) from the subscript, and `record(at:)` throws instead. Call `evaluate()` to
/// run the query and get its error thrown.
public final class Results<Element: Sendable>: RandomAccessCollection, Sendable {
  /// The store the results come from.
  public let store: Store
  /// The collection's name.
  public let collection: String
  /// The collection's schema when the results were made: the fields queries may name.
  public let schema: CollectionSchema
  /// The query they answer.
  public let query: Query
  /// The LSN the results are as of, or `nil` for the store's version when they run.
  public let asOf: UInt64?
  let decoding: ElementDecoding<Element>
  private let state = Mutex<ResultsEvaluation?>(nil)

  init(
    store: Store, collection: String, schema: CollectionSchema, query: Query, asOf: UInt64? = nil,
    decoding: ElementDecoding<Element>, evaluation: ResultsEvaluation? = nil
  ) {
    self.store = store
    self.collection = collection
    self.schema = schema
    self.query = query
    self.asOf = asOf
    self.decoding = decoding
    if let evaluation { state.withLock { $0 = evaluation } }
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

  var evaluated: ResultsEvaluation {
    if let done = state.withLock({ $0 }) { return done }
    let evaluation: ResultsEvaluation
    do {
      evaluation = try store.readState { try ResultsEvaluation.run(query, of: collection, asOf: asOf, $0) }
    } catch {
      evaluation = .failed(error)
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

  /// The record at `position`, which must be a valid index (as for any collection). A record that
  /// cannot be decoded (a damaged store) reads as a blank record; `record(at:)` throws instead.
  public subscript(position: Int) -> Element {
    let evaluation = evaluated
    precondition(
      position >= 0 && position < evaluation.rows.count, "Results index \(position) is out of range")
    do {
      return try record(at: position, evaluation)
    } catch {
      if let blank = decoding.blank(evaluation.view?.collection) { return blank }
      preconditionFailure(
        "a record of \(collection) cannot be read, and \(Element.self) has no blank value: \(error)")
    }
  }

  /// The record at `position` (a valid index), or the error that kept it from being read.
  public func record(at position: Int) throws -> Element {
    let evaluation = evaluated
    if let error = evaluation.error { throw error.error }
    precondition(
      position >= 0 && position < evaluation.rows.count, "Results index \(position) is out of range")
    return try record(at: position, evaluation)
  }

  private func record(at position: Int, _ evaluation: ResultsEvaluation) throws -> Element {
    guard let view = evaluation.view else {
      throw StoreError.corruptState(reason: "results of \(collection) hold a row but no collection")
    }
    let row = evaluation.rows[position]
    let values = try view.read { try $0.values(row) }
    return try decoding.decode(values, UInt64(row), view.collection)
  }

  /// The primary keys of the results, in order, from the store's keys by row (in memory once
  /// results have read many, else the row table; no record is read, except of rows changed since
  /// the results' version).
  public func keys() throws -> [PrimaryKey] {
    let evaluation = evaluated
    if let error = evaluation.error { throw error.error }
    guard let view = evaluation.view else { return [] }
    if let integers = evaluation.integerKeys { return integers.map { .integer($0) } }
    let rows = evaluation.rows.rows
    return try view.read { try $0.keys(rows) }
  }

  /// Rows of the results, in order (the engine's own numbering, for live queries and tests).
  var rows: [Row] { evaluated.rows.rows }

  // MARK: Building

  /// Results of the same collection with another query (and the same as-of LSN).
  public func with(_ query: Query) -> Results {
    Results(
      store: store, collection: collection, schema: schema, query: query, asOf: asOf, decoding: decoding)
  }

  /// These results as of an earlier LSN: exactly what a store that had received only the events
  /// up to `lsn` would give.
  public func asOf(_ lsn: UInt64) -> Results {
    Results(store: store, collection: collection, schema: schema, query: query, asOf: lsn, decoding: decoding)
  }

  /// Results like these with another evaluation (live queries, diffs).
  func with(query: Query, asOf: UInt64?, evaluation: ResultsEvaluation) -> Results {
    Results(
      store: store, collection: collection, schema: schema, query: query, asOf: asOf, decoding: decoding,
      evaluation: evaluation)
  }
}

extension Results where Element: Record {
  /// The ids of the results, in order, read without decoding records.
  public func ids() throws -> [Element.ID] {
    // Integer ids come straight from the keys by row, with no `PrimaryKey` in between.
    if Element.ID.self == Int64.self {
      let evaluation = evaluated
      if let error = evaluation.error { throw error.error }
      guard let view = evaluation.view else { return [] }
      if let integers = evaluation.integerKeys {
        // The same type (checked above): a reinterpretation, not the element-wise `as?` cast.
        return unsafeBitCast(integers, to: [Element.ID].self)
      }
      let rows = evaluation.rows.rows
      // A read transaction, when the cache holds every row, costs more than the keys' loads. Only
      // the read notices a store replaced while the results were held (`VersionView.read`): keys
      // the cache holds are taken as they are, as a covered range's keys already were.
      if let integers = try view.cachedIntegerKeys(rows) ?? view.read({ try $0.integerKeys(rows) }) {
        // The same type (checked above): a reinterpretation, not the element-wise `as?` cast.
        return unsafeBitCast(integers, to: [Element.ID].self)
      }
    }
    let keys = try keys()
    if let ids = Element.ID.values(ofPrimaryKeys: keys) { return ids }
    let key = keys.first { Element.ID(primaryKey: $0) == nil }
    throw StoreError.corruptState(
      reason: "\(collection): the key \(key.map(String.init(describing:)) ?? "?") is not a \(Element.ID.self)"
    )
  }
}

/// How results make their elements from stored values.
struct ElementDecoding<Element>: Sendable {
  let decode: @Sendable ([FieldValue], UInt64, StoredCollection) throws -> Element
  /// The element a record that cannot be read stands as.
  let blank: @Sendable (StoredCollection?) -> Element?
}

extension ElementDecoding where Element: Record {
  static func typed(_ binding: TypedBinding<Element>) -> ElementDecoding {
    ElementDecoding(
      decode: { values, row, stored in try binding.decode(values, row: row, collection: stored) },
      blank: { _ in RecordProbe.blank(Element.self) })
  }
}

extension ElementDecoding where Element == RecordValues {
  static var values: ElementDecoding {
    ElementDecoding(
      decode: { values, _, stored in RecordValues(schema: stored.schema, values: values) },
      blank: { stored in stored.map { RecordValues(schema: $0.schema, values: []) } })
  }
}

/// An error kept to be thrown later, from any thread.
struct StoreFailure: @unchecked Sendable {
  // @unchecked: errors are values; LiveLog's own are Sendable, and others are only rethrown.
  let error: any Error
  init(_ error: any Error) { self.error = error }
}

extension Results {
  /// The same results (the same query, version and rows), read as field values: how code that
  /// does not know the record type reads any collection's results.
  public var recordValues: Results<RecordValues> {
    Results<RecordValues>(
      store: store, collection: collection, schema: schema, query: query, asOf: asOf, decoding: .values,
      evaluation: state.withLock { $0 })
  }
}
