import LMDB

/// The schema of a store of format 1: one collection, `repositories`, without schema events.
/// Events of format 1 name no collection and are read with this schema, forever.
enum LegacySchemas {
  static let repositoriesName = "repositories"

  /// `Repository`'s fields as format 1 stored them, slot by slot. A fact of that format: it must
  /// never change, whatever `Repository.schema` becomes.
  static let repositoriesV1: CollectionSchema = {
    let declarations: [(String, FieldType, IndexKinds, Bool)] = [
      ("id", .integer, .ordered, false), ("node_id", .string, [], true), ("name", .string, .substring, true),
      ("full_name", .string, .substring, false), ("owner.login", .string, [.substring, .equality], true),
      ("owner.avatar_url", .string, [], true), ("html_url", .string, [], true),
      ("description", .string, .substring, true), ("fork", .bool, .equality, true),
      ("language", .string, .equality, true), ("stargazers_count", .integer, .ordered, true),
      ("forks_count", .integer, .ordered, true), ("watchers_count", .integer, .ordered, true),
      ("open_issues_count", .integer, .ordered, true), ("topics", .stringList, .equality, true),
      ("license.spdx_id", .string, .equality, true), ("archived", .bool, .equality, true),
      ("created_at", .date, .ordered, true), ("updated_at", .date, .ordered, true),
      ("pushed_at", .date, .ordered, true), ("default_branch", .string, [], true),
      ("size", .integer, .ordered, true),
    ]
    return CollectionSchema(
      name: repositoriesName, primaryKey: "id",
      fields: declarations.map { Field(position: 0, name: $0.0, type: $0.1, indexes: $0.2, isOptional: $0.3) }
    )
  }()
}

/// Brings a store of format 1 to the current format, in one write transaction: its databases `records`,
/// `rows`, `ids` and `index.*` become the `repositories` collection's, its `meta` key `next_row`
/// becomes `next_row:repositories`, and the catalog gets `repositories` at schema version 1,
/// which is what every event of format 1 is read with; its records get their checksums
/// (`StoredCollection+Records`). The log is not touched.
enum StoreUpgrade {
  static let legacyNames = ["records", "rows", "ids", "index.trigrams", "index.terms", "index.ordered"]

  /// Runs the upgrade; `progress` gets the databases copied so far and their number.
  static func run(
    environment: Environment, meta: Database, catalog: Catalog, progress: (Int, Int) -> Void
  ) throws {
    try environment.write { txn in
      let legacyMeta = meta
      var legacy: [Database] = []
      for (index, name) in legacyNames.enumerated() {
        legacy.append(
          try environment.openDatabase(name, flags: index < 3 ? .integerKey : [], create: false, in: txn))
      }
      let target = try CollectionDatabases.open(
        LegacySchemas.repositoriesName, keyType: .integer, create: true, environment: environment, in: txn)
      for (index, (from, to)) in zip(legacy, target.all).enumerated() {
        progress(index, legacy.count)
        try txn.withCursor(from) { cursor in
          var entry = try cursor.first()
          while let current = entry {
            // Both sides sort alike (the same flags), so every key goes in at the end. The copies
            // keep the cursor's bytes out of reach of the writes (LMDB's pointers into a write
            // transaction are valid only until the next write).
            if to == target.records, let row = current.integerKey {
              // Format 1 stored records without a checksum; they get theirs here.
              try Array(current.value).withUnsafeBytes {
                try StoredCollection.putRecord($0, at: row, in: to, txn, flags: .append)
              }
            } else {
              try txn.put(to, Array(current.key), Array(current.value), flags: .append)
            }
            entry = try cursor.next()
          }
        }
        try txn.drop(from)
      }
      progress(legacy.count, legacy.count)
      let oldKey = Array("next_row".utf8)
      let collection = StoredCollection(
        id: 1, name: LegacySchemas.repositoriesName,
        versions: [SchemaVersion(version: 1, lsn: 0, schema: LegacySchemas.repositoriesV1)],
        databases: target,
        meta: legacyMeta)
      if let next = try txn.get(legacyMeta, oldKey) {
        guard next.count == 8 else {
          throw StoreError.corruptState(reason: "next_row has \(next.count) bytes")
        }
        try collection.setNextRow(next.loadUnaligned(as: UInt64.self), txn)
        try txn.delete(legacyMeta, oldKey)
      }
      // Format 1 filed dates in the ordered index by their seconds alone; format 2 adds the
      // nanoseconds, so those entries are built again.
      let dates = collection.schema.fields.filter { $0.type == .date && $0.indexes.contains(.ordered) }
        .map { $0.indexed(.ordered) }
      try IndexMaintenance.drop(dates, in: collection, txn)
      try IndexMaintenance.build(dates, in: collection, txn) { _, _ in }
      try catalog.write(id: 1, name: collection.name, versions: collection.versions, txn)
      try txn.put(meta, StoreLayout.recordChecksumsKey, [1])
    }
  }

  static let rowsPerChecksumStep = 10_000

  /// Brings a store of format 2 to format 3, in one write transaction: every stored record gets
  /// its checksum, and `meta` notes that they have one, so that an upgrade interrupted before
  /// the marker is rewritten is not run twice.
  static func addRecordChecksums(
    environment: Environment, meta: Database, collections: [StoredCollection], progress: (Int, Int) -> Void
  ) throws {
    try environment.write { txn in
      guard try txn.get(meta, StoreLayout.recordChecksumsKey) == nil else { return }
      let total = try collections.reduce(0) { $0 + (try $1.count(txn)) }
      var done = 0
      for collection in collections {
        // In steps of copies: the puts rewrite the pages a cursor would be reading.
        var next: UInt64 = 0
        while true {
          let step: [(row: UInt64, record: [UInt8])] = try txn.withCursor(collection.records) { cursor in
            var step: [(UInt64, [UInt8])] = []
            var entry = try cursor.seek(atLeast: next)
            while let current = entry, step.count < rowsPerChecksumStep {
              step.append((current.integerKey ?? 0, Array(current.value)))
              entry = try cursor.next()
            }
            return step
          }
          guard let last = step.last else { break }
          for (row, record) in step {
            try record.withUnsafeBytes { try collection.putRecord($0, at: row, txn) }
          }
          done += step.count
          progress(done, total)
          next = last.row + 1
        }
      }
      try txn.put(meta, StoreLayout.recordChecksumsKey, [1])
    }
  }
}
