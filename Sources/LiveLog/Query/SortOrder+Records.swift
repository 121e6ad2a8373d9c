extension SortOrder {
  /// The first `limit` (all when `nil`) of `rows` in the order `descriptors` give (then by row),
  /// each row's keys read from the record `record` returns for it.
  static func sorted(
    _ rows: [Row], by descriptors: [SortDescriptor], limit: Int? = nil,
    record: (Row) throws -> UnsafeRawBufferPointer
  ) throws -> [Row] {
    var keyed: [(row: Row, keys: [FieldValue])] = []
    keyed.reserveCapacity(rows.count)
    for row in rows {
      let view = RecordView(bytes: try record(row), row: row)
      keyed.append((row, try descriptors.map { try view.value($0.field) }))
    }
    keyed.sort { precedes(($0.keys, $0.row), ($1.keys, $1.row)) { descriptors[$0].ascending } }
    return keyed.prefix(limit ?? Int.max).map(\.row)
  }
}
