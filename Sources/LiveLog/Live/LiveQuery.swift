import Changesets

/// One query kept up to date commit by commit: the incremental core of live results.
///
/// It holds every matching row in query order (a counted B-tree, `SortedRows`), and for each
/// commit tests only the records the commit changed, moving them with the changeset engine's
/// incremental path: no re-run of the query, no diff of the whole result. A `LIMIT` is a window
/// over the full result, so a row leaving the window is refilled from the rows behind it. Clauses
/// after the leading sort and limit (`LIMIT(10) SORT(name)`, `DISTINCT(language)`) are applied to
/// that window after each commit, and the visible result is diffed.
struct LiveQuery: Sendable {
  let query: Query
  /// The collection's name.
  let collection: String
  private let predicate: CompiledPredicate
  /// Fields whose changes count as modifications; `nil` for every field.
  let watchedFields: [Field]?
  private(set) var rows: SortedRows<LiveElement>
  private var elements: [Row: LiveElement]
  /// The watched fields' values of each row in the result, to tell whether an update touched them.
  private var watchedValues: [Row: [FieldValue]]
  /// The values of `query.laterClauseFields` of each row in the result, when it has such clauses.
  private var laterValues: [Row: [FieldValue]] = [:]
  /// The last LSN applied.
  private(set) var version: UInt64
  /// Whether each commit is delivered on its own (`coalescing: false`) rather than folded with
  /// the commits that arrive with it.
  var deliversEveryCommit = false

  /// Whether building the live query needs the matching records' fields (to sort, or to watch).
  static func needsValues(_ query: Query, watching keyPaths: [Field]?) -> Bool {
    !query.sort.isEmpty || keyPaths != nil || query.hasLaterClauses
  }

  /// A live query over `matches`, the rows of the result at `version` with their records' fields
  /// (empty arrays when `needsValues` is false).
  init(
    query: Query, collection: String, watching keyPaths: [Field]?, version: UInt64,
    matches: [(row: Row, values: [FieldValue])]
  ) throws {
    self.query = query
    self.collection = collection
    predicate = CompiledPredicate(query.predicate)
    watchedFields = keyPaths
    self.version = version
    var elements: [Row: LiveElement] = [:]
    var watched: [Row: [FieldValue]] = [:]
    var list: [LiveElement] = []
    list.reserveCapacity(matches.count)
    for (row, values) in matches {
      let element = LiveQuery.element(row, values, query.sort)
      list.append(element)
      elements[row] = element
      if let keyPaths, !values.isEmpty { watched[row] = keyPaths.map { values[$0.position] } }
      if query.hasLaterClauses, !values.isEmpty {
        laterValues[row] = query.laterClauseFields.map { values[$0.position] }
      }
    }
    if !query.sort.isEmpty { list.sort() }
    do {
      rows = try SortedRows(sorted: list)
    } catch {
      throw StoreError.corruptState(reason: "a live result holds a row twice: \(error)")
    }
    self.elements = elements
    watchedValues = watched
  }

  private static func element(_ row: Row, _ values: [FieldValue], _ sort: [SortDescriptor]) -> LiveElement {
    if sort.isEmpty { return LiveElement(keys: [], row: row) }
    return LiveElement(
      keys: sort.map { SortComponent(value: values[$0.field.position], ascending: $0.ascending) }, row: row)
  }

  /// The rows of the visible result (the window, for a `LIMIT`).
  var visibleRows: RowList {
    guard query.hasLaterClauses else { return .live(rows, limit: query.limit) }
    return .array(laterRows)
  }

  /// The window through the later clauses.
  private var laterRows: [Row] {
    let window = rows.prefix(query.limit ?? Int.max).map(\.row)
    return LaterClauses.apply(query.leadingOrder.rest, to: window, fields: query.laterClauseFields) {
      laterValues[$0] ?? []
    }
  }

  /// Applies one commit; returns the changeset of the visible result, or `nil` when the commit
  /// left it as it was (no spurious notifications).
  mutating func apply(_ batch: CommittedBatch) throws -> Changeset? {
    defer { version = batch.lastLSN }
    // With later clauses the visible rows are computed, not kept: take them before the commit.
    let laterBefore = query.hasLaterClauses ? laterRows : []
    var changes: [SortedRows<LiveElement>.Change] = []
    var modified: Set<Row> = []
    for change in batch.changes where change.collection == collection {
      let old = elements[change.row]
      var new: LiveElement?
      if let values = change.values, predicate.matches({ values[$0.position] }) {
        new = LiveQuery.element(change.row, values, query.sort)
      }
      if old == nil && new == nil { continue }
      // Every event is a real change of content (identical upserts write none); with key paths,
      // only a change of a watched field counts.
      var contentChanged = old != nil && new != nil
      if contentChanged, let watched = watchedFields, let values = change.values {
        contentChanged = zip(watched, watchedValues[change.row] ?? []).contains {
          $0.1 != values[$0.0.position]
        }
      }
      if contentChanged { modified.insert(change.row) }
      changes.append(.init(old: old, new: new, contentChanged: contentChanged))
      elements[change.row] = new
      if query.hasLaterClauses {
        laterValues[change.row] = change.values.flatMap { values in
          new.map { _ in query.laterClauseFields.map { values[$0.position] } }
        }
      }
      if let watched = watchedFields {
        watchedValues[change.row] = change.values.flatMap { values in
          new.map { _ in watched.map { values[$0.position] } }
        }
      }
    }
    guard !changes.isEmpty else { return nil }
    if query.hasLaterClauses { return try applyLater(changes, before: laterBefore, modified: modified) }
    let window = query.limit
    let before = window.map { Array(rows.prefix($0).map(\.row)) }
    let full: Changeset
    do {
      full = try rows.apply(changes)
    } catch {
      throw StoreError.corruptState(reason: "a live result could not take a commit: \(error)")
    }
    guard let window, let before else { return full.isEmpty ? nil : full }
    // A window: diff its few rows before and after (it refills from the rows behind it).
    let after = Array(rows.prefix(window).map(\.row))
    let changeset: Changeset
    do {
      changeset = try Changeset(from: before, to: after, changed: modified)
    } catch {
      throw StoreError.corruptState(reason: "a live window holds a row twice: \(error)")
    }
    return changeset.isEmpty ? nil : changeset
  }

  /// A commit for a query with later clauses: the visible rows before and after, diffed.
  private mutating func applyLater(
    _ changes: [SortedRows<LiveElement>.Change], before: [Row], modified: Set<Row>
  ) throws -> Changeset? {
    do {
      _ = try rows.apply(changes)
    } catch {
      throw StoreError.corruptState(reason: "a live result could not take a commit: \(error)")
    }
    let changeset: Changeset
    do {
      changeset = try Changeset(from: before, to: laterRows, changed: modified)
    } catch {
      throw StoreError.corruptState(reason: "a live result holds a row twice: \(error)")
    }
    return changeset.isEmpty ? nil : changeset
  }
}
