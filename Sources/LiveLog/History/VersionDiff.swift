public import Changesets
import LMDB

/// How a query's results changed between two versions of the store.
public struct VersionDiff: Sendable {
  /// The results as of the earlier version.
  public var from: Results
  /// The results as of the later version.
  public var to: Results
  /// Deletions and modifications index into `from`, insertions into `to` (UIKit semantics).
  /// Rows present at both versions are modified when their stored content differs.
  public var changeset: Changeset
}

extension Store {
  /// The changeset of `query`'s results between the versions `from` and `to` (LSNs, `from <= to`).
  ///
  /// Applying the changeset to the results at `from` gives the results at `to`. A repository in
  /// both results is a modification only when its content differs between the two versions (an
  /// edit undone in between is no change), and moves are minimal.
  public func diff(_ query: Query, from: UInt64, to: UInt64) throws -> VersionDiff {
    guard from <= to else {
      throw StoreError.lsnOutOfRange(requested: from, version: to)
    }
    let snapshot = try environment.makeSnapshot()
    return try snapshot.read { txn in
      let current = try log.lastLSN(txn)
      let early = try HistoricalState.at(from, current: current, log: log, txn)
      let late = try HistoricalState.at(to, current: current, log: log, txn)
      let before = HistoricalQuery(materializer: materializer, log: log, txn: txn, state: early)
      let after = HistoricalQuery(materializer: materializer, log: log, txn: txn, state: late)
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
        from: Results(
          store: self, query: query, asOf: from,
          evaluation: .init(rows: .array(oldRows), snapshot: snapshot, version: from, history: early.versions)
        ),
        to: Results(
          store: self, query: query, asOf: to,
          evaluation: .init(rows: .array(newRows), snapshot: snapshot, version: to, history: late.versions)),
        changeset: changeset)
    }
  }
}
