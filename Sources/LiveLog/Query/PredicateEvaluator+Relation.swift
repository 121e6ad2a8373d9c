/// The meaning of relations (`Relation`): expressions on both sides, quantified lists, Realm's
/// rules for nil.
///
/// - `==` / `!=`: nil equals only nil.
/// - `<`, `>`: false when either side is nil; `<=`, `>=`: true when both are nil, false when one is.
/// - `CONTAINS`, `BEGINSWITH`, `ENDSWITH`: true when the right side is nil (whatever the left),
///   false when only the left is; `LIKE`: with nil on either side, true when both are nil.
/// - Arithmetic with nil, a division by zero, or a fraction of an integer that does not fit,
///   gives nil; integers add, subtract and multiply exactly (a result past 64 bits becomes a
///   double), and `/` always gives a double.
extension PredicateEvaluator {
  /// The values an expression yields for one record: one, or several (a list).
  enum Values {
    case one(FieldValue)
    case many([FieldValue])
  }

  static func matches(_ relation: Relation, _ value: (Field) -> FieldValue) -> Bool {
    let left = values(relation.left.expression, value)
    if relation.operator == .between {
      guard case .value(.list(let bounds)) = relation.right.expression, bounds.count == 2 else {
        return false
      }
      let low = FieldValue(bounds[0])
      let high = FieldValue(bounds[1])
      return quantify(relation.left.quantifier, left) { x in
        holds(x, .greaterOrEqual, relation.options, low) && holds(x, .lessOrEqual, relation.options, high)
      }
    }
    let right = values(relation.right.expression, value)
    let op: ComparisonOperator = relation.operator == .in ? .equal : relation.operator
    return quantify(relation.left.quantifier, left) { x in
      quantify(relation.right.quantifier, right) { y in holds(x, op, relation.options, y) }
    }
  }

  private static func quantify(_ quantifier: Quantifier, _ values: Values, _ body: (FieldValue) -> Bool)
    -> Bool
  {
    switch values {
    case .one(let value): return body(value)
    case .many(let items):
      switch quantifier {
      case .any, .single: return items.contains(where: body)
      case .all: return items.allSatisfy(body)
      case .none: return !items.contains(where: body)
      }
    }
  }

  static func values(_ expression: QueryExpression, _ value: (Field) -> FieldValue) -> Values {
    switch expression {
    case .field(let field):
      let stored = value(field)
      switch stored {
      case .strings(let list): return .many(list.map(FieldValue.string))
      case .integers(let list): return .many(list.map(FieldValue.integer))
      case .null where field.type.isList: return .many([])
      default: return .one(stored)
      }
    case .value(.list(let items)): return .many(items.map(FieldValue.init))
    case .value(let constant): return .one(FieldValue(constant))
    case .count, .element, .arithmetic: return .one(scalar(expression, value))
    }
  }

  /// The single value of a scalar expression.
  static func scalar(_ expression: QueryExpression, _ value: (Field) -> FieldValue) -> FieldValue {
    switch expression {
    case .field(let field): return value(field)
    case .value(let constant): return FieldValue(constant)
    case .count(let field):
      switch value(field) {
      case .strings(let list): return .integer(Int64(list.count))
      case .integers(let list): return .integer(Int64(list.count))
      case .string(let text): return .integer(Int64(text.utf8.count))
      case .null: return field.type.isList ? .integer(0) : .null
      default: return .null
      }
    case .element(let field, let index):
      let elements: [FieldValue]
      switch value(field) {
      case .strings(let list): elements = list.map(FieldValue.string)
      case .integers(let list): elements = list.map(FieldValue.integer)
      default: return .null
      }
      switch index {
      case .first: return elements.first ?? .null
      case .last: return elements.last ?? .null
      case .position(let n): return n >= 0 && n < elements.count ? elements[Int(n)] : .null
      }
    case .arithmetic(let op, let a, let b):
      return arithmetic(op, scalar(a, value), scalar(b, value))
    }
  }

  static func arithmetic(_ op: ArithmeticOperator, _ a: FieldValue, _ b: FieldValue) -> FieldValue {
    if case .integer(let x) = a, case .integer(let y) = b, op != .divide {
      let (result, overflow) =
        switch op {
        case .add: x.addingReportingOverflow(y)
        case .subtract: x.subtractingReportingOverflow(y)
        default: x.multipliedReportingOverflow(by: y)
        }
      if !overflow { return .integer(result) }
    }
    guard let x = a.number, let y = b.number else { return .null }
    switch op {
    case .add: return .double(x + y)
    case .subtract: return .double(x - y)
    case .multiply: return .double(x * y)
    case .divide: return y == 0 ? .null : .double(x / y)
    }
  }

  /// One value against another under an operator (`IN` already turned into `==`).
  static func holds(_ x: FieldValue, _ op: ComparisonOperator, _ options: StringOptions, _ y: FieldValue)
    -> Bool
  {
    switch op {
    case .equal, .in: return equals(x, QueryValue(y), options)
    case .notEqual: return !equals(x, QueryValue(y), options)
    case .less, .greater, .lessOrEqual, .greaterOrEqual:
      if x.isNull || y.isNull { return x.isNull && y.isNull && (op == .lessOrEqual || op == .greaterOrEqual) }
      guard let sign = order(x, QueryValue(y), options) else { return false }
      switch op {
      case .less: return sign < 0
      case .lessOrEqual: return sign <= 0
      case .greater: return sign > 0
      default: return sign >= 0
      }
    case .contains, .beginsWith, .endsWith, .like:
      return matchesText(x, op, options, QueryValue(y))
    case .between:
      return false
    }
  }
}

extension FieldValue {
  /// A constant of the query as a value (lists as their elements' kind cannot be: `.null`).
  init(_ value: QueryValue) {
    switch value {
    case .null, .list: self = .null
    case .bool(let flag): self = .bool(flag)
    case .integer(let number): self = .integer(number)
    case .double(let number): self = .double(number)
    case .string(let text): self = .string(text)
    case .date(let date): self = .date(date)
    }
  }

  /// An integer or a double, as a double.
  var number: Double? {
    switch self {
    case .integer(let value): Double(value)
    case .double(let value): value
    default: nil
    }
  }
}

extension QueryValue {
  /// A scalar value as a constant of the query (lists, which a scalar never is, as nil).
  init(_ value: FieldValue) {
    switch value {
    case .null, .strings, .integers: self = .null
    case .bool(let flag): self = .bool(flag)
    case .integer(let number): self = .integer(number)
    case .double(let number): self = .double(number)
    case .string(let text): self = .string(text)
    case .date(let date): self = .date(date)
    }
  }
}
