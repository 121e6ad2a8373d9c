extension Query {
  /// How deeply a predicate may nest when it runs. The evaluators, the planner and binding recurse
  /// on the predicate's nesting (never on the length of an AND or OR, which are flat); the parser
  /// stops at `QueryParser.maximumDepth`, and this bounds predicates built by hand.
  static let maximumRunDepth = 1_000

  /// The query with every field as `schema` holds it now (its indexes may have changed since the
  /// query was built), or a `QueryError` for a field the collection does not hold: a query built
  /// for another collection, or for a field a migration retired.
  func bound(to schema: CollectionSchema) throws(QueryError) -> Query {
    guard predicate.nestingDepth <= Query.maximumRunDepth else {
      throw QueryError(
        kind: .syntax,
        message:
          "the predicate nests more than \(Query.maximumRunDepth) levels deep; flatten its ANDs and ORs")
    }
    func resolve(_ field: Field) throws(QueryError) -> Field {
      // A field parsed against this schema sits at its slot's index, unless slots were retired.
      guard let stored = schema.field(named: field.name, probablyAt: field.position),
        stored.type == field.type
      else {
        throw QueryError(
          kind: .unknownField,
          message: "\(schema.name) has no \(field.type) field '\(field.name)'; "
            + QueryParser.unknownFieldMessage(field.name, in: schema))
      }
      return stored
    }
    func sortable(_ field: Field) throws(QueryError) -> Field {
      let resolved = try resolve(field)
      guard !resolved.type.isList else {
        throw QueryError(
          kind: .typeMismatch,
          message:
            "\(QueryParser.describe(resolved)); SORT and DISTINCT need a field with one value per record")
      }
      return resolved
    }
    func bind(_ predicate: Predicate) throws(QueryError) -> Predicate {
      switch predicate {
      case .constant: return predicate
      case .not(let inner): return .not(try bind(inner))
      case .and(let parts):
        var bound: [Predicate] = []
        bound.reserveCapacity(parts.count)
        for part in parts { bound.append(try bind(part)) }
        return .and(bound)
      case .or(let parts):
        var bound: [Predicate] = []
        bound.reserveCapacity(parts.count)
        for part in parts { bound.append(try bind(part)) }
        return .or(bound)
      case .comparison(var comparison):
        comparison.field = try resolve(comparison.field)
        return .comparison(comparison)
      case .relation(var relation):
        relation.left.expression = try relation.left.expression.mapFields(resolve)
        relation.right.expression = try relation.right.expression.mapFields(resolve)
        return .relation(relation)
      }
    }
    var clauses: [QueryClause] = []
    for clause in self.clauses {
      switch clause {
      case .sort(let keys):
        var bound: [SortDescriptor] = []
        for key in keys {
          bound.append(SortDescriptor(field: try sortable(key.field), ascending: key.ascending))
        }
        clauses.append(.sort(bound))
      case .distinct(let fields):
        var bound: [Field] = []
        for field in fields { bound.append(try sortable(field)) }
        clauses.append(.distinct(bound))
      case .limit: clauses.append(clause)
      }
    }
    // Binding keeps every field's name, so the clauses stay as normalized as they were.
    return Query(predicate: try bind(predicate), normalizedClauses: clauses)
  }
}

extension Predicate {
  /// The deepest nesting of NOT, AND and OR, counted without recursion (a predicate built by hand
  /// may nest deeper than the stack allows).
  var nestingDepth: Int {
    switch self {
    case .constant, .comparison, .relation: return 1
    case .not, .and, .or: break
    }
    var deepest = 0
    var stack: [(Predicate, Int)] = [(self, 1)]
    while let (predicate, depth) = stack.popLast() {
      deepest = max(deepest, depth)
      switch predicate {
      case .not(let inner): stack.append((inner, depth + 1))
      case .and(let parts), .or(let parts):
        for part in parts { stack.append((part, depth + 1)) }
      case .constant, .comparison, .relation: break
      }
    }
    return deepest
  }
}
