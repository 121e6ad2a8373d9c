/// The syntax of one comparison: `side op[options] side`, where a side is a quantified
/// expression: a field, a constant, a list, `@count`, a subscript, arithmetic.
extension QueryParser {
  /// A field as written in the query.
  struct KeyPathNode {
    var field: Field
    var column: Int
  }

  /// An operator with its options.
  struct OperatorNode {
    var comparisonOperator: ComparisonOperator
    var token: Token
    var options: StringOptions
    /// Where `[` of the options is, for errors about them.
    var optionsColumn: Int
  }

  /// A value as written, before it is checked against a field.
  struct ValueNode {
    enum Content {
      case scalar(QueryValue)
      /// A whole number beyond `Int64`: fine for no field, but the error depends on the field.
      case oversizedInteger
      case list([ValueNode])
    }

    var content: Content
    var column: Int
    /// How messages name the value: its text, or "argument 2 ('x')".
    var label: String
    /// Whether it came from a `%@` argument, which makes a wrong value an `.argument` error.
    var isArgument: Bool
  }

  private static let operatorWords: [(String, ComparisonOperator)] = [
    ("BETWEEN", .between), ("IN", .in), ("CONTAINS", .contains), ("BEGINSWITH", .beginsWith),
    ("ENDSWITH", .endsWith), ("LIKE", .like),
  ]

  static let quantifierWords: [(String, Quantifier)] = [
    ("ANY", .any), ("SOME", .any), ("ALL", .all), ("NONE", .none),
  ]

  /// One side of a comparison as written.
  struct SideNode {
    var quantifier: (Quantifier, Token)?
    var expression: ExpressionNode
    var column: Int
  }

  /// An expression as written, before its types are checked.
  indirect enum ExpressionNode {
    case field(KeyPathNode)
    case value(ValueNode)
    case count(KeyPathNode)
    case element(KeyPathNode, ElementIndex)
    case arithmetic(ArithmeticOperator, ExpressionNode, ExpressionNode, Token)

    var column: Int {
      switch self {
      case .field(let key), .count(let key), .element(let key, _): key.column
      case .value(let value): value.column
      case .arithmetic(_, let a, _, _): a.column
      }
    }
  }

  mutating func comparison() throws(QueryError) -> Predicate {
    let start = current
    guard startsSide(start) else {
      throw expected("a condition (a field name, NOT, '(' or TRUEPREDICATE)", found: start)
    }
    let left = try side(after: nil)
    let op = try comparisonOperator(after: tokens[position - 1])
    let right = try side(after: op.token, isRight: true)
    return try typed(left, op, right)
  }

  private func startsSide(_ token: Token) -> Bool {
    if token.kind == .keyPathPlaceholder || token.kind == .symbol(.leftParenthesis) { return true }
    if isIdentifier(token) && !token.isReservedWord { return true }
    if QueryParser.quantifierWords.contains(where: { token.isKeyword($0.0) }) { return true }
    return startsValue(token)
  }

  /// `[ANY|SOME|ALL|NONE] expression`.
  private mutating func side(after previous: Token?, isRight: Bool = false) throws(QueryError) -> SideNode {
    var quantifier: (Quantifier, Token)?
    if let (_, found) = QueryParser.quantifierWords.first(where: { current.isKeyword($0.0) }) {
      quantifier = (found, advance())
    }
    let column = current.column
    if isRight, case .identifier(let word) = current.kind, !current.isReservedWord,
      schema.field(named: word) == nil,
      !word.hasSuffix(".length")
    {
      // A word that names no field, right of an operator, is most likely text without quotes.
      let after = previous.map { "a value after \($0.quoted)" } ?? "a value"
      let hint = word.count > 40 ? "" : " (text needs quotes: '\(word)')"
      throw error(.syntax, "expected \(after), found \(current.quoted)\(hint)", at: current)
    }
    let expression = try additive(after: quantifier?.1 ?? previous)
    return SideNode(quantifier: quantifier, expression: expression, column: column)
  }

  // MARK: - Operators

  private mutating func comparisonOperator(after previous: Token) throws(QueryError) -> OperatorNode {
    let token = current
    let op: ComparisonOperator
    switch token.kind {
    case .symbol(.equal): op = .equal
    case .symbol(.notEqual): op = .notEqual
    case .symbol(.less): op = .less
    case .symbol(.lessOrEqual): op = .lessOrEqual
    case .symbol(.greater): op = .greater
    case .symbol(.greaterOrEqual): op = .greaterOrEqual
    case .identifier(let word):
      if let (_, known) = QueryParser.operatorWords.first(where: { token.isKeyword($0.0) }) {
        op = known
      } else if token.isReservedWord {
        throw expected("an operator after \(previous.quoted)", found: token)
      } else {
        let shown = ControlEscaping.excerpt(word)
        throw error(
          .syntax,
          "unknown operator '\(shown)'; expected ==, !=, <, <=, >, >=, BETWEEN, IN, CONTAINS, BEGINSWITH, "
            + "ENDSWITH or LIKE",
          at: token)
      }
    default:
      throw expected("an operator after \(previous.quoted)", found: token)
    }
    advance()
    let (options, optionsColumn) = try options()
    return OperatorNode(comparisonOperator: op, token: token, options: options, optionsColumn: optionsColumn)
  }

  // MARK: - Key paths

  /// A field name or `%K`; `previous` is the token before, for the message when it is missing.
  mutating func keyPath(after previous: Token?) throws(QueryError) -> KeyPathNode {
    let token = current
    switch token.kind {
    case .identifier(let name) where !token.isReservedWord:
      advance()
      return KeyPathNode(field: try resolve(name, at: token), column: token.column)
    case .keyPathPlaceholder:
      advance()
      let (value, number) = try takeArgument(for: token)
      guard case .string(let name) = value else {
        throw error(
          .argument,
          "%K needs a field name (a String), but argument \(number) is \(QueryParser.noun(value)) "
            + "(\(QueryParser.render(value)))",
          at: token)
      }
      return KeyPathNode(field: try resolve(name, at: token), column: token.column)
    default:
      throw expected(previous.map { "a field name after \($0.quoted)" } ?? "a field name", found: token)
    }
  }

  private func resolve(_ name: String, at token: Token) throws(QueryError) -> Field {
    if let field = schema.field(named: name) { return field }
    throw error(.unknownField, QueryParser.unknownFieldMessage(name, in: schema), at: token)
  }

  /// `[c]`, `[d]`, `[cd]` or `[dc]` right after an operator; none is `[]`.
  mutating func options() throws(QueryError) -> (StringOptions, Int) {
    let open = current
    guard open.kind == .symbol(.leftBracket) else { return ([], open.column) }
    advance()
    let letters = current
    guard case .identifier(let text) = letters.kind, let options = QueryParser.options(text) else {
      if letters.kind == .symbol(.rightBracket) || letters.isEnd {
        throw expected("c, d or cd inside '[ ]'", found: letters)
      }
      throw error(.syntax, "unknown option '[\(letters.shortText)]'; use [c], [d] or [cd]", at: letters)
    }
    advance()
    guard current.kind == .symbol(.rightBracket) else {
      throw expected("']' to close the options at column \(open.column)", found: current)
    }
    advance()
    return (options, open.column)
  }

  private static func options(_ letters: String) -> StringOptions? {
    var options: StringOptions = []
    for letter in letters.lowercased() {
      let option: StringOptions
      switch letter {
      case "c": option = .caseInsensitive
      case "d": option = .diacriticInsensitive
      default: return nil
      }
      guard !options.contains(option) else { return nil }
      options.insert(option)
    }
    return options.isEmpty ? nil : options
  }

  // MARK: - Values

  func isIdentifier(_ token: Token) -> Bool {
    if case .identifier = token.kind { return true }
    return false
  }

  func startsValue(_ token: Token) -> Bool {
    switch token.kind {
    case .string, .integer, .decimal, .date, .valuePlaceholder, .symbol(.leftBrace): true
    case .identifier: token.keyword(among: ["TRUE", "YES", "FALSE", "NO", "NIL", "NULL"]) != nil
    default: false
    }
  }

  /// A value, or a `{…}` list of values; `previous` (the operator) is named when it is missing.
  mutating func value(after previous: Token?, inList: Bool = false) throws(QueryError) -> ValueNode {
    let token = current
    func literal(_ value: QueryValue) -> ValueNode {
      ValueNode(content: .scalar(value), column: token.column, label: token.shortText, isArgument: false)
    }
    switch token.kind {
    case .string(let text):
      advance()
      return literal(.string(text))
    case .integer(let number):
      advance()
      guard let number else {
        return ValueNode(
          content: .oversizedInteger, column: token.column, label: token.shortText, isArgument: false)
      }
      return literal(.integer(number))
    case .decimal(let number):
      advance()
      return literal(.double(number))
    case .date(let date):
      advance()
      return literal(.date(date))
    case .valuePlaceholder:
      advance()
      let (value, number) = try takeArgument(for: token)
      return QueryParser.argumentNode(value, number: number, column: token.column)
    case .symbol(.leftBrace) where !inList:
      return try list()
    case .symbol(.leftBrace):
      throw error(.syntax, "lists cannot be nested", at: token)
    case .identifier(let word):
      if let keyword = token.keyword(among: ["TRUE", "YES", "FALSE", "NO", "NIL", "NULL"]) {
        advance()
        switch keyword {
        case "TRUE", "YES": return literal(.bool(true))
        case "FALSE", "NO": return literal(.bool(false))
        default: return literal(.null)
        }
      }
      let after = previous.map { "a value after \($0.quoted)" } ?? "a value"
      let hint =
        token.isReservedWord || word.count > 40
        ? "" : " (text needs quotes: '\(ControlEscaping.excerpt(word))')"
      throw error(.syntax, "expected \(after), found \(token.quoted)\(hint)", at: token)
    default:
      throw expected(previous.map { "a value after \($0.quoted)" } ?? "a value", found: token)
    }
  }

  /// `{a, b, …}`.
  private mutating func list() throws(QueryError) -> ValueNode {
    let open = advance()
    var items: [ValueNode] = []
    if current.kind == .symbol(.rightBrace) {
      advance()
      return ValueNode(content: .list([]), column: open.column, label: "{}", isArgument: false)
    }
    while true {
      items.append(try value(after: tokens[position - 1], inList: true))
      if current.kind == .symbol(.comma) {
        advance()
        continue
      }
      if current.kind == .symbol(.rightBrace) { break }
      if current.isEnd { throw unclosed(open) }
      throw expected("',' or '}' in the list at column \(open.column)", found: current)
    }
    advance()
    return ValueNode(content: .list(items), column: open.column, label: "the list", isArgument: false)
  }

  /// The node for a `%@` argument, lists included.
  private static func argumentNode(_ value: QueryValue, number: Int, column: Int) -> ValueNode {
    let label = "argument \(number) (\(render(value)))"
    guard case .list(let items) = value else {
      return ValueNode(content: .scalar(value), column: column, label: label, isArgument: true)
    }
    let nodes = items.map { argumentNode($0, number: number, column: column) }
    return ValueNode(content: .list(nodes), column: column, label: label, isArgument: true)
  }

  /// A value in query text, shortened for a message.
  static func render(_ value: QueryValue) -> String {
    ControlEscaping.excerpt(value.queryText)
  }
}
