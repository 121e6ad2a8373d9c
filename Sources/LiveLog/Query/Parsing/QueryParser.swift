extension Query {
  /// Parses a query in the NSPredicate / Realm query language against the fields of `schema`.
  ///
  /// ```swift
  /// let query = try Query(
  ///   parsing: "full_name CONTAINS[c] %@ AND language = %@ SORT(stargazers_count DESC) LIMIT(10)",
  ///   for: Repository.schema.declaration, term, language)
  /// ```
  /// `%@` placeholders take values and `%K` placeholders take field names, from `arguments` in
  /// order. Every error carries the query and the column of the offending token.
  public init(parsing text: String, for schema: CollectionSchema, _ arguments: any QueryArgument...)
    throws(QueryError)
  {
    try self.init(parsing: text, for: schema, arguments: arguments)
  }

  /// Parses a query with its placeholders' arguments given as an array; see
  /// `init(parsing:for:_:)`.
  public init(parsing text: String, for schema: CollectionSchema, arguments: [any QueryArgument])
    throws(QueryError)
  {
    var parser = try QueryParser(query: text, schema: schema, arguments: arguments)
    self = try parser.parse()
  }

  /// Parses a query against the fields of the record type `R`.
  public init<R: Record>(parsing text: String, for type: R.Type, _ arguments: any QueryArgument...)
    throws(QueryError)
  {
    try self.init(parsing: text, for: R.schema.declaration, arguments: arguments)
  }

  /// Parses a query against the fields of `R`, its arguments given as an array.
  public init<R: Record>(parsing text: String, for type: R.Type, arguments: [any QueryArgument])
    throws(QueryError)
  {
    try self.init(parsing: text, for: R.schema.declaration, arguments: arguments)
  }
}

/// The parser of the query language, checking types against the schema as it goes.
///
/// ```
/// query      := predicate? clause* EOF
/// clause     := SORT "(" sortKey ("," sortKey)* ")" | DISTINCT "(" key ("," key)* ")" | LIMIT "(" n ")"
///               (any number, applied in the order written)
/// predicate  := andExpr ((OR | "||") andExpr)*
/// andExpr    := notExpr ((AND | "&&") notExpr)*
/// notExpr    := (NOT | "!")* primary
/// primary    := "(" predicate ")" | TRUEPREDICATE | FALSEPREDICATE | comparison
/// comparison := side operator[options] side          (QueryParser+Comparison.swift)
/// ```
/// A `(` opens a group of conditions unless what follows its `)` is an operator: then it opens
/// an arithmetic expression (`(stars + forks) / 2 > 10`).
/// AND and OR chains are flattened (`a AND (b AND c)` is `.and([a, b, c])`), the same way the
/// typed form's `&&` and `||` build them, so both forms of a query compare equal.
struct QueryParser {
  /// Deeper nesting of parentheses and NOT is an error. The parser itself keeps an explicit stack,
  /// but the predicate's consumers (the evaluator, hashing, `text`) recurse on it; no real query
  /// comes near the limit.
  static let maximumDepth = 200

  let query: String
  /// The fields names resolve to.
  let schema: CollectionSchema
  let tokens: [Token]
  let arguments: [any QueryArgument]
  /// For each `(` token, the index of its `)` (if it has one).
  let closing: [Int: Int]
  var position = 0
  var argumentIndex = 0
  var depth = 0

  init(query: String, schema: CollectionSchema, arguments: [any QueryArgument]) throws(QueryError) {
    self.query = query
    self.schema = schema
    self.tokens = try Lexer.tokens(of: query)
    self.arguments = arguments
    var closing: [Int: Int] = [:]
    var open: [Int] = []
    for (index, token) in tokens.enumerated() {
      if token.kind == .symbol(.leftParenthesis) { open.append(index) }
      if token.kind == .symbol(.rightParenthesis), let start = open.popLast() { closing[start] = index }
    }
    self.closing = closing
    try checkArgumentCount()
  }

  /// The whole query.
  mutating func parse() throws(QueryError) -> Query {
    var result = Query()
    let hasPredicate = !current.isEnd && !isAtClause
    if hasPredicate { result.predicate = try predicate() }
    var clauses: [QueryClause] = []
    while !current.isEnd {
      if isAtClause && current.isKeyword("SORT") {
        clauses.append(.sort(try sortClause()))
      } else if isAtClause && current.isKeyword("DISTINCT") {
        clauses.append(.distinct(try distinctClause()))
      } else if isAtClause && current.isKeyword("LIMIT") {
        clauses.append(.limit(try limitClause()))
      } else if current.kind == .symbol(.rightParenthesis) {
        throw error(
          .syntax, "unbalanced parenthesis: ')' at column \(current.column) has no matching '('", at: current)
      } else {
        let expectation =
          !clauses.isEmpty || !hasPredicate
          ? "SORT, DISTINCT, LIMIT or the end of the query"
          : "AND, OR, SORT, DISTINCT, LIMIT or the end of the query"
        throw expected(expectation, found: current)
      }
    }
    result.clauses = clauses
    return result
  }

  // MARK: - Predicates

  /// One open parenthesis (or the whole predicate) while its contents are read.
  private struct Group {
    var open: Token?
    /// The finished AND chains, to be joined by OR.
    var alternatives: [Predicate] = []
    /// The AND chain being read.
    var conjuncts: [Predicate] = []
    /// NOTs waiting for the next operand.
    var negations = 0
  }

  /// `a OR b AND NOT (c …)`, read with an explicit stack of open parentheses rather than by
  /// recursion: a debug build spends kilobytes of stack on each recursive level, and at the
  /// nesting limit that overflowed a 2 MB thread stack.
  private mutating func predicate() throws(QueryError) -> Predicate {
    var groups = [Group(open: nil)]
    while true {
      // An operand: NOTs and parentheses, then a condition.
      while true {
        if current.kind == .symbol(.not) || current.isKeyword("NOT") {
          try enter(at: current)
          advance()
          groups[groups.count - 1].negations += 1
        } else if current.kind == .symbol(.leftParenthesis) && !opensExpression {
          try enter(at: current)
          groups.append(Group(open: advance()))
        } else {
          break
        }
      }
      if current.kind == .symbol(.rightParenthesis) {
        if groups.count == 1 {
          throw error(
            .syntax, "unbalanced parenthesis: ')' at column \(current.column) has no matching '('",
            at: current)
        }
        if tokens[position - 1].kind == .symbol(.leftParenthesis) {
          throw expected("a condition inside '( )'", found: current)
        }
      }
      var operand = try primary()
      // What follows the operand: AND or OR go on to the next operand; anything else ends the
      // innermost group, whose whole becomes an operand of the group around it.
      while true {
        let top = groups.count - 1
        for _ in 0..<groups[top].negations {
          operand = .not(operand)
          depth -= 1
        }
        groups[top].negations = 0
        groups[top].conjuncts.append(operand)
        if current.kind == .symbol(.and) || current.isKeyword("AND") {
          advance()
          break
        }
        if current.kind == .symbol(.or) || current.isKeyword("OR") {
          advance()
          groups[top].alternatives.append(Predicate.conjunction(groups[top].conjuncts))
          groups[top].conjuncts = []
          break
        }
        groups[top].alternatives.append(Predicate.conjunction(groups[top].conjuncts))
        let whole = Predicate.disjunction(groups[top].alternatives)
        guard let open = groups[top].open else { return whole }
        guard current.kind == .symbol(.rightParenthesis) else {
          if current.isEnd { throw unclosed(open) }
          throw expected("AND, OR or ')' to close the '(' at column \(open.column)", found: current)
        }
        advance()
        depth -= 1
        groups.removeLast()
        operand = whole
      }
    }
  }

  /// `TRUEPREDICATE`, `FALSEPREDICATE` or a comparison.
  private mutating func primary() throws(QueryError) -> Predicate {
    if current.isKeyword("TRUEPREDICATE") || current.isKeyword("FALSEPREDICATE") {
      let value = current.isKeyword("TRUEPREDICATE")
      advance()
      return .constant(value)
    }
    return try comparison()
  }

  /// Whether the `(` here opens an arithmetic expression rather than a group of conditions: the
  /// token after its `)` is an operator.
  private var opensExpression: Bool {
    guard let end = closing[position], end + 1 < tokens.count else { return false }
    let next = tokens[end + 1]
    switch next.kind {
    case .symbol(let symbol):
      return [
        .equal, .notEqual, .less, .lessOrEqual, .greater, .greaterOrEqual, .plus, .minus, .star, .slash,
      ]
      .contains(symbol)
    case .identifier:
      return ["BETWEEN", "IN", "CONTAINS", "BEGINSWITH", "ENDSWITH", "LIKE"].contains { next.isKeyword($0) }
    default:
      return false
    }
  }

  /// Counts one level of nesting, failing past `maximumDepth`.
  mutating func enter(at token: Token) throws(QueryError) {
    depth += 1
    guard depth <= QueryParser.maximumDepth else {
      throw error(
        .syntax,
        "the query nests too deeply: more than \(QueryParser.maximumDepth) levels of parentheses and NOT",
        at: token)
    }
  }

  // MARK: - Tokens

  var current: Token { tokens[position] }

  /// Whether the next tokens are `SORT (`, `DISTINCT (` or `LIMIT (`; the parenthesis tells the clause keyword
  /// from a field that happens to share its name.
  private var isAtClause: Bool {
    (current.isKeyword("SORT") || current.isKeyword("LIMIT") || current.isKeyword("DISTINCT"))
      && position + 1 < tokens.count && tokens[position + 1].kind == .symbol(.leftParenthesis)
  }

  /// Moves past the current token (never past the end) and returns it.
  @discardableResult
  mutating func advance() -> Token {
    let token = tokens[position]
    if !token.isEnd { position += 1 }
    return token
  }

  // MARK: - Errors

  func error(_ kind: QueryError.Kind, _ message: String, at token: Token) -> QueryError {
    error(kind, message, column: token.column)
  }

  func error(_ kind: QueryError.Kind, _ message: String, column: Int) -> QueryError {
    QueryError(kind: kind, message: message, query: query, column: column)
  }

  /// "expected X, found 'y'", or "expected X but the query ended".
  func expected(_ what: String, found token: Token) -> QueryError {
    if token.isEnd { return error(.syntax, "expected \(what) but the query ended", at: token) }
    return error(.syntax, "expected \(what), found \(token.quoted)", at: token)
  }

  func unclosed(_ open: Token) -> QueryError {
    let name = open.kind == .symbol(.leftBrace) ? "brace" : "parenthesis"
    return error(
      .syntax, "unbalanced \(name): '\(open.text)' at column \(open.column) is never closed", at: open)
  }

  // MARK: - Arguments

  /// "1 placeholder", "2 placeholders".
  private static func counting(_ count: Int, _ noun: String) -> String {
    "\(count) \(noun)\(count == 1 ? "" : "s")"
  }

  /// Matches placeholders with arguments before parsing, so that a wrong count is reported even
  /// when it stops the parse at a different place.
  private func checkArgumentCount() throws(QueryError) {
    let placeholders = tokens.filter { $0.kind == .valuePlaceholder || $0.kind == .keyPathPlaceholder }
    guard placeholders.count != arguments.count else { return }
    let counts =
      "the query has \(QueryParser.counting(placeholders.count, "placeholder")) but "
      + "\(QueryParser.counting(arguments.count, "argument")) \(arguments.count == 1 ? "was" : "were") given"
    if arguments.count < placeholders.count {
      let missing = placeholders[arguments.count]
      throw error(
        .argument, "\(counts); \(missing.text) at column \(missing.column) has no argument", at: missing)
    }
    throw error(
      .argument, "\(counts); remove the extra arguments or add placeholders", at: tokens[tokens.count - 1])
  }

  /// The next argument, for the placeholder `token`, and its 1-based number.
  mutating func takeArgument(for token: Token) throws(QueryError) -> (value: QueryValue, number: Int) {
    guard argumentIndex < arguments.count else {
      throw error(.argument, "\(token.text) at column \(token.column) has no argument", at: token)
    }
    argumentIndex += 1
    return (arguments[argumentIndex - 1].queryValue, argumentIndex)
  }
}
