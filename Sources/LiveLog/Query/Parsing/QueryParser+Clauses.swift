/// The clauses after the predicate: `SORT(key [ASC|DESC], …)`, `DISTINCT(key, …)` and `LIMIT(n)`.
extension QueryParser {
  /// `SORT(a, b DESC)`; the caller has seen `SORT (`.
  mutating func sortClause() throws(QueryError) -> [SortDescriptor] {
    advance()
    let open = advance()
    var keys: [SortDescriptor] = []
    while true {
      let key = try keyPath(after: tokens[position - 1])
      guard !key.field.type.isList else {
        throw error(
          .typeMismatch,
          "\(QueryParser.describe(key.field)); SORT needs a field with one value per record",
          column: key.column)
      }
      var ascending = true
      if let direction = current.keyword(among: ["ASC", "ASCENDING", "DESC", "DESCENDING"]) {
        ascending = direction.hasPrefix("A")
        advance()
      }
      keys.append(SortDescriptor(field: key.field, ascending: ascending))
      if current.kind == .symbol(.comma) {
        advance()
        continue
      }
      if current.kind == .symbol(.rightParenthesis) { break }
      if current.isEnd { throw unclosed(open) }
      throw expected("ASC, DESC, ',' or ')' after the sort key", found: current)
    }
    advance()
    return keys
  }

  /// `DISTINCT(a, b)`; the caller has seen `DISTINCT (`.
  mutating func distinctClause() throws(QueryError) -> [Field] {
    advance()
    let open = advance()
    var fields: [Field] = []
    while true {
      let key = try keyPath(after: tokens[position - 1])
      guard !key.field.type.isList else {
        throw error(
          .typeMismatch,
          "\(QueryParser.describe(key.field)); DISTINCT needs a field with one value per record",
          column: key.column)
      }
      fields.append(key.field)
      if current.kind == .symbol(.comma) {
        advance()
        continue
      }
      if current.kind == .symbol(.rightParenthesis) { break }
      if current.isEnd { throw unclosed(open) }
      throw expected("',' or ')' after the field", found: current)
    }
    advance()
    return fields
  }

  /// `LIMIT(n)` or `LIMIT(%@)`; the caller has seen `LIMIT (`.
  mutating func limitClause() throws(QueryError) -> Int {
    advance()
    let open = advance()
    let token = current
    let count: Int
    switch token.kind {
    case .integer(let number?):
      guard number >= 0, let value = Int(exactly: number) else {
        throw error(.syntax, "LIMIT needs a whole number of 0 or more, found \(token.quoted)", at: token)
      }
      count = value
    case .integer(nil):
      throw error(.syntax, "LIMIT \(token.quoted) does not fit in a 64-bit integer", at: token)
    case .valuePlaceholder:
      let (value, number) = try takeArgument(for: token)
      guard case .integer(let limit) = value, limit >= 0, let exact = Int(exactly: limit) else {
        throw error(
          .argument,
          "LIMIT needs a whole number of 0 or more; argument \(number) is \(QueryParser.render(value))",
          at: token)
      }
      count = exact
    default:
      throw expected("a whole number after 'LIMIT('", found: token)
    }
    advance()
    guard current.kind == .symbol(.rightParenthesis) else {
      if current.isEnd { throw unclosed(open) }
      throw expected("')' after the limit", found: current)
    }
    advance()
    return count
  }
}
