import LMDB

/// Building and removing a collection's index entries for some fields, when its schema gains or
/// loses indexes: in the write transaction that records the new schema, so readers see a new
/// index only whole.
enum IndexMaintenance {
  /// Records indexed per flush: bounds the memory of the postings waiting to be written (about
  /// 100 trigrams of 8 bytes per record and text field).
  static let recordsPerFlush = 65_536

  /// Adds the entries of `fields` (each with only the index kinds to build) for every record of
  /// `collection`; `progress` gets records done and their number.
  static func build(
    _ fields: [Field], in collection: StoredCollection, _ txn: WriteTransaction,
    progress: (Int, Int) -> Void
  ) throws {
    guard !fields.isEmpty else { return }
    let total = try collection.count(txn)
    var done = 0
    var writer = collection.indexWriter()
    try txn.withCursor(collection.records) { cursor in
      var entry = try cursor.first()
      while let current = entry {
        let row = current.integerKey ?? 0
        let values = try collection.values(try collection.verifiedRecord(current.value, row: row), row: row)
        writer.change(row: Row(truncatingIfNeeded: row), old: nil, new: IndexEntries(values, fields: fields))
        done += 1
        if done % recordsPerFlush == 0 {
          try writer.flush(txn)
          writer = collection.indexWriter()
          progress(done, total)
        }
        entry = try cursor.next()
      }
    }
    try writer.flush(txn)
    progress(done, total)
  }

  /// Removes every entry of `fields`' index kinds (each field carrying the kinds to drop).
  static func drop(_ fields: [Field], in collection: StoredCollection, _ txn: WriteTransaction) throws {
    let databases = collection.databases
    // A writer that may not fill the segment of recent rows folds it into the posting lists,
    // whose keys start with the field's slot like every other index's.
    try collection.indexWriter().flush(txn)
    for field in fields {
      var kinds: [Database] = []
      if field.indexes.contains(.substring) { kinds.append(databases.trigrams) }
      if field.indexes.contains(.equality) { kinds.append(databases.terms) }
      if field.indexes.contains(.ordered) { kinds.append(databases.ordered) }
      let slot = UInt8(truncatingIfNeeded: field.position)
      for database in kinds {
        try txn.withCursor(database) { cursor in
          // Every key of an index starts with its field's slot.
          var entry = try cursor.seek(atLeast: [slot])
          while let current = entry, current.key.first == slot {
            try cursor.deleteCurrent(in: txn)
            entry = try cursor.next()
          }
        }
      }
    }
  }
}
