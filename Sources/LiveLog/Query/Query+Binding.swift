extension Query {
  /// The query with every field as `schema` holds it now (its indexes may have changed since the
  /// query was built), or a `QueryError` for a field the collection does not hold: a query built
  /// for another collection, or for a field a migration retired.
  func bound(to schema: CollectionSchema) throws(QueryError) -> Query {
    func resolve(_ field: Field) throws(QueryError) -> Field {
      guard let stored = schema.field(named: field.name), stored.type == field.type else {
        throw QueryError(
          kind: .unknownField,
          message: "\(schema.name) has no \(field.type) field '\(field.name)'; "
            + QueryParser.unknownFieldMessage(field.name, in: schema))
      }
      return stored
    }
    func bind(_ predicate: Predicate) throws(QueryError) -> Predicate {
      switch predicate {
      case .constant: return predicate
      case .not(let inner): return .not(try bind(inner))
      case .and(let parts):
        var bound: [Predicate] = []
        for part in parts { bound.append(try bind(part)) }
        return .and(bound)
      case .or(let parts):
        var bound: [Predicate] = []
        for part in parts { bound.append(try bind(part)) }
        return .or(bound)
      case .comparison(var comparison):
        comparison.field = try resolve(comparison.field)
        return .comparison(comparison)
      }
    }
    var query = self
    query.predicate = try bind(predicate)
    var sort: [SortDescriptor] = []
    for descriptor in self.sort {
      let field = try resolve(descriptor.field)
      guard !field.type.isList else {
        throw QueryError(
          kind: .typeMismatch,
          message: "\(QueryParser.describe(field)); a sort needs a field with one value per record")
      }
      sort.append(SortDescriptor(field: field, ascending: descriptor.ascending))
    }
    query.sort = sort
    return query
  }
}
