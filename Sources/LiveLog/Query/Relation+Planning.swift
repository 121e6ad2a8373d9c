extension Relation {
  /// The two fields and the operator of a comparison of one scalar field with another
  /// (`forks_count > watchers_count`), which the ordered columns may answer and the per-row check
  /// compares without a list of values; nil for any other relation.
  var fieldComparison: (left: Field, operator: ComparisonOperator, right: Field)? {
    guard case .field(let a) = left.expression, case .field(let b) = right.expression,
      left.quantifier == .single, right.quantifier == .single, !a.type.isList, !b.type.isList
    else { return nil }
    switch self.operator {
    case .equal, .notEqual, .less, .lessOrEqual, .greater, .greaterOrEqual: return (a, self.operator, b)
    default: return nil
    }
  }

  /// Why no index serves the relation, for `explain`.
  var scanReason: String {
    let sides = [left.expression, right.expression]
    let fieldCount = sides.reduce(0) { $0 + $1.fieldCount }
    if sides.contains(where: \.hasArithmetic) { return "arithmetic is computed for every row" }
    if sides.contains(where: \.hasCount) { return "@count / @size is computed for every row" }
    if sides.contains(where: \.hasElement) { return "a list subscript is read for every row" }
    if fieldCount > 1 { return "a comparison of two fields is checked for every row" }
    if left.quantifier == .all || left.quantifier == .none || right.quantifier == .all
      || right.quantifier == .none
    {
      return "ALL / NONE is answered by checking every row"
    }
    return "\(self.operator.rawValue) with a constant on the left is checked for every row"
  }
}

extension QueryExpression {
  fileprivate var fieldCount: Int {
    var fields: [Field] = []
    collectFields(into: &fields)
    return fields.count
  }

  fileprivate var hasArithmetic: Bool {
    if case .arithmetic = self { return true }
    return false
  }

  fileprivate var hasCount: Bool {
    switch self {
    case .count: true
    case .arithmetic(_, let a, let b): a.hasCount || b.hasCount
    default: false
    }
  }

  fileprivate var hasElement: Bool {
    switch self {
    case .element: true
    case .arithmetic(_, let a, let b): a.hasElement || b.hasElement
    default: false
    }
  }
}
