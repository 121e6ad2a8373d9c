import LMDB

/// Posting lists stored as blocks of rows, so that appending to a long list rewrites one small
/// block rather than the whole list.
///
/// A term's list is the run of keys `prefix ++ firstRow` (the block's first row, 4 bytes big-endian,
/// so that blocks sort by row); each value is a block: a varint count, then the rows as varint
/// deltas (the first from `firstRow`, so 0). Blocks hold at most `capacity` rows, which keeps
/// values far below LMDB's overflow-page size.
enum PostingBlocks {
  static let capacity = 256

  static func key(_ prefix: [UInt8], firstRow: Row) -> [UInt8] {
    var key = prefix
    key.reserveCapacity(prefix.count + 4)
    key.append(UInt8(truncatingIfNeeded: firstRow >> 24))
    key.append(UInt8(truncatingIfNeeded: firstRow >> 16))
    key.append(UInt8(truncatingIfNeeded: firstRow >> 8))
    key.append(UInt8(truncatingIfNeeded: firstRow))
    return key
  }

  static func encode(_ rows: ArraySlice<Row>) -> [UInt8] {
    var writer = ByteWriter(capacity: rows.count * 2 + 4)
    writer.appendVarint(UInt64(rows.count))
    var previous = rows.first ?? 0
    for row in rows {
      writer.appendVarint(UInt64(row - previous))
      previous = row
    }
    return writer.bytes
  }

  /// Appends the rows of one block to `rows`.
  static func decode(_ value: UnsafeRawBufferPointer, firstRow: Row, into rows: inout [Row]) throws {
    var reader = ByteReader(value)
    do {
      let count = try reader.readVarint()
      guard count <= UInt64(capacity) * 4 else {
        throw StoreError.corruptState(reason: "index block of \(count) rows")
      }
      var row = UInt64(firstRow)
      for _ in 0..<count {
        row += try reader.readVarint()
        guard row <= UInt64(Row.max) else { throw StoreError.corruptState(reason: "index row past 2^32") }
        rows.append(Row(row))
      }
    } catch let error as MalformedBytes {
      throw StoreError.corruptState(reason: "index block: \(error)")
    }
  }

  /// The first row of the block stored under `key`, which must start with `prefix`.
  private static func firstRow(of key: UnsafeRawBufferPointer, prefixCount: Int) -> Row? {
    guard key.count == prefixCount + 4 else { return nil }
    return Row(key[prefixCount]) << 24 | Row(key[prefixCount + 1]) << 16 | Row(key[prefixCount + 2]) << 8
      | Row(key[prefixCount + 3])
  }

  private static func hasPrefix(_ key: UnsafeRawBufferPointer, _ prefix: [UInt8]) -> Bool {
    guard key.count == prefix.count + 4 else { return false }
    for index in prefix.indices where key[index] != prefix[index] { return false }
    return true
  }

  /// The term's whole posting list, ascending.
  static func read(_ prefix: [UInt8], in database: Database, _ txn: some ReadableTransaction) throws -> [Row]
  {
    try txn.withCursor(database) { cursor in
      var rows: [Row] = []
      var entry = try cursor.seek(atLeast: key(prefix, firstRow: 0))
      while let current = entry, hasPrefix(current.key, prefix),
        let first = firstRow(of: current.key, prefixCount: prefix.count)
      {
        try decode(current.value, firstRow: first, into: &rows)
        entry = try cursor.next()
      }
      return rows
    }
  }

  /// About how many rows the term has, reading block headers only; stops counting past `limit`.
  static func estimate(_ prefix: [UInt8], in database: Database, _ txn: some ReadableTransaction, limit: Int)
    throws -> Int
  {
    try txn.withCursor(database) { cursor in
      var count = 0
      var entry = try cursor.seek(atLeast: key(prefix, firstRow: 0))
      while let current = entry, hasPrefix(current.key, prefix), count <= limit {
        var reader = ByteReader(current.value)
        count += Int((try? reader.readVarint()) ?? 0)
        entry = try cursor.next()
      }
      return count
    }
  }

  /// Adds and removes rows of one term. `additions` and `removals` are ascending and disjoint.
  static func apply(
    _ prefix: [UInt8], adding additions: [Row], removing removals: [Row], in database: Database,
    _ txn: WriteTransaction
  ) throws {
    guard let low = [additions.first, removals.first].compactMap({ $0 }).min(),
      let high = [additions.last, removals.last].compactMap({ $0 }).max()
    else { return }
    // The blocks that may hold rows in low...high: the one containing `low` (which may start
    // before it) and every later one that starts at or before `high`.
    var blocks: [(key: [UInt8], rows: [Row])] = []
    try txn.withCursor(database) { cursor in
      var entry = try cursor.seek(atLeast: key(prefix, firstRow: low))
      let startsAtLow =
        entry.map { hasPrefix($0.key, prefix) && firstRow(of: $0.key, prefixCount: prefix.count) == low }
        ?? false
      if !startsAtLow {
        entry = entry == nil ? try cursor.last() : try cursor.previous()
        if let current = entry, !hasPrefix(current.key, prefix) { entry = try cursor.next() }
      }
      while let current = entry, hasPrefix(current.key, prefix),
        let first = firstRow(of: current.key, prefixCount: prefix.count)
      {
        if first > high { break }
        var rows: [Row] = []
        try decode(current.value, firstRow: first, into: &rows)
        blocks.append((Array(current.key), rows))
        entry = try cursor.next()
      }
    }
    // The block before `low` is rewritten too: appends fill it before a new block starts.
    let existing = blocks.flatMap(\.rows)
    let merged = RowSet.subtracting(RowSet.union(existing, additions), removals)
    for block in blocks { try txn.delete(database, block.key) }
    guard !merged.isEmpty else { return }
    // Split evenly, so that a block that overflows by one row becomes two half-full blocks.
    let blockCount = (merged.count + capacity - 1) / capacity
    let size = (merged.count + blockCount - 1) / blockCount
    var start = 0
    while start < merged.count {
      let end = min(start + size, merged.count)
      try txn.put(database, key(prefix, firstRow: merged[start]), encode(merged[start..<end]))
      start = end
    }
  }
}
