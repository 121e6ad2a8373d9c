import LMDB

/// A collection's ordered values by row (`NAME.columns`): for every row the row table holds, the
/// key each ordered field files in its ordered index (`OrderedKey`). The same facts as the
/// ordered index, filed by row rather than by value.
///
/// Why: an `AND` of a rare term and a wide range (`'aditya' AND stargazers_count > 10`) finds a
/// few hundred rows by the term, while the range holds most of the store: reading the range costs
/// far more than the term, and checking each row's record costs a microsecond or so (a row table
/// lookup, a log lookup, a checksum, a decode). Here a row's value is one small read away, shared
/// by the rows of its block (`QueryExecutor`'s intersection).
///
/// Keys are `block << 8 | slot` (`MDB_INTEGERKEY`), the block as the row table's (`row >> 6`): a
/// block's fields lie side by side, and rows written in order append. Values are
/// `OrderedColumnBlock`s. Like the row table, the columns hold folded rows only: a recent row's
/// entry (`RecentRows`) takes precedence. Derived data: a rebuild writes them again, and a
/// verification sums their keys into the index's fingerprints (`StateContent`).
struct OrderedColumns {
  let database: Database
  /// The slots of the ordered fields.
  let slots: [UInt8]

  init(database: Database, schema: CollectionSchema) {
    self.database = database
    slots = Self.orderedFields(of: schema).map { UInt8(truncatingIfNeeded: $0.position) }
  }

  static func orderedFields(of schema: CollectionSchema) -> [Field] {
    schema.fields.filter { $0.indexes.contains(.ordered) }
  }

  static func key(block: UInt64, slot: UInt8) -> UInt64 { block << 8 | UInt64(slot) }

  /// The block of `slot` that holds `row`, read in place, if stored.
  func block(of row: Row, slot: UInt8, _ txn: some ReadableTransaction) throws -> OrderedColumnBlock? {
    guard let value = try txn.get(database, Self.key(block: RowTable.block(of: row), slot: slot)) else {
      return nil
    }
    return try OrderedColumnBlock(value)
  }

  /// Calls `body` with every stored row, slot and key, block by block.
  func forEach(_ txn: some ReadableTransaction, _ body: (Row, UInt8, OrderedKey) throws -> Void) throws {
    try txn.withCursor(database) { cursor in
      var entry = try cursor.first()
      while let current = entry {
        guard let key = current.integerKey else {
          throw PageDamage("an ordered column key of \(current.key.count) bytes")
        }
        let first = Row(truncatingIfNeeded: (key >> 8) << RowTable.blockShift)
        let slot = UInt8(truncatingIfNeeded: key)
        try OrderedColumnBlock(current.value).forEach { bit, value in
          try body(first + Row(bit), slot, value)
        }
        entry = try cursor.next()
      }
    }
  }

  /// One row's new keys: every ordered field's for a new row, those that changed for an updated
  /// one; none, with `isRemoval`, for a row that goes.
  struct Change {
    var row: Row
    var keys: [(slot: UInt8, key: OrderedKey)]
    var isRemoval = false
  }

  /// The change that files a row whose values (by slot) are `values`.
  static func change(row: Row, values: [FieldValue], fields: [Field]) -> Change {
    Change(
      row: row,
      keys: fields.map { field in
        let value = field.position < values.count ? values[field.position] : .null
        return (UInt8(truncatingIfNeeded: field.position), OrderedKey(value, type: field.type))
      })
  }

  /// Writes `changes`, ascending by row, each row at most once. Blocks past every stored one go
  /// in with `MDB_APPEND`.
  func apply(_ changes: [Change], _ txn: WriteTransaction) throws {
    guard !slots.isEmpty, !changes.isEmpty else { return }
    var last = try txn.withCursor(database) { cursor in try cursor.last()?.integerKey }
    var start = 0
    var keys = [OrderedKey?](repeating: nil, count: RowTable.blockSize)
    var touched = [Bool](repeating: false, count: 256)
    while start < changes.count {
      let block = RowTable.block(of: changes[start].row)
      var end = start
      while end < changes.count && RowTable.block(of: changes[end].row) == block { end += 1 }
      for slot in slots { touched[Int(slot)] = false }
      for change in changes[start..<end] {
        if change.isRemoval {
          for slot in slots { touched[Int(slot)] = true }
        } else {
          for (slot, _) in change.keys { touched[Int(slot)] = true }
        }
      }
      for slot in slots where touched[Int(slot)] {
        let key = Self.key(block: block, slot: slot)
        for bit in 0..<keys.count { keys[bit] = nil }
        let stored = last.map { key <= $0 } ?? false
        if stored, let value = try txn.get(database, key) {
          try OrderedColumnBlock(value).forEach { bit, value in keys[bit] = value }
        }
        for change in changes[start..<end] {
          let bit = Int(change.row & 63)
          if change.isRemoval {
            keys[bit] = nil
          } else if let new = change.keys.first(where: { $0.slot == slot }) {
            keys[bit] = new.key
          }
        }
        let bits = keys.indices.filter { keys[$0] != nil }
        if bits.isEmpty {
          if stored { _ = try txn.delete(database, key) }
          continue
        }
        let value = OrderedColumnBlock.encode(bits: bits, keys: bits.compactMap { keys[$0] })
        try txn.put(database, key, value, flags: stored ? [] : .append)
        if !stored { last = key }
      }
      start = end
    }
  }
}
