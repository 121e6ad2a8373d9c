/// The type rules of a whole comparison: which form it takes (a `Comparison` the indexes serve, or
/// a `Relation` checked per row) and which operators and values each side's type accepts.
extension QueryParser {
  /// The kind of value an expression yields, for type checks.
  enum ValueKind: String {
    case string, number, date, bool

    init(_ type: FieldType) {
      switch type.elementType {
      case .string, .stringList: self = .string
      case .integer, .double, .integerList: self = .number
      case .date: self = .date
      case .bool: self = .bool
      }
    }
  }

  mutating func typed(_ left: SideNode, _ op: OperatorNode, _ right: SideNode) throws(QueryError) -> Predicate
  {
    for side in [left, right] {
      if let (_, token) = side.quantifier, !side.expression.isMultiple {
        if case .field(let key) = side.expression {
          throw error(
            .typeMismatch,
            "\(token.text.uppercased()) applies to list fields (string or integer lists); \(QueryParser.describe(key.field))",
            at: token)
        }
        throw error(
          .typeMismatch,
          "\(token.text.uppercased()) applies to lists (a list field or {…}); \(describe(side.expression)) has one value",
          at: token)
      }
    }
    // The form the indexes serve: a field, then a constant.
    if case .field(let key) = left.expression, case .value(let value) = right.expression {
      let isListValue: Bool
      if case .list = value.content { isListValue = true } else { isListValue = false }
      let plain =
        right.quantifier == nil
        && (!isListValue || op.comparisonOperator == .in || op.comparisonOperator == .between)
      if plain {
        return .comparison(try typedComparison(quantifier: left.quantifier, key: key, op: op, value: value))
      }
      if isListValue { return try listLiteral(left, key, op, right, value) }
    }
    // A constant first: the mirrored comparison, field first (`3000 <= stars` is `stars >= 3000`).
    if case .value(let value) = left.expression, left.quantifier == nil, !left.expression.isMultiple,
      !right.expression.isConstant
    {
      if op.comparisonOperator == .in, case .field(let key) = right.expression, right.quantifier == nil {
        // `'swift' IN topics`: ANY topics == 'swift'.
        guard key.field.type.isList else {
          throw error(
            .typeMismatch,
            "a value IN a field needs a list field (a string or integer list); \(QueryParser.describe(key.field)) "
              + "(write \(key.field.name) == … or \(key.field.name) IN {…})",
            column: key.column)
        }
        let equal = OperatorNode(
          comparisonOperator: .equal, token: op.token, options: op.options, optionsColumn: op.optionsColumn)
        return .comparison(
          try typedComparison(quantifier: (.any, op.token), key: key, op: equal, value: value))
      }
      if let mirrored = op.comparisonOperator.mirrored {
        var flipped = op
        flipped.comparisonOperator = mirrored
        return try typed(
          right, flipped, SideNode(quantifier: nil, expression: .value(value), column: left.column))
      }
    }
    // A list literal first, a field of one value second: the mirrored comparison, field first
    // (`{'Go', 'Rust'} == language` is `language == {'Go', 'Rust'}`), which the indexes serve.
    if case .value(let value) = left.expression, case .list = value.content,
      case .field(let key) = right.expression,
      right.quantifier == nil, !key.field.type.isList, let mirrored = op.comparisonOperator.mirrored
    {
      var flipped = op
      flipped.comparisonOperator = mirrored
      return try typed(right, flipped, left)
    }
    let relation = try self.relation(left, op, right)
    if relation.left.expression.isConstant && relation.right.expression.isConstant {
      // Two constants: the answer is known now.
      return .constant(PredicateEvaluator.matches(relation) { _ in .null })
    }
    return .relation(relation)
  }

  /// `field OP {a, b}` with a list literal: ANY by default, or the list's own quantifier.
  private func listLiteral(
    _ left: SideNode, _ key: KeyPathNode, _ op: OperatorNode, _ right: SideNode, _ value: ValueNode
  )
    throws(QueryError) -> Predicate
  {
    let field = key.field
    guard case .list(let items) = value.content else { return .constant(false) }
    if op.comparisonOperator == .between {
      throw error(
        .syntax, "BETWEEN takes {low, high} without ANY, ALL or NONE",
        column: right.quantifier?.1.column ?? value.column)
    }
    try check(op, elementType: field.type.elementType, field: field)
    var converted: [QueryValue] = []
    for item in items {
      converted.append(
        try scalar(
          item, elementType: field.type.elementType, field: field, op: op, allowsNull: !field.type.isList))
    }
    let quantifier = right.quantifier?.0 ?? .any
    let isEquality = op.comparisonOperator == .equal || op.comparisonOperator == .in
    let leftQuantifier = left.quantifier?.0 ?? (field.type.isList ? .any : .single)
    if isEquality && quantifier == .any {
      return .comparison(
        Comparison(
          field: field, quantifier: leftQuantifier, operator: .in, options: op.options,
          value: .list(converted)))
    }
    if !field.type.isList
      && ((isEquality && quantifier == .none) || (op.comparisonOperator == .notEqual && quantifier == .all))
    {
      return .not(
        .comparison(Comparison(field: field, operator: .in, options: op.options, value: .list(converted))))
    }
    return .relation(
      Relation(
        left: Operand(.field(field), quantifier: leftQuantifier), operator: op.comparisonOperator,
        options: op.options, right: Operand(.value(.list(converted)), quantifier: quantifier)))
  }

  /// The general form, type-checked: both sides' kinds agree, the operator suits them, constants
  /// are converted to the other side's kind (dates from ISO text or Unix seconds, bools from 0
  /// and 1).
  private func relation(_ left: SideNode, _ op: OperatorNode, _ right: SideNode) throws(QueryError)
    -> Relation
  {
    let name = op.comparisonOperator.rawValue
    let leftKind = try kind(of: left.expression)
    let rightKind = try kind(of: right.expression)
    if op.comparisonOperator == .in && !right.expression.isMultiple {
      throw error(
        .typeMismatch,
        "IN needs a list on its right (a list field or {…}); found \(describe(right.expression))",
        column: right.column)
    }
    if op.comparisonOperator == .between {
      guard !left.expression.isMultiple else {
        throw error(
          .typeMismatch, "BETWEEN applies to one number or date, not to a list", column: left.column)
      }
      guard case .value(let bounds) = right.expression, case .list(let items) = bounds.content,
        items.count == 2,
        right.quantifier == nil
      else {
        throw error(
          .syntax, "BETWEEN needs a list of two values, as in BETWEEN {low, high}", column: right.column)
      }
    }
    let kind = leftKind ?? rightKind
    if let leftKind, let rightKind, leftKind != rightKind {
      throw error(
        .typeMismatch,
        "\(describe(left.expression)) is a \(leftKind.rawValue) and \(describe(right.expression)) is a "
          + "\(rightKind.rawValue); both sides of \(name) need the same type",
        at: op.token)
    }
    if let kind {
      if op.comparisonOperator.isStringOperator && kind != .string {
        throw error(
          .typeMismatch, "\(name) applies to strings; these sides are \(kind.rawValue)s", at: op.token)
      }
      if kind == .bool && ![.equal, .notEqual, .in].contains(op.comparisonOperator) {
        throw error(.typeMismatch, "\(name) applies to numbers, dates and strings, not bools", at: op.token)
      }
      if op.comparisonOperator == .between && kind != .number && kind != .date {
        throw error(
          .typeMismatch, "BETWEEN applies to numbers and dates, not \(kind.rawValue)s", at: op.token)
      }
      if !op.options.isEmpty && kind != .string {
        throw error(
          .typeMismatch, "options such as [c] and [d] apply to strings, not \(kind.rawValue)s",
          column: op.optionsColumn)
      }
    }
    let allowsNull = op.comparisonOperator != .between
    let leftExpression = try expression(left.expression, kind: kind, allowsNull: allowsNull)
    let rightExpression = try expression(right.expression, kind: kind, allowsNull: allowsNull)
    return Relation(
      left: Operand(leftExpression, quantifier: left.quantifier?.0 ?? .single),
      operator: op.comparisonOperator,
      options: op.options, right: Operand(rightExpression, quantifier: right.quantifier?.0 ?? .single))
  }

  /// The kind of an expression's values; nil for a nil constant (or a list of nils).
  private func kind(of node: ExpressionNode) throws(QueryError) -> ValueKind? {
    switch node {
    case .field(let key): return ValueKind(key.field.type)
    case .element(let key, _): return ValueKind(key.field.type)
    case .count: return .number
    case .arithmetic(let op, let a, let b, let token):
      for operand in [a, b] {
        if operand.isMultiple {
          throw error(
            .typeMismatch, "\(op.rawValue) needs one number on each side; \(describe(operand)) is a list",
            at: token)
        }
        let operandKind = try kind(of: operand)
        guard operandKind == .number else {
          throw error(
            .typeMismatch,
            "\(op.rawValue) needs numbers; \(describe(operand)) is \(operandKind.map { "a " + $0.rawValue } ?? "nil")",
            at: token)
        }
      }
      return .number
    case .value(let value):
      switch value.content {
      case .oversizedInteger: return .number
      case .scalar(let scalar): return ValueKind(scalar)
      case .list(let items):
        for item in items {
          if case .scalar(let scalar) = item.content, let found = ValueKind(scalar) { return found }
          if case .oversizedInteger = item.content { return .number }
        }
        return nil
      }
    }
  }

  private func expression(_ node: ExpressionNode, kind: ValueKind?, allowsNull: Bool) throws(QueryError)
    -> QueryExpression
  {
    switch node {
    case .field(let key): return .field(key.field)
    case .count(let key): return .count(key.field)
    case .element(let key, let index): return .element(key.field, index)
    case .arithmetic(let op, let a, let b, _):
      return .arithmetic(
        op, try expression(a, kind: .number, allowsNull: false),
        try expression(b, kind: .number, allowsNull: false))
    case .value(let value):
      return .value(try constant(value, kind: kind, allowsNull: allowsNull))
    }
  }

  /// A constant converted to `kind` (the other side's).
  private func constant(_ node: ValueNode, kind: ValueKind?, allowsNull: Bool) throws(QueryError)
    -> QueryValue
  {
    let mismatch: QueryError.Kind = node.isArgument ? .argument : .typeMismatch
    switch node.content {
    case .list(let items):
      var converted: [QueryValue] = []
      for item in items {
        if case .list = item.content {
          throw error(node.isArgument ? .argument : .syntax, "lists cannot be nested", column: item.column)
        }
        converted.append(try constant(item, kind: kind, allowsNull: allowsNull))
      }
      return .list(converted)
    case .oversizedInteger:
      throw error(mismatch, "\(node.label) does not fit in a 64-bit integer", column: node.column)
    case .scalar(let value):
      switch (kind, value) {
      case (_, .null):
        guard allowsNull else {
          throw error(
            mismatch, "nil has no place here: arithmetic and BETWEEN need values", column: node.column)
        }
        return .null
      case (.number?, .integer), (.string?, .string), (.bool?, .bool), (.date?, .date), (nil, _):
        return value
      case (.number?, .double(let number)):
        guard number.isFinite else {
          throw error(mismatch, "\(node.label) is not a finite number", column: node.column)
        }
        return value
      case (.date?, .integer(let seconds)):
        return .date(Timestamp(secondsSince1970: seconds))
      case (.date?, .string(let text)):
        guard let date = Timestamp(iso8601: text) else {
          throw error(
            mismatch, "\(node.label) is not a date; write 2021-01-31T10:20:30Z", column: node.column)
        }
        return .date(date)
      case (.bool?, .integer(let number)) where number == 0 || number == 1:
        return .bool(number == 1)
      case (let kind?, _):
        throw error(
          mismatch, "\(node.label) is \(QueryParser.noun(value)); the other side is a \(kind.rawValue)",
          column: node.column)
      }
    }
  }

  /// How a message names an expression.
  private func describe(_ node: ExpressionNode) -> String {
    switch node {
    case .field(let key): return key.field.name
    case .count(let key): return key.field.name + ".@count"
    case .element(let key, _): return key.field.name + "[…]"
    case .arithmetic(let op, _, _, _): return "the \(op.rawValue) expression"
    case .value(let value): return value.label
    }
  }
}

extension QueryParser.ValueKind {
  init?(_ value: QueryValue) {
    switch value {
    case .null, .list: return nil
    case .string: self = .string
    case .integer, .double: self = .number
    case .date: self = .date
    case .bool: self = .bool
    }
  }
}

extension QueryParser.ExpressionNode {
  /// Whether it yields several values: a list field or a list literal.
  var isMultiple: Bool {
    switch self {
    case .field(let key): key.field.type.isList
    case .value(let value):
      if case .list = value.content { true } else { false }
    default: false
    }
  }

  /// Whether it reads no field.
  var isConstant: Bool {
    switch self {
    case .value: true
    case .arithmetic(_, let a, let b, _): a.isConstant && b.isConstant
    default: false
    }
  }
}

extension ComparisonOperator {
  /// The operator with its sides swapped (`a < b` is `b > a`), for those that have one.
  var mirrored: ComparisonOperator? {
    switch self {
    case .equal, .notEqual: self
    case .less: .greater
    case .lessOrEqual: .greaterOrEqual
    case .greater: .less
    case .greaterOrEqual: .lessOrEqual
    default: nil
    }
  }
}
