/// Building queries in Swift, in the spirit of Realm's `where`:
///
/// ```swift
/// let query = Query
///   .where { $0.fullName.contains(term, options: .caseInsensitive) && $0.language == language }
///   .sorted(by: \.stargazersCount, ascending: false)
///   .limit(10)
/// ```
/// The result equals the parsed text form, `Query(parsing: "full_name CONTAINS[c] %@ AND
/// language == %@ SORT(stargazers_count DESC) LIMIT(10)", term, language)`.
extension Query {
  /// A query of the records that meet the condition, unsorted and unlimited.
  public static func `where`(_ build: (RepositoryFields) -> QueryCondition) -> Query {
    Query(predicate: build(.shared).predicate)
  }

  /// This query narrowed by a condition: its predicate AND the condition.
  public func `where`(_ build: (RepositoryFields) -> QueryCondition) -> Query {
    var query = self
    query.predicate = predicate.narrowed(by: build(.shared).predicate)
    return query
  }

  /// This query narrowed by a condition in the query language: its predicate AND the parsed one.
  ///
  /// The text may end in `SORT(…)` and `LIMIT(…)` too: its sort keys come after this query's and
  /// its limit replaces this query's, as `sorted(by:)` and `limit(_:)` would.
  public func filter(_ text: String, _ arguments: any QueryArgument...) throws(QueryError) -> Query {
    try filter(text, arguments: arguments)
  }

  /// `filter(_:_:)` with the arguments as an array.
  public func filter(_ text: String, arguments: [any QueryArgument]) throws(QueryError) -> Query {
    let parsed = try Query(parsing: text, arguments: arguments)
    var query = self
    query.predicate = predicate.narrowed(by: parsed.predicate)
    query.sort += parsed.sort
    if let limit = parsed.limit { query.limit = limit }
    return query
  }

  /// This query also sorted by the field named `field` (an API name such as `stargazers_count`),
  /// after its existing sort keys. Throws `.unknownField` for a name not in the schema and
  /// `.typeMismatch` for `topics`, which has no single value to sort by.
  public func sorted(by field: String, ascending: Bool = true) throws(QueryError) -> Query {
    guard let resolved = Repository.schema.field(named: field) else {
      throw QueryError(kind: .unknownField, message: QueryParser.unknownFieldMessage(field))
    }
    guard resolved.type != .stringList else {
      throw QueryError(
        kind: .typeMismatch,
        message: "\(QueryParser.describe(resolved)); a sort needs a field with one value per record")
    }
    var query = self
    query.sort.append(SortDescriptor(field: resolved, ascending: ascending))
    return query
  }

  /// This query also sorted by a typed field, after its existing sort keys:
  /// `.sorted(by: \.stargazersCount, ascending: false)`.
  public func sorted<F: SortableField>(by keyPath: KeyPath<RepositoryFields, F>, ascending: Bool = true)
    -> Query
  {
    var query = self
    query.sort.append(
      SortDescriptor(field: RepositoryFields.shared[keyPath: keyPath].field, ascending: ascending))
    return query
  }

  /// This query with at most `count` results; a negative count means none.
  public func limit(_ count: Int) -> Query {
    var query = self
    query.limit = max(0, count)
    return query
  }
}
