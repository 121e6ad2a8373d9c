import LMDB

/// One record's change within a commit, as the log and the materialized state see it.
struct RecordChange {
  enum Kind { case inserted, updated, deleted }

  var kind: Kind
  var key: PrimaryKey
  /// The row: the record's place in insertion order, kept across updates.
  var row: UInt64
  /// The stored record before the change (updates and deletes).
  var oldRecord: [UInt8]?
  /// The LSN of the version the change replaces (0: none).
  var previousLSN: UInt64
  /// The event that records the change in the log. For inserts and updates it holds the new
  /// record at `recordStart ..< recordEnd`.
  var event: [UInt8]
  var recordStart: Int
  var recordEnd: Int
  /// The event's LSN, once the commit has assigned it.
  var lsn: UInt64 = 0
  /// The new record's fields (by slot) when the writer has them at hand (saves decoding `event`).
  var newValues: [FieldValue]? = nil

  /// The record after the change, inside `event` (inserts and updates).
  func withNewRecord<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
    try event.withUnsafeBytes { try body(UnsafeRawBufferPointer(rebasing: $0[recordStart..<recordEnd])) }
  }
}

extension StoredCollection {
  /// Writes the changes of one commit to the collection's records, rows, ids and indexes, and
  /// its next row. Old records' index entries are those of `oldSchema` (default: the current
  /// schema; a migration passes the schema its records were written under).
  func apply(
    _ changes: [RecordChange], nextRow: UInt64, _ txn: WriteTransaction, oldSchema: CollectionSchema? = nil
  ) throws {
    guard nextRow <= UInt64(Row.max) else {
      throw StoreError.corruptState(
        reason: "\(name) has used all \(Row.max) rows; rebuild the store with `livelog replay`")
    }
    var indexes = indexWriter(forCommit: true)
    for change in changes {
      if change.kind == .updated, oldSchema == nil, let oldRecord = change.oldRecord,
        let values = change.newValues
      {
        let (old, new) = try updatedEntries(oldRecord, values, row: change.row)
        indexes.change(row: Row(change.row), old: old, new: new)
        continue
      }
      let old = try change.oldRecord.map { bytes in
        try bytes.withUnsafeBytes { try entries(of: $0, row: change.row, schema: oldSchema) }
      }
      let new: IndexEntries? =
        if change.kind == .deleted {
          nil
        } else if let values = change.newValues {
          IndexEntries(values, schema: schema)
        } else {
          try change.withNewRecord { try entries(of: $0, row: change.row) }
        }
      indexes.change(row: Row(change.row), old: old, new: new)
    }
    try indexes.flush(txn)
    for change in changes {
      switch change.kind {
      case .inserted:
        try putRow(change.row, lsn: change.lsn, of: change.key, txn)
        try putKey(change.key, at: change.row, txn)
        // New rows are past every stored row, so they can be appended without a search.
        try change.withNewRecord { try putRecord($0, at: change.row, txn, flags: .append) }
      case .updated:
        try putRow(change.row, lsn: change.lsn, of: change.key, txn)
        try change.withNewRecord { try putRecord($0, at: change.row, txn) }
      case .deleted:
        try withKeyBytes(change.key) { _ = try txn.delete(databases.rows, $0) }
        try txn.delete(databases.ids, change.row)
        try txn.delete(databases.records, change.row)
      }
    }
    try setNextRow(nextRow, txn)
  }

  /// The index entries, before and after, of only the indexed fields an update changed: the
  /// entries of a field it kept are equal on both sides and would cancel out, so a change of
  /// `stargazers_count` alone never folds or splits text into trigrams.
  func updatedEntries(_ oldRecord: [UInt8], _ values: [FieldValue], row: UInt64) throws
    -> (old: IndexEntries, new: IndexEntries)
  {
    let stored = try oldRecord.withUnsafeBytes { try self.values($0, row: row) }
    let changed = schema.fields.filter { field in
      !field.indexes.isEmpty
        && (field.position < stored.count ? stored[field.position] : .null)
          != (field.position < values.count ? values[field.position] : .null)
    }
    guard !changed.isEmpty else { return (IndexEntries(), IndexEntries()) }
    return (IndexEntries(stored, fields: changed), IndexEntries(values, fields: changed))
  }
}
