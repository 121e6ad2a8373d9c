/// The type rules: which operators, options and values each kind of field accepts, and the
/// conversions the engine relies on (dates as `.date`, list comparisons quantified).
///
/// Checking at parse time means a query that parses can run: the evaluator and the planner never
/// meet a string compared with a number.
extension QueryParser {
  func typedComparison(
    quantifier: (Quantifier, Token)?, key: KeyPathNode, op: OperatorNode, value: ValueNode
  ) throws(QueryError) -> Comparison {
    let field = key.field
    let isList = field.type.isList
    if let (_, token) = quantifier, !isList {
      throw error(
        .typeMismatch,
        "\(token.text.uppercased()) applies to list fields (string or integer lists); \(QueryParser.describe(field))",
        at: token)
    }
    // `topics == nil` asks about the list itself, not its elements.
    if isList, quantifier == nil, case .scalar(.null) = value.content {
      guard op.comparisonOperator == .equal || op.comparisonOperator == .notEqual else {
        throw error(
          .typeMismatch, "nil can only be compared with == or !=, as in \(field.name) == nil",
          column: value.column)
      }
      return Comparison(
        field: field, quantifier: .single, operator: op.comparisonOperator, options: op.options, value: .null)
    }
    let elementType = field.type.elementType
    try check(op, elementType: elementType, field: field)
    let operand = try self.operand(value, elementType: elementType, field: field, op: op)
    return Comparison(
      field: field, quantifier: isList ? (quantifier?.0 ?? .any) : .single, operator: op.comparisonOperator,
      options: op.options, value: operand)
  }

  /// Whether the operator and its options apply to the field's (or its elements') type.
  func check(_ op: OperatorNode, elementType: FieldType, field: Field) throws(QueryError) {
    let name = op.comparisonOperator.rawValue
    if op.comparisonOperator == .between
      && (field.type.isList || elementType == .string || elementType == .bool)
    {
      // Realm's rule: BETWEEN is for one number or date.
      throw error(
        .typeMismatch,
        "\(QueryParser.describe(field)); BETWEEN applies to number and date fields"
          + (field.type.isList ? " (for a list, write ANY \(field.name) >= low AND …)" : ""),
        at: op.token)
    }
    switch elementType {
    case .string, .stringList:
      return
    case .integer, .double, .date, .bool, .integerList:
      if op.comparisonOperator.isStringOperator {
        throw error(
          .typeMismatch, "\(QueryParser.describe(field)); \(name) applies to string fields", at: op.token)
      }
      if elementType == .bool && ![.equal, .notEqual, .in].contains(op.comparisonOperator) {
        throw error(
          .typeMismatch,
          "\(QueryParser.describe(field)); \(name) applies to number, date and string fields", at: op.token)
      }
      if !op.options.isEmpty {
        throw error(
          .typeMismatch,
          "\(QueryParser.describe(field)); options such as [c] and [d] apply to string fields",
          column: op.optionsColumn)
      }
    }
  }

  /// The right-hand side: a list for IN, two bounds for BETWEEN, one value otherwise.
  private func operand(_ value: ValueNode, elementType: FieldType, field: Field, op: OperatorNode)
    throws(QueryError) -> QueryValue
  {
    let isList = field.type.isList
    let kind: QueryError.Kind = value.isArgument ? .argument : .syntax
    switch op.comparisonOperator {
    case .in:
      guard case .list(let items) = value.content else {
        throw error(
          kind, "IN needs a list, as in \(field.name) IN {a, b}; found \(value.label)", column: value.column)
      }
      var converted: [QueryValue] = []
      for item in items {
        converted.append(
          try scalar(item, elementType: elementType, field: field, op: op, allowsNull: !isList))
      }
      return .list(converted)
    case .between:
      guard case .list(let bounds) = value.content, bounds.count == 2 else {
        var found = value.label
        if case .list(let items) = value.content { found = "a list of \(items.count)" }
        throw error(
          kind, "BETWEEN needs a list of two values, as in \(field.name) BETWEEN {low, high}; found \(found)",
          column: value.column)
      }
      let low = try scalar(bounds[0], elementType: elementType, field: field, op: op, allowsNull: false)
      let high = try scalar(bounds[1], elementType: elementType, field: field, op: op, allowsNull: false)
      return .list([low, high])
    default:
      if case .list = value.content {
        throw error(
          kind, "a list goes with IN or BETWEEN; \(op.token.text) needs a single value", column: value.column)
      }
      // Realm compares nil with every operator: `<` and `>` match nothing, `<=`, `>=` and LIKE
      // test for nil, CONTAINS, BEGINSWITH and ENDSWITH match everything.
      return try scalar(value, elementType: elementType, field: field, op: op, allowsNull: !isList)
    }
  }

  /// One value checked against the field's (or its elements') type, and converted where the
  /// language allows: dates from ISO 8601 strings and from Unix seconds.
  func scalar(_ node: ValueNode, elementType: FieldType, field: Field, op: OperatorNode, allowsNull: Bool)
    throws(QueryError) -> QueryValue
  {
    let mismatch: QueryError.Kind = node.isArgument ? .argument : .typeMismatch
    let subject =
      field.type.isList
      ? "the elements of \(field.name) are \(field.type.elementType)s" : QueryParser.describe(field)
    let value: QueryValue
    switch node.content {
    case .list:
      throw error(node.isArgument ? .argument : .syntax, "lists cannot be nested", column: node.column)
    case .oversizedInteger:
      guard elementType == .integer || elementType == .date || elementType == .double else {
        throw error(mismatch, "\(subject); \(node.label) is an integer", column: node.column)
      }
      throw error(
        mismatch, "\(node.label) does not fit in a 64-bit integer; \(subject)", column: node.column)
    case .scalar(let scalar):
      value = scalar
    }
    switch (elementType, value) {
    case (_, .null):
      if allowsNull { return .null }
      if field.type.isList {
        throw error(
          mismatch, "\(subject) and never nil; test the list itself with \(field.name) == nil",
          column: node.column)
      }
      throw error(
        mismatch, "nil has no place in \(op.token.text); it needs values", column: node.column)
    case (.string, .string), (.integer, .integer), (.bool, .bool), (.date, .date):
      return value
    case (.bool, .integer(let number)) where number == 0 || number == 1:
      // NSPredicate's coercion: `fork == 1` is `fork == true`.
      return .bool(number == 1)
    case (.double, .integer(let whole)):
      // A double field compares with doubles; a whole number too large to be one exactly stays
      // whole, and compares exactly.
      return Double(exactly: whole).map(QueryValue.double) ?? value
    case (.integer, .double(let number)), (.double, .double(let number)):
      guard number.isFinite else {
        throw error(mismatch, "\(node.label) is not a finite number", column: node.column)
      }
      return value
    case (.date, .integer(let seconds)):
      return .date(Timestamp(secondsSince1970: seconds))
    case (.date, .string(let text)):
      guard let date = Timestamp(iso8601: text) else {
        throw error(
          mismatch,
          "\(node.label) is not a date; \(subject): write 2021-01-31, 2021-01-31T10:20:30Z, "
            + "2021-01-31@10:20:30 or Unix seconds",
          column: node.column)
      }
      return .date(date)
    default:
      throw error(mismatch, "\(subject); \(node.label) is \(QueryParser.noun(value))", column: node.column)
    }
  }

  // MARK: - Words for messages

  /// "stargazers_count is an integer field".
  static func describe(_ field: Field) -> String {
    let type = field.type.description
    return "\(field.name) is \(type.first == "i" ? "an" : "a") \(type) field"
  }

  /// "an integer", "a string".
  static func noun(_ value: QueryValue) -> String {
    switch value {
    case .null: "nil"
    case .bool: "a bool"
    case .integer: "an integer"
    case .double: "a decimal number"
    case .string: "a string"
    case .date: "a date"
    case .list: "a list"
    }
  }

  /// Lists every field, and suggests the one probably meant: `fullName` → `full_name`,
  /// `login` → `owner.login`, `stargazer_count` → `stargazers_count`.
  static func unknownFieldMessage(_ name: String, in schema: CollectionSchema) -> String {
    let fields = schema.fields.map(\.name)
    let shown = ControlEscaping.excerpt(name)
    var message = "unknown field '\(shown)'"
    if let suggestion = suggestion(for: name, among: fields) { message += "; did you mean '\(suggestion)'?" }
    return message + "; the fields are: " + fields.joined(separator: ", ")
  }

  private static func suggestion(for name: String, among fields: [String]) -> String? {
    guard name.count <= 64 else { return nil }
    var snake = ""
    for character in name {
      if character.isUppercase && !snake.isEmpty { snake += "_" }
      snake += character.lowercased()
    }
    if let match = fields.first(where: { $0 == snake || $0.hasSuffix("." + snake) }) { return match }
    let target = Array(snake)
    var best: (name: String, distance: Int)?
    for field in fields {
      let distance = editDistance(target, Array(field))
      if distance <= 2 && distance < (best?.distance ?? .max) { best = (field, distance) }
    }
    return best?.name
  }

  /// Levenshtein distance; names are short, so the quadratic table is cheap.
  private static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
    guard !a.isEmpty else { return b.count }
    guard !b.isEmpty else { return a.count }
    var previous = Array(0...b.count)
    var row = previous
    for i in 1...a.count {
      row[0] = i
      for j in 1...b.count {
        let substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
        row[j] = min(substitution, previous[j] + 1, row[j - 1] + 1)
      }
      swap(&previous, &row)
    }
    return previous[b.count]
  }
}
