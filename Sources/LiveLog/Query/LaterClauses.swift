/// The clauses after a query's leading sort and limit (`LIMIT(5) SORT(stars DESC)`,
/// `DISTINCT(language)`), applied in memory to the rows those left, in the order written.
enum LaterClauses {
  /// `rows` (in result order) through `clauses`; `values(row)` gives the row's values of
  /// `fields` (the query's `laterClauseFields`), in that order.
  static func apply(
    _ clauses: ArraySlice<QueryClause>, to rows: [Row], fields: [Field], values: (Row) throws -> [FieldValue]
  ) rethrows -> [Row] {
    guard !clauses.isEmpty else { return rows }
    var slot: [Int: Int] = [:]
    for (index, field) in fields.enumerated() { slot[field.position] = index }
    var keyed: [(row: Row, values: [FieldValue])] = []
    keyed.reserveCapacity(rows.count)
    for row in rows { keyed.append((row, try values(row))) }
    func value(_ entry: (row: Row, values: [FieldValue]), _ field: Field) -> FieldValue {
      slot[field.position].map { entry.values[$0] } ?? .null
    }
    for clause in clauses {
      switch clause {
      case .limit(let count):
        if keyed.count > count { keyed.removeLast(keyed.count - count) }
      case .sort(let keys):
        // Stable: ties keep the order the rows have now.
        keyed = keyed.enumerated().sorted { a, b in
          for key in keys {
            let order = SortOrder.compare(value(a.element, key.field), value(b.element, key.field))
            if order != 0 { return key.ascending ? order < 0 : order > 0 }
          }
          return a.offset < b.offset
        }.map(\.element)
      case .distinct(let distinct):
        var seen: Set<[DistinctKey]> = []
        keyed = keyed.filter { entry in seen.insert(distinct.map { DistinctKey(value(entry, $0)) }).inserted }
      }
    }
    return keyed.map(\.row)
  }

  /// The values of `fields` in a stored record.
  static func values(of record: RecordView, _ fields: [Field]) throws(StoreError) -> [FieldValue] {
    var values: [FieldValue] = []
    values.reserveCapacity(fields.count)
    for field in fields { values.append(try record.value(field)) }
    return values
  }
}

/// A value as `DISTINCT` tells values apart: as `SORT` orders them, so that every NaN is one
/// value and `-0.0` is `0.0`.
struct DistinctKey: Hashable {
  let value: FieldValue

  init(_ value: FieldValue) {
    if case .double(let number) = value {
      self.value = number.isNaN ? .double(.nan) : .double(number == 0 ? 0 : number)
    } else {
      self.value = value
    }
  }

  static func == (a: DistinctKey, b: DistinctKey) -> Bool {
    SortOrder.compare(a.value, b.value) == 0 && a.sameKind(b)
  }

  func hash(into hasher: inout Hasher) {
    if case .double(let number) = value, number.isNaN {
      hasher.combine("nan")
    } else {
      hasher.combine(value)
    }
  }

  private func sameKind(_ other: DistinctKey) -> Bool {
    switch (value, other.value) {
    case (.null, .null), (.bool, .bool), (.integer, .integer), (.double, .double), (.date, .date),
      (.string, .string):
      true
    default: false
    }
  }
}
