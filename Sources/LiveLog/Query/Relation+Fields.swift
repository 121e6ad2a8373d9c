extension Relation {
  /// Every field the relation reads, each once.
  var fields: [Field] {
    var found: [Field] = []
    left.expression.collectFields(into: &found)
    right.expression.collectFields(into: &found)
    var seen: Set<Int> = []
    return found.filter { seen.insert($0.position).inserted }
  }
}

extension QueryExpression {
  func collectFields(into found: inout [Field]) {
    switch self {
    case .field(let field), .count(let field), .element(let field, _): found.append(field)
    case .value: break
    case .arithmetic(_, let a, let b):
      a.collectFields(into: &found)
      b.collectFields(into: &found)
    }
  }

  /// The expression with each field replaced by `resolve`'s answer.
  func mapFields<E: Error>(_ resolve: (Field) throws(E) -> Field) throws(E) -> QueryExpression {
    switch self {
    case .field(let field): return .field(try resolve(field))
    case .count(let field): return .count(try resolve(field))
    case .element(let field, let index): return .element(try resolve(field), index)
    case .value: return self
    case .arithmetic(let op, let a, let b):
      return .arithmetic(op, try a.mapFields(resolve), try b.mapFields(resolve))
    }
  }
}
