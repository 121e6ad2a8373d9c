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

  static func orderedFields(of schema: CollectionSchema) -> [IndexedField] {
    schema.indexedFields.filter { $0.indexes.contains(.ordered) }
  }

  static func key(block: UInt64, slot: UInt8) -> UInt64 { block << 8 | UInt64(slot) }

  /// The first row of the block a stored key names.
  static func firstRow(ofKey key: UInt64) -> UInt64 { (key >> 8) << UInt64(RowTable.blockShift) }

  /// The field slot a stored key names.
  static func slot(ofKey key: UInt64) -> UInt8 { UInt8(truncatingIfNeeded: key) }

  /// The block of `slot` that holds `row`, read in place, if stored.
  func block(of row: Row, slot: UInt8, _ txn: some ReadableTransaction) throws -> OrderedColumnBlock? {
    guard let value = try txn.get(database, Self.key(block: RowTable.block(of: row), slot: slot)) else {
      return nil
    }
    return try OrderedColumnBlock(value)
  }

  /// One row's new keys: every ordered field's for a new row, those that changed for an updated
  /// one; none, with `isRemoval`, for a row that goes.
  struct Change {
    var row: Row
    var keys: [(slot: UInt8, key: OrderedKey)]
    var isRemoval = false
  }

  /// The change that files a row whose values (by slot) are `values`.
  static func change(row: Row, values: [FieldValue], fields: [IndexedField]) -> Change {
    Change(
      row: row,
      keys: fields.map { field in
        let value = field.position < values.count ? values[field.position] : .null
        return (UInt8(truncatingIfNeeded: field.position), OrderedKey(value, type: field.type))
      })
  }

  /// Writes `changes`, ascending by row, each row at most once. Blocks past every stored one go
  /// in with `MDB_APPEND`. A replay writes a segment's 131,072 rows at once: each block's keys are
  /// gathered per field in one pass over its rows, not one pass per field.
  func apply(_ changes: [Change], _ txn: WriteTransaction) throws {
    guard !slots.isEmpty, !changes.isEmpty else { return }
    var last = try txn.withCursor(database) { cursor in try cursor.last()?.integerKey }
    let size = RowTable.blockSize
    var position = [Int](repeating: -1, count: 256)
    for (index, slot) in slots.enumerated() { position[Int(slot)] = index }
    // Per field (in the order of `slots`): the block's keys by bit, the bits set, whether touched.
    var keys = [OrderedKey](repeating: .null, count: slots.count * size)
    var present = [UInt64](repeating: 0, count: slots.count)
    var touched = [Bool](repeating: false, count: slots.count)
    var start = 0
    while start < changes.count {
      let block = RowTable.block(of: changes[start].row)
      var removed: UInt64 = 0
      for index in slots.indices {
        present[index] = 0
        touched[index] = false
      }
      var end = start
      while end < changes.count && RowTable.block(of: changes[end].row) == block {
        let change = changes[end]
        let bit = Int(change.row & 63)
        if change.isRemoval {
          removed |= 1 << UInt64(bit)
          for index in slots.indices { touched[index] = true }
        }
        for (slot, key) in change.keys where !change.isRemoval && position[Int(slot)] >= 0 {
          let index = position[Int(slot)]
          keys[index * size + bit] = key
          present[index] |= 1 << UInt64(bit)
          touched[index] = true
        }
        end += 1
      }
      for (index, slot) in slots.enumerated() where touched[index] {
        let key = Self.key(block: block, slot: slot)
        let base = index * size
        let stored = last.map { key <= $0 } ?? false
        if stored, let value = try txn.get(database, key) {
          // The stored rows that no change names keep their keys.
          try OrderedColumnBlock(value).forEach { bit, value in
            let flag: UInt64 = 1 << UInt64(bit)
            guard (present[index] | removed) & flag == 0 else { return }
            keys[base + bit] = value
            present[index] |= flag
          }
        }
        if present[index] == 0 {
          if stored { _ = try txn.delete(database, key) }
          continue
        }
        let value = OrderedColumnBlock.encode(rows: present[index]) { keys[base + $0] }
        try txn.put(database, key, value, flags: stored ? [] : .append)
        if !stored { last = key }
      }
      start = end
    }
  }
}
