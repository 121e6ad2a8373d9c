/// One clause after a query's predicate.
public enum QueryClause: Hashable, Sendable {
  /// `SORT(a ASC, b DESC)`: a stable sort by each key in turn.
  case sort([SortDescriptor])
  /// `DISTINCT(a, b)`: the first row of each combination of the fields' values, in the order the
  /// rows have at that point.
  case distinct([Field])
  /// `LIMIT(n)`: the first `n` rows.
  case limit(Int)

  /// `clauses` with consecutive sorts and consecutive limits merged, and the clauses that change
  /// nothing (an empty sort, a repeated key) left out.
  static func normalized(_ clauses: [QueryClause]) -> [QueryClause] {
    var result: [QueryClause] = []
    for clause in clauses {
      switch (clause, result.last) {
      case (.sort(let keys), .sort(let earlier)?):
        // The later sort decides; the earlier one orders its ties.
        result[result.count - 1] = .sort(QueryClause.unique(keys + earlier))
      case (.sort(let keys), _):
        if !keys.isEmpty { result.append(.sort(QueryClause.unique(keys))) }
      case (.limit(let count), .limit(let earlier)?):
        result[result.count - 1] = .limit(min(max(0, count), earlier))
      case (.limit(let count), _):
        result.append(.limit(max(0, count)))
      case (.distinct(let fields), _):
        var seen: Set<String> = []
        let unique = fields.filter { seen.insert($0.name).inserted }
        if !unique.isEmpty { result.append(.distinct(unique)) }
      }
    }
    return result
  }

  /// Sort keys with each field's first occurrence only: a later key on the same field never
  /// decides anything.
  private static func unique(_ keys: [SortDescriptor]) -> [SortDescriptor] {
    var seen: Set<String> = []
    return keys.filter { seen.insert($0.field.name).inserted }
  }
}

extension Query {
  /// The part of the clauses the engine runs with its indexes — a leading sort and the limit
  /// right after it — and the clauses left to apply to those rows in memory.
  var leadingOrder: (sort: [SortDescriptor], limit: Int?, rest: ArraySlice<QueryClause>) {
    var index = clauses.startIndex
    var sort: [SortDescriptor] = []
    var limit: Int?
    if index < clauses.endIndex, case .sort(let keys) = clauses[index] {
      sort = keys
      index += 1
    }
    if index < clauses.endIndex, case .limit(let count) = clauses[index] {
      limit = count
      index += 1
    }
    return (sort, limit, clauses[index...])
  }

  /// The sort keys of the leading sort.
  var sort: [SortDescriptor] { leadingOrder.sort }

  /// The limit that follows the leading sort (or opens the clauses).
  var limit: Int? { leadingOrder.limit }

  /// Whether the clauses need more than a sort and a limit after it.
  var hasLaterClauses: Bool { !leadingOrder.rest.isEmpty }

  /// The same predicate with only the leading sort: the full result a `LIMIT` is a window over.
  var unlimited: Query { Query(predicate: predicate, sort: sort) }

  /// Every field the clauses after the leading ones read, in slot order.
  var laterClauseFields: [Field] {
    var fields: [Field] = []
    for clause in leadingOrder.rest {
      switch clause {
      case .sort(let keys): fields += keys.map(\.field)
      case .distinct(let distinct): fields += distinct
      case .limit: break
      }
    }
    var seen: Set<Int> = []
    return fields.filter { seen.insert($0.position).inserted }
  }
}
