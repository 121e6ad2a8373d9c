import LMDB

/// A collection's row table (`NAME.rows`): for every row folded into the segments, the LSN of
/// its current version (whose upsert event in the log holds the record) and its primary key.
///
/// Rows go in blocks of 64, keyed by `row >> 6` (`MDB_INTEGERKEY`):
///
/// ```
/// mask    UInt64 LE: bit i set when row (block << 6) + i is present
/// keys    for each present row in order: integer keys, 8 bytes, the key's bit pattern,
///         little-endian; string keys, varint length and UTF-8
/// lsns    for each present row in order: UInt64 LE
/// ```
///
/// So an integer-keyed row is found by a popcount, and a result's keys come from a few blocks
/// rather than one lookup each, reading the keys' part of each block only, next to the mask (a
/// result of many rows reads most blocks). Rows at or past the segment directory's end, and later versions
/// of folded rows that small commits wrote, are in the recent rows instead (`RecentRows`), which
/// take precedence.
struct RowTable {
  let database: Database
  let integerKeys: Bool

  static let blockShift: UInt32 = 6
  static let blockSize = 64

  static func block(of row: Row) -> UInt64 { UInt64(row >> blockShift) }

  /// One stored block, read in place.
  struct Block {
    let index: UInt64
    let mask: UInt64
    let value: UnsafeRawBufferPointer
    let integerKeys: Bool

    init(index: UInt64, value: UnsafeRawBufferPointer, integerKeys: Bool) throws {
      guard value.count >= 8 else { throw PageDamage("a row block of \(value.count) bytes") }
      self.index = index
      mask = UInt64(littleEndian: value.loadUnaligned(as: UInt64.self))
      self.value = value
      self.integerKeys = integerKeys
      let count = mask.nonzeroBitCount
      guard value.count >= 8 + 8 * count, !integerKeys || value.count == 8 + 16 * count else {
        throw PageDamage("a row block of \(value.count) bytes for \(count) rows")
      }
    }

    func contains(_ row: Row) -> Bool { mask & (1 << UInt64(row & 63)) != 0 }

    /// The rank of `row` among the block's rows, if present.
    @inline(__always)
    private func rank(of row: Row) -> Int? {
      let bit = UInt64(row & 63)
      guard mask & (1 << bit) != 0 else { return nil }
      return (mask & ((1 << bit) - 1)).nonzeroBitCount
    }

    /// Where the LSNs begin: after the keys (whose size string keys give themselves).
    private func lsnStart() throws -> Int {
      let count = mask.nonzeroBitCount
      if integerKeys { return 8 + 8 * count }
      var reader = PageReader(value, at: 8)
      for _ in 0..<count { _ = try reader.take(try reader.count()) }
      guard value.count - reader.offset == 8 * count else {
        throw PageDamage("a row block of \(value.count) bytes for \(count) rows")
      }
      return reader.offset
    }

    /// The LSN of `row`'s version, if present.
    func lsn(of row: Row) throws -> UInt64? {
      guard let rank = rank(of: row) else { return nil }
      return UInt64(
        littleEndian: value.loadUnaligned(fromByteOffset: try lsnStart() + 8 * rank, as: UInt64.self))
    }

    /// Where an integer-keyed `row`'s key lies in the block, if the row is present: arithmetic
    /// alone, no read of the slot.
    @inline(__always)
    func integerKeyBytes(of row: Row) -> UnsafeRawBufferPointer? {
      guard let rank = rank(of: row) else { return nil }
      let offset = 8 + 8 * rank
      return UnsafeRawBufferPointer(rebasing: value[offset..<(offset + 8)])
    }

    /// The LSN and key bytes of `row`, if present.
    func slot(of row: Row) throws -> (lsn: UInt64, key: UnsafeRawBufferPointer)? {
      guard let rank = rank(of: row) else { return nil }
      let key: UnsafeRawBufferPointer
      if integerKeys {
        key = UnsafeRawBufferPointer(rebasing: value[(8 + 8 * rank)..<(16 + 8 * rank)])
      } else {
        var reader = PageReader(value, at: 8)
        for _ in 0..<rank { _ = try reader.take(try reader.count()) }
        key = try reader.take(try reader.count())
      }
      let lsn = UInt64(
        littleEndian: value.loadUnaligned(fromByteOffset: try lsnStart() + 8 * rank, as: UInt64.self))
      return (lsn, key)
    }

    /// Calls `body` with each present row, its LSN and key bytes, in order, while it returns true.
    func forEach(_ body: (Row, UInt64, UnsafeRawBufferPointer) throws -> Bool) throws {
      let lsns = try lsnStart()
      var keys = PageReader(UnsafeRawBufferPointer(rebasing: value[..<lsns]), at: 8)
      var bits = mask
      var rank = 0
      while bits != 0 {
        let row = Row(truncatingIfNeeded: index << 6) + Row(bits.trailingZeroBitCount)
        bits &= bits - 1
        let lsn = UInt64(littleEndian: value.loadUnaligned(fromByteOffset: lsns + 8 * rank, as: UInt64.self))
        rank += 1
        let key = integerKeys ? try keys.take(8) : try keys.take(try keys.count())
        guard try body(row, lsn, key) else { return }
      }
    }
  }

  func block(_ index: UInt64, _ txn: some ReadableTransaction) throws -> Block? {
    guard let value = try txn.get(database, index) else { return nil }
    return try Block(index: index, value: value, integerKeys: integerKeys)
  }

  /// The LSN and key bytes of `row`, if the table holds it.
  func slot(of row: Row, _ txn: some ReadableTransaction) throws -> (
    lsn: UInt64, key: UnsafeRawBufferPointer
  )? {
    try block(Self.block(of: row), txn)?.slot(of: row)
  }

  /// One past the last row the table's last block can hold (0 for an empty table): a bound on its
  /// rows, read with one search.
  func rowBound(_ txn: some ReadableTransaction) throws -> Int {
    guard let last = try txn.withCursor(database, { cursor in try cursor.last() }) else { return 0 }
    // Rows are 32-bit: a block past them is damage, not a bound to allocate for.
    guard let index = last.integerKey, index <= UInt64(Row.max) >> Self.blockShift else {
      throw PageDamage("a row block key past the last row")
    }
    return (Int(index) + 1) << Self.blockShift
  }

  /// Calls `body` with every block in order.
  func forEachBlock(_ txn: some ReadableTransaction, _ body: (Block) throws -> Bool) throws {
    try txn.withCursor(database) { cursor in
      var entry = try cursor.first()
      while let current = entry {
        guard let index = current.integerKey else {
          throw PageDamage("a row block key of \(current.key.count) bytes")
        }
        guard try body(try Block(index: index, value: current.value, integerKeys: integerKeys)) else {
          return
        }
        entry = try cursor.next()
      }
    }
  }

  /// One row's new contents: its LSN and key bytes, or nil to remove it.
  struct Change {
    var row: Row
    var lsn: UInt64
    var key: [UInt8]
    var isRemoval: Bool
  }

  /// Writes `changes`, ascending by row, each row at most once. Blocks past every stored block
  /// go in with `MDB_APPEND`.
  func apply(_ changes: [Change], _ txn: WriteTransaction) throws {
    var start = 0
    let last = try txn.withCursor(database) { cursor in try cursor.last()?.integerKey }
    while start < changes.count {
      let index = Self.block(of: changes[start].row)
      var end = start
      while end < changes.count && Self.block(of: changes[end].row) == index { end += 1 }
      var slots: [(row: Row, lsn: UInt64, key: [UInt8])] = []
      if let last, index <= last, let stored = try block(index, txn) {
        try stored.forEach { row, lsn, key in
          slots.append((row, lsn, Array(key)))
          return true
        }
      }
      for change in changes[start..<end] {
        let position = slots.firstIndex { $0.row >= change.row } ?? slots.count
        let present = position < slots.count && slots[position].row == change.row
        if change.isRemoval {
          if present { slots.remove(at: position) }
        } else if present {
          slots[position] = (change.row, change.lsn, change.key)
        } else {
          slots.insert((change.row, change.lsn, change.key), at: position)
        }
      }
      if slots.isEmpty {
        try txn.delete(database, index)
      } else {
        try txn.put(database, index, encode(slots), flags: last.map { index > $0 } ?? true ? .append : [])
      }
      start = end
    }
  }

  private func encode(_ slots: [(row: Row, lsn: UInt64, key: [UInt8])]) -> [UInt8] {
    var mask: UInt64 = 0
    var bytes: [UInt8] = []
    bytes.reserveCapacity(8 + slots.count * 16)
    for slot in slots { mask |= 1 << UInt64(slot.row & 63) }
    withUnsafeBytes(of: mask.littleEndian) { bytes.append(contentsOf: $0) }
    for slot in slots {
      if !integerKeys { PageBytes.appendVarint(UInt64(slot.key.count), to: &bytes) }
      bytes.append(contentsOf: slot.key)
    }
    for slot in slots { withUnsafeBytes(of: slot.lsn.littleEndian) { bytes.append(contentsOf: $0) } }
    return bytes
  }
}
