/// The syntax of one side of a comparison: arithmetic over fields, constants, `@count` and
/// subscripts.
///
/// ```
/// expression := term (("+" | "-") term)*
/// term       := factor (("*" | "/") factor)*
/// factor     := "(" expression ")" | keyPath [".@count" | ".@size" | "[" (FIRST|LAST|SIZE|n) "]"]
///             | keyPath ".length" | value
/// ```
extension QueryParser {
  mutating func additive(after previous: Token?) throws(QueryError) -> ExpressionNode {
    var result = try multiplicative(after: previous)
    while current.kind == .symbol(.plus) || current.kind == .symbol(.minus) {
      let token = advance()
      let right = try multiplicative(after: token)
      result = .arithmetic(token.kind == .symbol(.plus) ? .add : .subtract, result, right, token)
    }
    return result
  }

  private mutating func multiplicative(after previous: Token?) throws(QueryError) -> ExpressionNode {
    var result = try factor(after: previous)
    while current.kind == .symbol(.star) || current.kind == .symbol(.slash) {
      let token = advance()
      let right = try factor(after: token)
      result = .arithmetic(token.kind == .symbol(.star) ? .multiply : .divide, result, right, token)
    }
    return result
  }

  private mutating func factor(after previous: Token?) throws(QueryError) -> ExpressionNode {
    let token = current
    if token.kind == .symbol(.leftParenthesis) {
      try enter(at: token)
      advance()
      let inner = try additive(after: token)
      guard current.kind == .symbol(.rightParenthesis) else {
        if current.isEnd { throw unclosed(token) }
        throw expected("an operator or ')' to close the '(' at column \(token.column)", found: current)
      }
      advance()
      depth -= 1
      return inner
    }
    guard token.kind == .keyPathPlaceholder || (isIdentifier(token) && !token.isReservedWord) else {
      return .value(try value(after: previous))
    }
    // `name.length`: the length of a string (or a list), when no field has that name.
    if case .identifier(let name) = token.kind, schema.field(named: name) == nil, name.hasSuffix(".length"),
      let base = schema.field(named: String(name.dropLast(".length".count)))
    {
      advance()
      let key = KeyPathNode(field: base, column: token.column)
      try checkCountable(key, at: token)
      return .count(key)
    }
    let key = try keyPath(after: previous)
    return try collectionSuffix(key)
  }

  /// `.@count`, `.@size` or a subscript after a key path, if any.
  private mutating func collectionSuffix(_ key: KeyPathNode) throws(QueryError) -> ExpressionNode {
    if case .collectionOperator(let word) = current.kind {
      let token = advance()
      guard word.lowercased() == "count" || word.lowercased() == "size" else {
        throw error(
          .syntax,
          "unknown collection operator '.@\(ControlEscaping.excerpt(word))'; "
            + "use .@count or .@size (@avg, @min, @max and @sum need lists of objects)",
          at: token)
      }
      try checkCountable(key, at: token)
      return .count(key)
    }
    guard current.kind == .symbol(.leftBracket) else { return .field(key) }
    let open = advance()
    guard key.field.type.isList else {
      throw error(
        .typeMismatch,
        "\(QueryParser.describe(key.field)); [FIRST], [LAST], [n] and [SIZE] apply to list fields",
        at: open)
    }
    let inside = current
    let result: ExpressionNode
    switch inside.kind {
    case .integer(let index?) where index >= 0: result = .element(key, .position(index))
    case .identifier where inside.isKeyword("FIRST"): result = .element(key, .first)
    case .identifier where inside.isKeyword("LAST"): result = .element(key, .last)
    case .identifier where inside.isKeyword("SIZE"): result = .count(key)
    default: throw expected("FIRST, LAST, SIZE or an index of 0 or more inside '[ ]'", found: inside)
    }
    advance()
    guard current.kind == .symbol(.rightBracket) else {
      throw expected("']' to close the subscript at column \(open.column)", found: current)
    }
    advance()
    return result
  }

  /// `@count` and friends apply to strings and lists.
  private func checkCountable(_ key: KeyPathNode, at token: Token) throws(QueryError) {
    guard key.field.type.isList || key.field.type == .string else {
      throw error(
        .typeMismatch,
        "\(QueryParser.describe(key.field)); @count, @size and .length apply to strings and lists", at: token)
    }
  }
}
