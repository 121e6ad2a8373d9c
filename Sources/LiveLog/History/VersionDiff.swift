public import Changesets
import LMDB

/// How a query's results changed between two versions of the store.
public struct VersionDiff<Element: Sendable>: Sendable {
  /// The results as of the earlier version.
  public var from: Results<Element>
  /// The results as of the later version.
  public var to: Results<Element>
  /// Deletions and modifications index into `from`, insertions into `to` (UIKit semantics).
  /// Rows present at both versions are modified when their stored content differs.
  public var changeset: Changeset
}

extension Results {
  /// The changeset of these results' query between the versions `from` and `to` (LSNs,
  /// `from <= to`).
  ///
  /// Applying the changeset to the results at `from` gives the results at `to`. A record in both
  /// results is a modification only when its content differs between the two versions (an edit
  /// undone in between is no change), and moves are minimal.
  public func diff(from: UInt64, to: UInt64) throws -> VersionDiff<Element> {
    guard from <= to else { throw StoreError.versionsReversed(from: from, to: to) }
    return try store.readState { read in
      guard to <= read.current else { throw StoreError.lsnOutOfRange(requested: to, version: read.current) }
      guard let stored = read.catalog.collection(named: collection) else {
        let empty = ResultsEvaluation(rows: .array([]), view: nil, version: from)
        var late = empty
        late.version = to
        return VersionDiff(
          from: with(query: query, asOf: from, evaluation: empty),
          to: with(query: query, asOf: to, evaluation: late),
          changeset: .empty)
      }
      let before = try read.collection(stored, at: from)
      let after = try read.collection(stored, at: to)
      let oldRows = try before.rows(for: query)
      let newRows = try after.rows(for: query)
      let kept = Set(oldRows).intersection(newRows)
      var changed: Set<Row> = []
      for row in kept where !(try before.record(row)).elementsEqual(try after.record(row)) {
        changed.insert(row)
      }
      let changeset: Changeset
      do {
        changeset = try Changeset(from: oldRows, to: newRows, changed: changed)
      } catch {
        throw StoreError.corruptState(reason: "a result lists a row twice: \(error)")
      }
      return VersionDiff(
        from: with(
          query: query, asOf: from,
          evaluation: ResultsEvaluation(rows: .array(oldRows), view: before.view(of: store), version: from)),
        to: with(
          query: query, asOf: to,
          evaluation: ResultsEvaluation(rows: .array(newRows), view: after.view(of: store), version: to)),
        changeset: changeset)
    }
  }
}

extension Store {
  /// The changeset of `query` over the records of type `R` between two versions; see
  /// `Results.diff(from:to:)`.
  public func diff<R: Record>(_ type: R.Type, _ query: Query, from: UInt64, to: UInt64) throws -> VersionDiff<
    R
  > {
    try objects(type).with(query).diff(from: from, to: to)
  }

  /// The changeset of `query` over the collection `name` between two versions.
  public func diff(in name: String, _ query: Query, from: UInt64, to: UInt64) throws -> VersionDiff<
    RecordValues
  > {
    try objects(in: name).with(query).diff(from: from, to: to)
  }
}
