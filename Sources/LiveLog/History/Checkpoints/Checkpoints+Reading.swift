import LMDB

extension Checkpoints {
  /// The first row of `collection` created in interval `first` or later, or `nil` when none was.
  func firstCreatedRow(collection: UInt32, from first: UInt64, _ txn: some ReadableTransaction) throws
    -> UInt64?
  {
    let prefix = Self.createdKey(collection: collection, interval: first).prefix(5)
    return try txn.withCursor(database) { cursor in
      guard let entry = try cursor.seek(atLeast: Self.createdKey(collection: collection, interval: first)),
        entry.key.count == 13, entry.key.starts(with: prefix)
      else { return nil }
      return try Self.integer(entry.value, "a first created row")
    }
  }

  /// The rows of `collection` whose value in one of `slots` an update in intervals `first ...
  /// last` changed (or, under `deletedSlot`, that a delete removed), ascending, each once.
  func changedRows(
    collection: UInt32, from first: UInt64, through last: UInt64, slots: [UInt16],
    _ txn: some ReadableTransaction
  ) throws -> [Row] {
    guard first <= last, !slots.isEmpty else { return [] }
    var rows: [Row] = []
    try txn.withCursor(database) { cursor in
      for interval in first...last {
        for slot in slots {
          let prefix = Self.changedPrefix(collection: collection, interval: interval, slot: slot)
          var entry = try cursor.seek(atLeast: prefix)
          while let found = entry, found.key.count == prefix.count + 8, found.key.starts(with: prefix) {
            rows.append(Row(truncatingIfNeeded: found.key.bigEndian(at: prefix.count, as: UInt64.self)))
            entry = try cursor.next()
          }
        }
      }
    }
    return RowSet.normalized(rows)
  }

  /// The version of `row` of `collection` at the checkpoint before interval `first`, if an event
  /// in interval `first` or later changed the row (otherwise its version then is its version now).
  func version(
    of row: UInt64, collection: UInt32, from first: UInt64, _ cursor: inout Cursor
  ) throws -> UInt64? {
    let key = Self.versionKey(collection: collection, row: row, interval: first)
    guard let entry = try cursor.seek(atLeast: key), entry.key.count == key.count,
      entry.key.starts(with: key.prefix(13))
    else { return nil }
    return try Self.integer(entry.value, "row \(row)'s version")
  }

  private static func integer(_ value: UnsafeRawBufferPointer, _ what: String) throws -> UInt64 {
    guard value.count == 8 else {
      throw StoreError.corruptState(
        reason: "the checkpoints hold \(what) of \(value.count) bytes; "
          + "run `livelog replay --in-place` to rebuild them")
    }
    return UInt64(littleEndian: value.loadUnaligned(as: UInt64.self))
  }
}

/// Where an as-of state stands relative to the checkpoints: the version's checkpoint (the first
/// at or after it), and the rows created since the version.
struct CheckpointBase: Sendable {
  let checkpoints: Checkpoints
  let collection: UInt32
  /// The first interval after the version's checkpoint.
  let firstInterval: UInt64
  /// The interval of the last summarized event (the log's end).
  let lastInterval: UInt64
  /// Rows at or past it were created after the version; `nil` when no row was.
  let firstNewRow: UInt64?

  /// Whether `row` was created after the version.
  func isNew(_ row: Row) -> Bool { firstNewRow.map { UInt64(row) >= $0 } ?? false }

  /// The rows changed after the checkpoint in `slots` (and the deleted ones with `deletedSlot`).
  func changedRows(slots: [UInt16], _ txn: some ReadableTransaction) throws -> [Row] {
    try checkpoints.changedRows(
      collection: collection, from: firstInterval, through: lastInterval, slots: slots, txn)
  }

  /// `row`'s version at the checkpoint, when an event after it changed the row.
  func version(of row: Row, _ txn: some ReadableTransaction) throws -> UInt64? {
    try txn.withCursor(checkpoints.database) { cursor in
      try checkpoints.version(of: UInt64(row), collection: collection, from: firstInterval, &cursor)
    }
  }
}
