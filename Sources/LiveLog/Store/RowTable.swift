import LMDB

/// A collection's row table (`NAME.rows`): for every row folded into the segments, the LSN of
/// its current version (whose upsert event in the log holds the record) and its primary key.
///
/// Rows go in blocks of 64, keyed by `row >> 6` (`MDB_INTEGERKEY`):
///
/// ```
/// mask    UInt64 LE: bit i set when row (block << 6) + i is present
/// then, for each present row in order:
///   lsn   UInt64 LE
///   key   integer keys: 8 bytes, the key's bit pattern, little-endian
///         string keys: varint length, UTF-8
/// ```
///
/// So an integer-keyed row is found by a popcount, and a result's keys come from a few blocks
/// rather than one lookup each. Rows at or past the segment directory's end, and later versions
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
      if integerKeys {
        guard value.count == 8 + 16 * mask.nonzeroBitCount else {
          throw PageDamage("a row block of \(value.count) bytes for \(mask.nonzeroBitCount) rows")
        }
      }
    }

    func contains(_ row: Row) -> Bool { mask & (1 << UInt64(row & 63)) != 0 }

    /// The LSN and key bytes of `row`, if present.
    func slot(of row: Row) throws -> (lsn: UInt64, key: UnsafeRawBufferPointer)? {
      let bit = UInt64(row & 63)
      guard mask & (1 << bit) != 0 else { return nil }
      let rank = (mask & ((1 << bit) - 1)).nonzeroBitCount
      if integerKeys {
        let offset = 8 + 16 * rank
        return (
          UInt64(littleEndian: value.loadUnaligned(fromByteOffset: offset, as: UInt64.self)),
          UnsafeRawBufferPointer(rebasing: value[(offset + 8)..<(offset + 16)])
        )
      }
      var found: (UInt64, UnsafeRawBufferPointer)?
      var seen = 0
      try forEach { _, lsn, key in
        if seen == rank { found = (lsn, key) }
        seen += 1
        return seen <= rank
      }
      return found
    }

    /// Calls `body` with each present row, its LSN and key bytes, in order, while it returns true.
    func forEach(_ body: (Row, UInt64, UnsafeRawBufferPointer) throws -> Bool) throws {
      var reader = PageReader(value, at: 8)
      var bits = mask
      while bits != 0 {
        let row = Row(truncatingIfNeeded: index << 6) + Row(bits.trailingZeroBitCount)
        bits &= bits - 1
        let lsnBytes = try reader.take(8)
        let lsn = UInt64(littleEndian: lsnBytes.loadUnaligned(as: UInt64.self))
        let key = integerKeys ? try reader.take(8) : try reader.take(try reader.count())
        guard try body(row, lsn, key) else { return }
      }
      guard reader.isAtEnd else { throw PageDamage("a row block has bytes after its last row") }
    }
  }

  func block(_ index: UInt64, _ txn: some ReadableTransaction) throws -> Block? {
    guard let value = try txn.get(database, index) else { return nil }
    return try Block(index: index, value: value, integerKeys: integerKeys)
  }

  /// The LSN and key bytes of `row`, if the table holds it.
  func slot(of row: Row, _ txn: some ReadableTransaction) throws -> (lsn: UInt64, key: UnsafeRawBufferPointer)? {
    try block(Self.block(of: row), txn)?.slot(of: row)
  }

  /// Calls `body` with every block in order.
  func forEachBlock(_ txn: some ReadableTransaction, _ body: (Block) throws -> Bool) throws {
    try txn.withCursor(database) { cursor in
      var entry = try cursor.first()
      while let current = entry {
        guard let index = current.integerKey else { throw PageDamage("a row block key of \(current.key.count) bytes") }
        guard try body(try Block(index: index, value: current.value, integerKeys: integerKeys)) else { return }
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
    var bytes: [UInt8] = [UInt8](repeating: 0, count: 8)
    bytes.reserveCapacity(8 + slots.count * 16)
    for slot in slots {
      mask |= 1 << UInt64(slot.row & 63)
      withUnsafeBytes(of: slot.lsn.littleEndian) { bytes.append(contentsOf: $0) }
      if !integerKeys { PageBytes.appendVarint(UInt64(slot.key.count), to: &bytes) }
      bytes.append(contentsOf: slot.key)
    }
    withUnsafeBytes(of: mask.littleEndian) { raw in
      for index in 0..<8 { bytes[index] = raw[index] }
    }
    return bytes
  }
}
