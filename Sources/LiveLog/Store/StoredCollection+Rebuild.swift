import LMDB

/// Writing a state at once: a replay's, and the indexes built again after a schema change. Rows
/// go in in row order, in segments of `rebuiltSegmentRows` rows, each laid out in memory and
/// written in key order with `MDB_APPEND`; keys go in sorted, also with `MDB_APPEND`.
extension StoredCollection {
  /// Rows of each segment a rebuild writes: half of what merges make, which bounds the memory a
  /// segment's entries take while they are laid out (every trigram posting of its rows at once).
  static var rebuiltSegmentRows: Row { 131_072 }

  /// One row of a state written at once.
  struct RebuiltRow {
    var row: Row
    var lsn: UInt64
    var key: [UInt8]
  }

  /// The segment a row belongs to when segments are cut every `rebuiltSegmentRows` rows.
  static func rebuiltSegmentStart(of row: Row) -> Row {
    (row - 1) / rebuiltSegmentRows * rebuiltSegmentRows + 1
  }

  /// The runs of `rows` (ascending) that fall in one rebuilt segment each, with the segment's
  /// first row.
  static func rebuiltSegments(of rows: [Row]) -> [(rows: Range<Int>, start: Row)] {
    var segments: [(rows: Range<Int>, start: Row)] = []
    var start = 0
    while start < rows.count {
      let segment = rebuiltSegmentStart(of: rows[start])
      var end = start
      while end < rows.count && rebuiltSegmentStart(of: rows[end]) == segment { end += 1 }
      segments.append((start..<end, segment))
      start = end
    }
    return segments
  }

  /// The index pages and ordered columns of one rebuilt segment.
  struct RebuiltIndexes: Sendable {
    var pages: [(key: [UInt8], value: [UInt8])]
    var columns: [OrderedColumns.Change]
  }

  /// The pages of the rebuilt segment that starts at `segment`, holding the index entries of
  /// `rows` (ascending) whose stored records are `records(i)` (read in place, by the build's two
  /// threads: pointers into a map, valid for the call, from a transaction that writes nothing
  /// meanwhile), and their ordered columns; only the indexed fields are read and checked. Laid out
  /// while nothing writes, so that a replay lays out one segment while it writes the ones before.
  /// `buffers`, when given, lends the builds their large buffers and takes them back
  /// (`SegmentBuffers`).
  static func rebuiltIndexes(
    schema: CollectionSchema, rows: [Row], segment: Row, coversKeys: Bool, buffers: SegmentBuffers? = nil,
    records: @Sendable (Int) throws -> UnsafeRawBufferPointer
  ) throws -> RebuiltIndexes {
    var parts = try SegmentBuilder.build(schema: schema, rows: rows, buffers: buffers, records: records)
    let columns = SegmentBuilder.columnChanges(of: parts)
    let pages = SegmentBuilder.pages(parts, segment: segment, coversKeys: coversKeys)
    if let buffers {
      for index in parts.indices { parts[index].giveBack(to: buffers) }
    }
    return RebuiltIndexes(pages: pages, columns: columns)
  }

  /// Appends `rows` (ascending, past every row written before, all of the rebuilt segment that
  /// starts at `segment`) to the row table, their index pages and columns `indexes`
  /// (`rebuiltIndexes`, laid out with `coversKeys`) to the index, and the segment to the directory.
  func appendRebuilt(
    _ rows: [RebuiltRow], indexes: RebuiltIndexes, segment: Row, coversKeys: Bool, _ txn: WriteTransaction
  ) throws {
    guard let last = rows.last else { return }
    var directory = try self.directory(txn)
    directory.begin(for: schema)
    precondition(
      directory.coversKeys == coversKeys, "a segment's pages were laid out for another directory")
    for (key, value) in indexes.pages {
      try txn.put(databases.index, key, value, flags: .append)
    }
    try applyToColumns(indexes.columns, txn)
    directory.starts.append(segment)
    directory.end = last.row + 1
    try directory.write(name, meta: meta, txn)
    try appendRebuiltRows(rows, txn)
  }

  /// Appends `rows` (ascending, past every row written before) to the row table alone: a state
  /// written without its indexes, whose index a verification fingerprints from the records
  /// instead (`Replayer.buildsIndexes`).
  func appendRebuiltRows(_ rows: [RebuiltRow], _ txn: WriteTransaction) throws {
    try rowTable.apply(
      rows.map { RowTable.Change(row: $0.row, lsn: $0.lsn, key: $0.key, isRemoval: false) }, txn)
  }

  /// Writes the next row and the count of a rebuilt state, and ends the segments at the next row.
  /// Its key table is written apart (`appendKeys`).
  func finishRebuilt(count: Int, nextRow: UInt64, _ txn: WriteTransaction) throws {
    try setNextRow(nextRow, txn)
    try setCount(count, txn)
    var directory = try self.directory(txn)
    directory.end = Row(truncatingIfNeeded: nextRow)
    try directory.write(name, meta: meta, txn)
  }

  /// `rows` in the key table's order: integer keys as unsigned 64-bit values (their native bytes),
  /// string keys bytewise.
  func inKeyOrder(_ rows: [RebuiltRow]) -> [RebuiltRow] {
    let integer = schema.primaryKey.type == .integer
    return rows.sorted { a, b in
      if integer {
        return a.key.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
          < b.key.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
      }
      return a.key.lexicographicallyPrecedes(b.key)
    }
  }

  /// Appends the key → row entries of `rows`, in key order (`inKeyOrder`), to an empty key table.
  func appendKeys(_ rows: [RebuiltRow], _ txn: WriteTransaction) throws {
    for entry in rows {
      try entry.key.withUnsafeBytes { key in
        try Self.withKeyTableValue(of: entry.row) { try txn.put(databases.keys, key, $0, flags: .append) }
      }
    }
  }

  /// The digest of the key table that `appendKeys` writes for `rows` (in key order), computed
  /// without it: what `Store.digest` reads from the table, entry by entry.
  static func keyTableDigest(of rows: [RebuiltRow]) -> StateDigest.DatabaseDigest {
    var hasher = DigestHasher()
    for entry in rows {
      entry.key.withUnsafeBytes { key in
        withKeyTableValue(of: entry.row) { hasher.combine(entry: key, value: $0) }
      }
    }
    return StateDigest.DatabaseDigest(hash: hasher.value, entries: rows.count)
  }

  /// Writes the key table, empty, of a state rebuilt without one (`Replayer.writesKeys` false)
  /// from its rows.
  func rebuildKeys(_ txn: WriteTransaction) throws {
    // The recent rows into the row table first, as `rebuildIndexes` does: the rows are read from
    // there. (A replay leaves none.)
    try fold([], nextRow: try nextRow(txn), txn, indexes: false)
    try appendKeys(inKeyOrder(try rebuiltRows(txn)), txn)
  }

  /// Every row of the row table, ascending, as a rebuild lists them.
  private func rebuiltRows(_ txn: some ReadableTransaction) throws -> [RebuiltRow] {
    var rows: [RebuiltRow] = []
    do {
      try rowTable.forEachBlock(txn) { block in
        try block.forEach { row, lsn, key in
          rows.append(RebuiltRow(row: row, lsn: lsn, key: Array(key)))
          return true
        }
        return true
      }
    } catch let damage as PageDamage {
      throw damaged("the row table", damage)
    }
    return rows
  }

  /// Builds every index of the collection again from its records, under the current schema:
  /// after its indexes changed, and after a migration rewrote its records. `progress` gets the
  /// records done and their number.
  func rebuildIndexes(_ txn: WriteTransaction, progress: (Int, Int) -> Void = { _, _ in }) throws {
    let next = try nextRow(txn)
    // The recent rows into the row table first: the records are read from there.
    try fold([], nextRow: next, txn, indexes: false)
    try txn.removeAll(databases.index)
    if let columns = databases.columns { try txn.removeAll(columns) }
    let rows = try rebuiltRows(txn)
    let total = rows.count
    var done = 0
    var directory = SegmentDirectory(starts: [], end: Row(truncatingIfNeeded: next))
    directory.begin(for: schema)
    // Handed from each segment's layout to the next's, as a replay does.
    let buffers = SegmentBuffers()
    for (range, segment) in Self.rebuiltSegments(of: rows.map(\.row)) {
      let chunk = rows[range]
      // Read before the build, which reads them on its threads: nothing writes until it ends.
      // Checked whole here, as decoding them did before: the build reads the indexed fields only.
      let records = MapShared(
        try chunk.map { row in
          let bytes = try record(at: UInt64(row.row), lsn: row.lsn, txn)
          do {
            try RecordCodec.check(bytes, schema: schema)
          } catch {
            throw StoreError.undecodable(recordAt: row.row, in: name, error)
          }
          return bytes
        })
      let rebuilt = try Self.rebuiltIndexes(
        schema: schema, rows: chunk.map(\.row), segment: segment, coversKeys: directory.coversKeys,
        buffers: buffers
      ) { records.value[$0] }
      for (key, value) in rebuilt.pages {
        try txn.put(databases.index, key, value, flags: .append)
      }
      try applyToColumns(rebuilt.columns, txn)
      directory.starts.append(segment)
      done += range.count
      progress(done, total)
    }
    try directory.write(name, meta: meta, txn)
    progress(done, total)
  }
}
