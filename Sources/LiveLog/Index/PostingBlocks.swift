import LMDB

/// Posting lists stored as blocks of rows, so that appending to a long list touches one small
/// block rather than the whole list.
///
/// A term's list is the run of keys `prefix ++ firstRow` (the block's first row, 4 bytes
/// big-endian, so that blocks sort by row). Each value is a block:
///
/// ```
/// count: UInt16 LE   last row: UInt32 LE   then, for rows 2…count, the varint gap to the row before
/// ```
///
/// Rows only grow (new rows are past every stored row), so most changes append to the last block
/// of a list: with its count and last row in a fixed header, an append copies the block and adds
/// the new gaps without decoding it. Blocks hold at most `capacity` rows, which keeps values far
/// below LMDB's overflow-page size.
enum PostingBlocks {
  static let capacity = 256
  static let headerSize = 6

  static func key(_ prefix: [UInt8], firstRow: Row) -> [UInt8] {
    var key = prefix
    key.reserveCapacity(prefix.count + 4)
    key.append(UInt8(truncatingIfNeeded: firstRow >> 24))
    key.append(UInt8(truncatingIfNeeded: firstRow >> 16))
    key.append(UInt8(truncatingIfNeeded: firstRow >> 8))
    key.append(UInt8(truncatingIfNeeded: firstRow))
    return key
  }

  /// A block of ascending rows (at most `capacity`).
  static func encode(_ rows: ArraySlice<Row>) -> [UInt8] {
    var writer = ByteWriter(capacity: headerSize + rows.count * 2)
    writeHeader(&writer, count: rows.count, last: rows.last ?? 0)
    appendGaps(rows.dropFirst(), after: rows.first ?? 0, to: &writer)
    return writer.bytes
  }

  private static func writeHeader(_ writer: inout ByteWriter, count: Int, last: Row) {
    writer.append(UInt8(truncatingIfNeeded: count))
    writer.append(UInt8(truncatingIfNeeded: count >> 8))
    writer.appendFixed32(last)
  }

  private static func appendGaps(_ rows: ArraySlice<Row>, after start: Row, to writer: inout ByteWriter) {
    var previous = start
    for row in rows {
      writer.appendVarint(UInt64(row - previous))
      previous = row
    }
  }

  /// The count and last row of a block.
  static func header(_ value: UnsafeRawBufferPointer) throws -> (count: Int, last: Row) {
    guard value.count >= headerSize else {
      throw StoreError.corruptState(reason: "index block of \(value.count) bytes")
    }
    let count = Int(value[0]) | Int(value[1]) << 8
    let last = UInt32(littleEndian: value.loadUnaligned(fromByteOffset: 2, as: UInt32.self))
    guard count >= 1, count <= capacity else {
      throw StoreError.corruptState(reason: "index block of \(count) rows")
    }
    return (count, last)
  }

  /// Appends the rows of one block to `rows`.
  static func decode(_ value: UnsafeRawBufferPointer, firstRow: Row, into rows: inout [Row]) throws {
    let (count, last) = try header(value)
    var reader = ByteReader(value, offset: headerSize)
    var row = UInt64(firstRow)
    rows.append(firstRow)
    do {
      for _ in 1..<count {
        row += try reader.readVarint()
        guard row <= UInt64(Row.max) else { throw StoreError.corruptState(reason: "index row past 2^32") }
        rows.append(Row(row))
      }
    } catch let error as MalformedBytes {
      throw StoreError.corruptState(reason: "index block: \(error)")
    }
    guard row == UInt64(last), reader.isAtEnd else {
      throw StoreError.corruptState(
        reason: "index block from row \(firstRow) does not end at its last row \(last)")
    }
  }

  /// The first row of the block stored under `key`, which starts with a prefix of `prefixCount`
  /// bytes; `nil` when the key is not that long plus a row.
  static func firstRow(of key: UnsafeRawBufferPointer, prefixCount: Int) -> Row? {
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
        count += try header(current.value).count
        entry = try cursor.next()
      }
      return count
    }
  }

  /// Adds and removes rows of one term. `additions` and `removals` are ascending and disjoint;
  /// `cursor` is any cursor over `database` (it is moved).
  static func apply(
    _ prefix: [UInt8], adding additions: [Row], removing removals: [Row], cursor: inout Cursor,
    _ txn: WriteTransaction, in database: Database
  ) throws {
    guard let low = [additions.first, removals.first].compactMap({ $0 }).min(),
      let high = [additions.last, removals.last].compactMap({ $0 }).max()
    else { return }
    // The block that contains `low` (which may start before it), or the one after.
    var entry = try cursor.seek(atLeast: key(prefix, firstRow: low))
    let startsAtLow =
      entry.map { hasPrefix($0.key, prefix) && firstRow(of: $0.key, prefixCount: prefix.count) == low }
      ?? false
    if !startsAtLow {
      entry = entry == nil ? try cursor.last() : try cursor.previous()
      if let current = entry, !hasPrefix(current.key, prefix) { entry = try cursor.next() }
    }
    // The common case: only appends, past the list's last row.
    if removals.isEmpty, let current = entry, hasPrefix(current.key, prefix),
      let first = firstRow(of: current.key, prefixCount: prefix.count)
    {
      let (count, last) = try header(current.value)
      let isLastBlock: Bool = try {
        guard let next = try cursor.next() else { return true }
        return !hasPrefix(next.key, prefix)
      }()
      if isLastBlock, let firstAdded = additions.first, firstAdded > last {
        let room = max(0, capacity - count)
        let taken = additions.prefix(room)
        if !taken.isEmpty {
          var writer = ByteWriter(capacity: current.value.count + taken.count * 3)
          writeHeader(&writer, count: count + taken.count, last: taken.last ?? last)
          writer.append(contentsOf: UnsafeRawBufferPointer(rebasing: current.value[headerSize...]))
          appendGaps(taken, after: last, to: &writer)
          try txn.put(database, key(prefix, firstRow: first), writer.bytes)
        }
        try writeBlocks(prefix, additions[taken.count...], txn, database)
        return
      }
    }
    // Otherwise merge: read every block that may hold rows in low...high and write them again.
    var blocks: [[UInt8]] = []
    var rows: [Row] = []
    if let found = entry, hasPrefix(found.key, prefix) {
      var current = try cursor.seek(atLeast: Array(found.key))
      while let block = current, hasPrefix(block.key, prefix),
        let first = firstRow(of: block.key, prefixCount: prefix.count), first <= high
      {
        try decode(block.value, firstRow: first, into: &rows)
        blocks.append(Array(block.key))
        current = try cursor.next()
      }
    }
    let merged = RowSet.subtracting(RowSet.union(rows, additions), removals)
    for block in blocks { try txn.delete(database, block) }
    try writeBlocks(prefix, merged[...], txn, database)
  }

  /// Writes rows as new blocks, split evenly so that a block overflowing by one row becomes two
  /// half-full ones.
  private static func writeBlocks(
    _ prefix: [UInt8], _ rows: ArraySlice<Row>, _ txn: WriteTransaction, _ database: Database
  )
    throws
  {
    guard !rows.isEmpty else { return }
    let blockCount = (rows.count + capacity - 1) / capacity
    let size = (rows.count + blockCount - 1) / blockCount
    var start = rows.startIndex
    while start < rows.endIndex {
      let end = min(start + size, rows.endIndex)
      try txn.put(database, key(prefix, firstRow: rows[start]), encode(rows[start..<end]))
      start = end
    }
  }
}
