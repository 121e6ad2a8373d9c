import LMDB

/// One record's change in a commit, as live queries consume it: read back from the log, so
/// that commits of this process and of others arrive the same way.
struct CommittedChange: Sendable {
  /// The collection's name.
  var collection: String
  var row: Row
  /// The record's fields after the change (by slot); `nil` for a delete.
  var values: [FieldValue]?
  /// The LSN of the version the change replaced (`nil`: the row did not exist before).
  var previousLSN: UInt64?
}

/// A committed write transaction: a contiguous run of events ending with a commit end.
struct CommittedBatch: Sendable {
  var firstLSN: UInt64
  var lastLSN: UInt64
  var changes: [CommittedChange]
}

extension EventLog {
  /// The commits after `version` through `last`, each record decoded once (with its collection's
  /// current schema) for every live query. Only the changes of `collections` (names) are kept;
  /// schema events change no record.
  func commits(
    after version: UInt64, through last: UInt64, catalog: CatalogState, collections: Set<String>,
    _ txn: some ReadableTransaction
  ) throws -> [CommittedBatch] {
    var batches: [CommittedBatch] = []
    var current = CommittedBatch(firstLSN: version + 1, lastLSN: version, changes: [])
    try forEachHeader(from: version + 1, through: last, txn) { header in
      if header.kind != .schema, let collection = catalog.collection(id: header.collection),
        collections.contains(collection.name)
      {
        var values: [FieldValue]?
        if header.isUpsert {
          do {
            values = try RecordCodec.decode(header.payload, schema: collection.schema)
          } catch {
            throw StoreError.corruptEvent(lsn: header.lsn, reason: "\(error)")
          }
        }
        current.changes.append(
          CommittedChange(
            collection: collection.name, row: Row(truncatingIfNeeded: header.row), values: values,
            previousLSN: header.previousLSN))
      }
      current.lastLSN = header.lsn
      if header.endsCommit {
        batches.append(current)
        current = CommittedBatch(firstLSN: header.lsn + 1, lastLSN: header.lsn, changes: [])
      }
    }
    // Events after the last commit end belong to a commit that replay or import cut short.
    if current.lastLSN > current.firstLSN - 1 { batches.append(current) }
    return batches
  }
}

extension Array where Element == CommittedBatch {
  /// For each batch, where the records of `collection` that later batches change stood just
  /// after it: the LSN of each such row's version then (`nil`: the row did not exist then). What
  /// results delivered as of a batch read, from a snapshot that already holds the later batches.
  func versionsAfterEach(of collection: String) -> [[Row: UInt64?]] {
    var later: [Row: UInt64?] = [:]
    var result = [[Row: UInt64?]](repeating: [:], count: count)
    for index in indices.reversed() {
      result[index] = later
      for change in self[index].changes.reversed() where change.collection == collection {
        later[change.row] = change.previousLSN
      }
    }
    return result
  }
}
