/// Building queries in Swift, in the spirit of Realm's `where`:
///
/// ```swift
/// let query = Query
///   .where(Repository.self) { $0.fullName.contains(term, options: .caseInsensitive) && $0.language == language }
///   .sorted(by: \Repository.stargazersCount, ascending: false)
///   .limit(10)
/// ```
/// The result equals the parsed text form, `Query(parsing: "full_name CONTAINS[c] %@ AND
/// language == %@ SORT(stargazers_count DESC) LIMIT(10)", for: Repository.self, term, language)`.
extension Query {
  /// A query of the records of type `R` that meet the condition, unsorted and unlimited.
  public static func `where`<R: Record>(_ type: R.Type, _ build: (RecordFields<R>) -> QueryCondition) -> Query
  {
    Query(predicate: build(RecordFields()).predicate)
  }

  /// This query narrowed by a condition on the fields of `R`: its predicate AND the condition.
  public func `where`<R: Record>(_ type: R.Type, _ build: (RecordFields<R>) -> QueryCondition) -> Query {
    var query = self
    query.predicate = predicate.narrowed(by: build(RecordFields()).predicate)
    return query
  }

  /// This query narrowed by a condition in the query language over the fields of `schema`: its
  /// predicate AND the parsed one.
  ///
  /// The text may end in `SORT(…)`, `DISTINCT(…)` and `LIMIT(…)` clauses too: they apply after
  /// this query's clauses.
  public func filter(_ text: String, schema: CollectionSchema, arguments: [any QueryArgument])
    throws(QueryError)
    -> Query
  {
    let parsed = try Query(parsing: text, for: schema, arguments: arguments)
    var query = self
    query.predicate = predicate.narrowed(by: parsed.predicate)
    query.clauses += parsed.clauses
    return query
  }

  /// This query also sorted by the field named `field` of `schema` (a query name such as
  /// `stargazers_count`), after its existing sort keys. Throws `.unknownField` for a name not in
  /// the schema and `.typeMismatch` for a list, which has no single value to sort by.
  public func sorted(by field: String, in schema: CollectionSchema, ascending: Bool = true) throws(QueryError)
    -> Query
  {
    guard let resolved = schema.field(named: field) else {
      throw QueryError(kind: .unknownField, message: QueryParser.unknownFieldMessage(field, in: schema))
    }
    guard !resolved.type.isList else {
      throw QueryError(
        kind: .typeMismatch,
        message: "\(QueryParser.describe(resolved)); a sort needs a field with one value per record")
    }
    return appendingSortKey(SortDescriptor(field: resolved, ascending: ascending))
  }

  /// This query also sorted by a record type's property, after its existing sort keys:
  /// `.sorted(by: \Repository.stargazersCount, ascending: false)`.
  public func sorted<R: Record, V: FieldValueConvertible>(by keyPath: KeyPath<R, V>, ascending: Bool = true)
    -> Query
  {
    appendingSortKey(SortDescriptor(field: RecordFields<R>.field(keyPath), ascending: ascending))
  }

  /// This query with at most `count` results (of those its clauses left); a negative count
  /// means none.
  public func limit(_ count: Int) -> Query {
    var query = self
    query.clauses.append(.limit(max(0, count)))
    return query
  }

  /// The key added to the last clause when it is a sort (as a tie-breaker of its keys), or as a
  /// new sort after the last clause.
  func appendingSortKey(_ key: SortDescriptor) -> Query {
    var query = self
    if case .sort(let keys)? = query.clauses.last {
      query.clauses[query.clauses.count - 1] = .sort(keys + [key])
    } else {
      query.clauses.append(.sort([key]))
    }
    return query
  }
}
