import LMDB

/// One record's change within a commit, as the log and the materialized state see it.
struct RecordChange {
  enum Kind { case inserted, updated, deleted }

  var kind: Kind
  var key: PrimaryKey
  /// The row: the record's place in insertion order, kept across updates.
  var row: UInt64
  /// The stored record before the change (updates and deletes), when the writer read it.
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
  /// Writes the changes of one commit to the collection's state: keys, count and next row, and
  /// either the recent rows (a small commit) or, through a fold, the row table and the segments.
  /// `oldSchema` is set by a migration, whose records change schema: the state of its rows is
  /// written, and the migration rebuilds the indexes once all are written.
  func apply(
    _ changes: [RecordChange], nextRow: UInt64, _ txn: WriteTransaction, oldSchema: CollectionSchema? = nil,
    recentCapacity: Int = RecentRows.capacity
  ) throws {
    guard nextRow <= UInt64(Row.max) else {
      throw StoreError.rowsUsedUp(collection: name, rows: UInt64(Row.max))
    }
    var count = try self.count(txn)
    for change in changes {
      switch change.kind {
      case .inserted:
        try putKey(change.key, row: change.row, txn)
        count += 1
      case .deleted:
        try deleteKey(change.key, txn)
        count -= 1
      case .updated: break
      }
    }
    try setCount(count, txn)
    try setNextRow(nextRow, txn)
    let recent = try txn.statistics(databases.recent).entries
    if oldSchema == nil && changes.count <= min(RecentRows.smallCommit, recentCapacity)
      && recent + changes.count <= recentCapacity
    {
      try fileRecent(changes, txn)
    } else {
      try fold(changes, nextRow: nextRow, txn, indexes: oldSchema == nil)
    }
  }

  /// Files each change as its row's recent entry.
  ///
  /// The entries of upserts, most of a small commit's time, are encoded on every core: they are
  /// computed from the records' values alone. The transaction is read and written on this thread
  /// only, before and after.
  private func fileRecent(_ changes: [RecordChange], _ txn: WriteTransaction) throws {
    var pending: [(isNew: Bool, lsn: UInt64, key: PrimaryKey, values: [FieldValue])] = []
    var placed: [(row: UInt64, deletedEntry: [UInt8]?)] = []
    for change in changes {
      let row = UInt64(change.row)
      let wasNew: Bool? = try txn.get(databases.recent, row).map { try recentEntry($0, row: Row(row)).isNew }
      switch change.kind {
      case .deleted:
        // A row no fold has seen leaves no trace.
        if wasNew == true {
          try txn.delete(databases.recent, row)
          continue
        }
        placed.append((row, withKeyBytes(change.key) { RecentEntry.encodeDeleted(lsn: change.lsn, key: $0) }))
      case .inserted, .updated:
        pending.append(
          (change.kind == .inserted || wasNew == true, change.lsn, change.key, try newValues(of: change)))
        placed.append((row, nil))
      }
    }
    let (fields, upserts) = (schema.fields, pending)
    let encoded = try ParallelMap.mapParts(upserts.count, minimum: Self.recentEntriesPerWorker) { part in
      var encoder = RecentEntry.Encoder()
      return upserts[part].map { upsert in
        withKeyBytes(upsert.key) {
          encoder.encode(isNew: upsert.isNew, lsn: upsert.lsn, key: $0, values: upsert.values, fields: fields)
        }
      }
    }.joined()
    var next = encoded.startIndex
    for (row, deletedEntry) in placed {
      if let deletedEntry {
        try txn.put(databases.recent, row, deletedEntry)
      } else {
        try txn.put(databases.recent, row, encoded[next])
        next = encoded.index(after: next)
      }
    }
  }

  /// The fewest upserts whose recent entries make a part of their own: an entry takes about 4 µs
  /// (profiled in commits of 100 records), and each part waits for a worker to wake. A commit of
  /// a page of 30 search results stays on this thread.
  private static let recentEntriesPerWorker = 32

  /// A change's new record's values, by slot.
  func newValues(of change: RecordChange) throws -> [FieldValue] {
    if let values = change.newValues { return values }
    return try change.withNewRecord { try values($0, row: change.row) }
  }
}
