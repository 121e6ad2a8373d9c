import LMDB

extension IndexReader {
  /// The rows whose value of `left` stands in `relation` to their value of `right` (fields that
  /// `OrderedColumns.compare(_:_:)` accepts), among `candidates` (ascending) when given, else among
  /// every row; read by row from the ordered columns (a recent row's from its entry), no record read. `nil`
  /// when the store has no columns (format 7, read-only). Nil values follow Realm's rules, as
  /// the per-row check does: `==` and `<=`, `>=` hold when both are nil, `!=` when one is,
  /// `<` and `>` never.
  ///
  /// With `limit`, a read of every row stops once it has that many: the first rows in row order,
  /// for a `LIMIT` without `SORT` (more may come back).
  func rows(
    comparing left: Field, _ relation: ComparisonOperator, _ right: Field, among candidates: [Row]?,
    limit: Int? = nil
  ) throws -> [Row]? {
    guard let columns = collection.orderedColumns else { return nil }
    let slots = (UInt8(truncatingIfNeeded: left.position), UInt8(truncatingIfNeeded: right.position))
    func holds(_ a: OrderedKey?, _ b: OrderedKey?) throws -> Bool {
      guard let a, let b else {
        throw StoreError.corruptState(
          reason: "\(collection.name): a row has no ordered key of \(a == nil ? left.name : right.name); "
            + "`livelog replay --in-place` rebuilds the state from the log")
      }
      return OrderedKey.holds(a, relation, b)
    }
    var rows: [Row] = []
    do {
      if let candidates {
        var blocks: (index: UInt64, left: OrderedColumnBlock?, right: OrderedColumnBlock?) = (.max, nil, nil)
        for row in candidates {
          if let entry = recent.entry(of: row) {
            if !entry.isDeleted, try holds(entry.orderedKey(field: slots.0), entry.orderedKey(field: slots.1))
            {
              rows.append(row)
            }
            continue
          }
          if RowTable.block(of: row) != blocks.index {
            blocks = (
              RowTable.block(of: row), try columns.block(of: row, slot: slots.0, txn),
              try columns.block(of: row, slot: slots.1, txn)
            )
          }
          let bit = Int(row & 63)
          if try holds(blocks.left?.key(atBit: bit), blocks.right?.key(atBit: bit)) { rows.append(row) }
        }
        return rows
      }
      // The recent rows that match, first: with a limit, those before a block count towards it.
      let matching =
        recent.isEmpty
        ? []
        : try recent.rows { entry in
          try holds(entry.orderedKey(field: slots.0), entry.orderedKey(field: slots.1))
        }
      var matchingBefore = 0
      // Rows found that no recent entry overrides.
      var kept = 0
      let end = UInt64(try collection.rowTable.rowBound(txn)) >> RowTable.blockShift
      var block: UInt64 = 0
      while block < end {
        defer { block += 1 }
        let first = Row(truncatingIfNeeded: block << RowTable.blockShift)
        let leftBlock = try columns.block(of: first, slot: slots.0, txn)
        let rightBlock = try columns.block(of: first, slot: slots.1, txn)
        if leftBlock == nil && rightBlock == nil { continue }
        guard let leftBlock, let rightBlock, rightBlock.mask == leftBlock.mask else {
          throw PageDamage(
            "the ordered columns of \(left.name) and \(right.name) hold different rows from row \(first)")
        }
        var bits = leftBlock.mask
        while bits != 0 {
          let bit = bits.trailingZeroBitCount
          bits &= bits - 1
          guard try holds(leftBlock.key(atBit: bit), rightBlock.key(atBit: bit)) else { continue }
          let row = first + Row(bit)
          rows.append(row)
          if recent.isEmpty || recent.entry(of: row) == nil { kept += 1 }
        }
        if let limit {
          let next = (block + 1) << RowTable.blockShift
          while matchingBefore < matching.count && UInt64(matching[matchingBefore]) < next {
            matchingBefore += 1
          }
          if kept + matchingBefore >= limit { break }
        }
      }
      return recent.overlay(rows, matching: matching)
    } catch let damage as PageDamage {
      throw collection.damaged("the ordered columns", damage)
    }
  }
}

extension OrderedColumns {
  /// Whether two fields' values can be compared by their ordered keys: both have an ordered
  /// index, so their keys are in the ordered columns, and both are integers or both dates, whose
  /// keys order and equal exactly as their values do (doubles' keys set NaN apart, which compares
  /// with nothing).
  static func compare(_ left: Field, _ right: Field) -> Bool {
    left.indexes.contains(.ordered) && right.indexes.contains(.ordered) && left.type == right.type
      && (left.type == .integer || left.type == .date)
  }
}

extension OrderedKey {
  /// Whether `a` stands in `relation` to `b`, keys of two integers or two dates: nil (flag 0)
  /// equals only nil and orders with nothing.
  static func holds(_ a: OrderedKey, _ relation: ComparisonOperator, _ b: OrderedKey) -> Bool {
    let (aIsNil, bIsNil) = (a.flag == 0, b.flag == 0)
    if aIsNil || bIsNil {
      switch relation {
      case .equal, .lessOrEqual, .greaterOrEqual: return aIsNil && bIsNil
      case .notEqual: return aIsNil != bIsNil
      default: return false
      }
    }
    return relation.orders(a, b)
  }
}
