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
  /// The upsert's place in its commit's batch, by which a `RecentIndexJob` holds the index part
  /// of its recent entry.
  var placeInBatch: Int? = nil

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
    recentCapacity: Int = RecentRows.capacity, recentIndexes: RecentIndexJob? = nil
  ) throws {
    guard nextRow <= UInt64(Row.max) else {
      throw StoreError.rowsUsedUp(collection: name, rows: UInt64(Row.max))
    }
    var count = try self.count(txn)
    // By index: a loop over the changes copies each, retaining its arrays and key, a tenth of a
    // bulk commit's own work on the writer's thread.
    for index in changes.indices {
      switch changes[index].kind {
      case .inserted:
        try putKey(changes[index].key, row: changes[index].row, txn)
        count += 1
      case .deleted:
        try deleteKey(changes[index].key, txn)
        count -= 1
      case .updated: break
      }
    }
    try setCount(count, txn)
    try setNextRow(nextRow, txn)
    let recent = try txn.statistics(databases.recent).entries
    if oldSchema == nil && RecentRows.files(changes.count, besides: recent, capacity: recentCapacity) {
      try fileRecent(changes, txn, recentIndexes)
    } else {
      try fold(changes, nextRow: nextRow, txn, indexes: oldSchema == nil)
    }
  }

  /// Files each change as its row's recent entry, with the index parts `job` encoded, if any.
  private func fileRecent(_ changes: [RecordChange], _ txn: WriteTransaction, _ job: RecentIndexJob?) throws {
    var prepared: [Int: [UInt8]] = [:]
    if let job {
      let positions = changes.compactMap { $0.kind == .deleted ? nil : $0.placeInBatch }
      for (position, indexes) in zip(positions, job.indexes(at: positions)) { prepared[position] = indexes }
      job.cancel()
    }
    var encoder = RecentEntry.Encoder()
    let indexed = schema.indexedFields
    // Rows past the last recent one (new rows, mostly) are appended (`MDB_APPEND`): a page they
    // fill is left full, where a put splits it in the middle and leaves it so; and they need no
    // lookup, having no entry yet.
    // (A last key of another size is damage, which a later read reports: then nothing appends.)
    var last = try txn.withCursor(databases.recent) { try $0.last().map { $0.integerKey ?? .max } }
    for change in changes {
      let row = UInt64(change.row)
      let appends = last.map { row > $0 } ?? true
      let wasNew: Bool? =
        appends ? nil : try txn.get(databases.recent, row).map { try recentEntry($0, row: Row(row)).isNew }
      let value: [UInt8]
      switch change.kind {
      case .deleted:
        // A row no fold has seen leaves no trace.
        if wasNew == true {
          try txn.delete(databases.recent, row)
          continue
        }
        value = withKeyBytes(change.key) { RecentEntry.encodeDeleted(lsn: change.lsn, key: $0) }
      case .inserted, .updated:
        let indexes =
          try change.placeInBatch.flatMap { prepared[$0] }
          ?? encoder.indexes(values: newValues(of: change), fields: indexed)
        value = withKeyBytes(change.key) {
          RecentEntry.entry(
            isNew: change.kind == .inserted || wasNew == true, lsn: change.lsn, key: $0, indexes: indexes)
        }
      }
      try txn.put(databases.recent, row, value, flags: appends ? .append : [])
      if appends { last = row }
    }
  }

  /// A change's new record's values, by slot.
  func newValues(of change: RecordChange) throws -> [FieldValue] {
    if let values = change.newValues { return values }
    return try change.withNewRecord { try values($0, row: change.row) }
  }
}
