/// A comparison of two expressions, for the forms a single `Comparison` cannot hold: a field
/// against a field (`forks_count > stargazers_count`), arithmetic (`stars + forks > 100`),
/// collection operators (`topics.@count > 2`, `topics[FIRST] == 'ios'`), a constant tested by a
/// string operator (`'swift.org' CONTAINS name`) and list literals quantified with `ALL` or
/// `NONE` (`stars > ALL {10, 20}`, `ANY {'a', 'b'} IN topics`).
///
/// When a side yields several values (a list field, a list literal) its quantifier says how they
/// combine: `Q1 x in left: Q2 y in right: x OP y`, `ANY` when none is written.
public struct Relation: Hashable, Sendable {
  public var left: Operand
  public var `operator`: ComparisonOperator
  public var options: StringOptions
  public var right: Operand

  public init(left: Operand, operator: ComparisonOperator, options: StringOptions = [], right: Operand) {
    self.left = left
    self.operator = `operator`
    self.options = options
    self.right = right
    // BETWEEN's list is its two bounds, not values to quantify.
    if `operator` == .between { self.right.quantifier = .single }
  }
}

/// One side of a relation: an expression and, when it yields several values, how they combine.
public struct Operand: Hashable, Sendable {
  /// `.any`, `.all` or `.none` for a side with several values; `.single` for one value.
  public var quantifier: Quantifier
  public var expression: QueryExpression

  public init(_ expression: QueryExpression, quantifier: Quantifier = .single) {
    self.expression = expression
    // A list's values combine with ANY unless told otherwise; one spelling keeps equal
    // relations equal.
    self.quantifier = quantifier == .single && expression.isMultiple ? .any : quantifier
  }
}

/// A value computed from a record.
public indirect enum QueryExpression: Hashable, Sendable {
  /// A field's value; for a list field, its elements.
  case field(Field)
  /// A constant; `.list` for a list literal `{…}` (its elements are the values).
  case value(QueryValue)
  /// `@count`, `@size`, `.length` or `[SIZE]`: the number of elements of a list (0 for an
  /// absent list), the number of UTF-8 bytes of a string (nil for an absent one).
  case count(Field)
  /// `list[FIRST]`, `list[LAST]`, `list[n]`: one element, nil when there is none.
  case element(Field, ElementIndex)
  /// `a + b`, `a - b`, `a * b`, `a / b` on numbers.
  case arithmetic(ArithmeticOperator, QueryExpression, QueryExpression)

  /// Whether the expression yields several values: a list field or a list literal.
  public var isMultiple: Bool {
    switch self {
    case .field(let field): field.type.isList
    case .value(.list): true
    default: false
    }
  }

  /// Whether the expression reads no field.
  var isConstant: Bool {
    switch self {
    case .value: true
    case .arithmetic(_, let a, let b): a.isConstant && b.isConstant
    default: false
    }
  }
}

/// Which element of a list a subscript names.
public enum ElementIndex: Hashable, Sendable {
  case first
  case last
  /// 0-based.
  case position(Int64)
}

/// The operators of arithmetic in comparisons.
public enum ArithmeticOperator: String, Hashable, Sendable, CaseIterable {
  case add = "+"
  case subtract = "-"
  case multiply = "*"
  case divide = "/"

  /// Whether it binds tighter than `+` and `-`.
  var isMultiplicative: Bool { self == .multiply || self == .divide }
}
