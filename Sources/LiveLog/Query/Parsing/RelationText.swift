extension Relation {
  /// The relation in the query language: `forks_count > stargazers_count`,
  /// `ANY {'a', 'b'} IN topics`, `(stargazers_count + forks_count) / 2 > 10`.
  public var text: String {
    left.text + " " + self.operator.rawValue + options.queryText + " " + right.text
  }
}

extension Operand {
  /// The operand with its quantifier, when it has several values.
  var text: String {
    quantifier.queryPrefix + expression.text
  }
}

extension QueryExpression {
  /// The expression in the query language, parenthesized only where precedence needs it.
  var text: String {
    switch self {
    case .field(let field): return field.name
    case .value(let value): return value.queryText
    case .count(let field): return field.name + ".@count"
    case .element(let field, let index):
      switch index {
      case .first: return field.name + "[FIRST]"
      case .last: return field.name + "[LAST]"
      case .position(let n): return field.name + "[\(n)]"
      }
    case .arithmetic(let op, let a, let b):
      // Left-associative: a right operand of the same precedence needs parentheses.
      let leftText = a.binds(looserThan: op, onRight: false) ? "(" + a.text + ")" : a.text
      let rightText = b.binds(looserThan: op, onRight: true) ? "(" + b.text + ")" : b.text
      return leftText + " " + op.rawValue + " " + rightText
    }
  }

  private func binds(looserThan parent: ArithmeticOperator, onRight: Bool) -> Bool {
    guard case .arithmetic(let op, _, _) = self else {
      // A negative constant after an operator reads as a sign: `a - -1` is fine, but keep it clear.
      if onRight, case .value(let value) = self, value.queryText.hasPrefix("-") { return true }
      return false
    }
    if parent.isMultiplicative && !op.isMultiplicative { return true }
    return onRight && parent.isMultiplicative == op.isMultiplicative
  }
}
