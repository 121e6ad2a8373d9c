import Changesets

/// A row of a live result, ordered the way the query sorts: by its sort keys (each in its own
/// direction), then by row, which is insertion order. Unsorted queries have no keys.
struct LiveElement: Comparable, Sendable {
  var keys: [SortComponent]
  var row: Row

  static func < (a: LiveElement, b: LiveElement) -> Bool {
    SortOrder.precedes(
      rows: (a.row, b.row), keyCount: min(a.keys.count, b.keys.count),
      keys: { (a.keys[$0].value, b.keys[$0].value) }, ascending: { a.keys[$0].ascending })
  }

  static func == (a: LiveElement, b: LiveElement) -> Bool {
    a.row == b.row && a.keys == b.keys
  }
}

/// One sort key's value and direction.
struct SortComponent: Sendable, Equatable {
  var value: FieldValue
  var ascending: Bool
}

/// The rows of a result in order: a plain array from a query run, or a live result's sorted rows
/// (shared, copy-on-write) with its `LIMIT`.
enum RowList: Sendable {
  case array([Row])
  case live(SortedRows<LiveElement>, limit: Int?)

  var count: Int {
    switch self {
    case .array(let rows): rows.count
    case .live(let rows, let limit): min(rows.count, limit ?? Int.max)
    }
  }

  subscript(position: Int) -> Row {
    switch self {
    case .array(let rows): rows[position]
    case .live(let rows, _): rows.row(at: position)?.row ?? 0
    }
  }

  /// Every row, in order.
  var rows: [Row] {
    switch self {
    case .array(let rows): rows
    case .live(let rows, let limit): rows.prefix(limit ?? Int.max).map(\.row)
    }
  }
}
