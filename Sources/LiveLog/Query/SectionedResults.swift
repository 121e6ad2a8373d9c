public import Changesets

/// Results split into sections by the value of one field, as Realm's `SectionedResults`: each
/// section holds the positions of the results whose field has one value, in result order, and the
/// sections come in the order their first row does (sort the results by the field first for
/// contiguous sections: `.sorted(by: "language").sectioned(by: "language")`).
///
/// ```swift
/// let byLanguage = try store.objects(Repository.self).sorted(by: "language").sectioned(by: "language")
/// for section in try byLanguage.sections() { print(section.key, section.positions.count) }
/// for try await change in byLanguage.changes { … }   // .initial, then .update(_, SectionedChangeset)
/// ```
public struct SectionedResults<Element: Sendable>: Sendable {
  /// The results the sections split.
  public let results: Results<Element>
  /// The field whose value names each section.
  public let field: Field

  /// One section: the value of the field, and the positions in `results` of its rows.
  public struct Section: Sendable, Hashable {
    /// The field's value for every row of the section (`nil` when the field is empty).
    public var key: FieldValue?
    /// Positions in `results`, ascending.
    public var positions: [Int]
  }

  /// The sections, reading the field of every row (one short read).
  public func sections() throws -> [Section] {
    let evaluation = results.evaluated
    if let error = evaluation.error { throw error.error }
    guard let view = evaluation.view else { return [] }
    let rows = evaluation.rows.rows
    let keys = try view.read { records in
      try rows.map { row -> FieldValue? in
        let values = try records.values(row)
        let value = field.position < values.count ? values[field.position] : nil
        return value == FieldValue.null ? nil : value
      }
    }
    var order: [FieldValue?] = []
    var positions: [FieldValue?: [Int]] = [:]
    for (position, key) in keys.enumerated() {
      if positions[key] == nil { order.append(key) }
      positions[key, default: []].append(position)
    }
    return order.map { Section(key: $0, positions: positions[$0] ?? []) }
  }

  /// The sections as identified rows, for `SectionedChangeset`.
  func identified() throws -> [IdentifiedSection<FieldValue?, Row>] {
    let rows = results.rows
    return try sections().map { IdentifiedSection(key: $0.key, ids: $0.positions.map { rows[$0] }) }
  }
}

extension Results {
  /// These results split into sections by `field` (a field name as in queries).
  public func sectioned(by field: String) throws(QueryError) -> SectionedResults<Element> {
    guard let fields = try fields([field]), let first = fields.first else {
      throw QueryError(kind: .unknownField, message: "unknown field '\(field)'")
    }
    return SectionedResults(results: self, field: first)
  }
}

/// A delivery of sectioned live results: the sections when the subscription starts, then the
/// sections after each commit that changes them and the sectioned changeset to them.
public enum SectionedResultsChange<Element: Sendable>: Sendable {
  case initial(SectionedResults<Element>)
  case update(SectionedResults<Element>, SectionedChangeset)
}

/// The changes of sectioned results, as a throwing `AsyncSequence` (see `ResultsChanges`). Each
/// update's sectioned changeset is the diff of the sections before and after (sections matched by
/// key, rows by identity; a row whose content changed is a modification), so it is exact however
/// many commits it spans; it costs one read of the section field per row of the results.
public struct SectionedResultsChanges<Element: Sendable>: AsyncSequence, Sendable {
  public typealias Element = SectionedResultsChange<Element>
  let changes: ResultsChanges<Element>
  let field: Field

  public func makeAsyncIterator() -> Iterator {
    Iterator(base: changes.makeAsyncIterator(), field: field)
  }

  public struct Iterator: AsyncIteratorProtocol {
    var base: ResultsChanges<Element>.Iterator
    let field: Field
    var previous: [IdentifiedSection<FieldValue?, Row>]?

    public mutating func next() async throws -> SectionedResultsChange<Element>? {
      guard let change = try await base.next() else { return nil }
      let sectioned = SectionedResults(results: change.results, field: field)
      let sections = try sectioned.identified()
      defer { previous = sections }
      switch change {
      case .initial:
        return .initial(sectioned)
      case .update(let results, let changeset):
        let rows = results.rows
        let modified = Set(changeset.modificationsNew.map { rows[$0] })
        let sectionedChangeset = try SectionedChangeset(from: previous ?? [], to: sections, changed: modified)
        return .update(sectioned, sectionedChangeset)
      }
    }
  }
}

extension SectionedResults {
  /// The changes of these sectioned results, coalescing commits a slow consumer missed.
  public var changes: SectionedResultsChanges<Element> {
    SectionedResultsChanges(changes: results.changes, field: field)
  }

  /// The changes of these sectioned results; `keyPaths` and `since` as for
  /// `Results.changes(keyPaths:since:coalescing:)`.
  public func changes(keyPaths: [String]? = nil, since: UInt64? = nil) throws(QueryError)
    -> SectionedResultsChanges<Element>
  {
    SectionedResultsChanges(changes: try results.changes(keyPaths: keyPaths, since: since), field: field)
  }
}
