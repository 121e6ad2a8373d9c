extension Store {
  /// Every record of type `R`, to be narrowed with `filter`, `where`, `sorted` and `limit`. The
  /// type's collection is opened first (created, or evolved to its declaration).
  public func objects<R: Record>(_ type: R.Type) throws -> Results<R> {
    let binding = try self.binding(for: type)
    let schema = try read { _, state in binding.schema(in: state) }
    return Results(
      store: self, collection: binding.name, schema: schema, query: Query(), decoding: .typed(binding))
  }

  /// Every record of the collection `name`, as field values.
  public func objects(in name: String) throws -> Results<RecordValues> {
    let schema = try read { _, state -> CollectionSchema? in state.collection(named: name)?.schema }
    guard let schema else {
      throw StoreError.unknownCollection(name: name, known: try collections().map(\.name))
    }
    return Results(store: self, collection: name, schema: schema, query: Query(), decoding: .values)
  }

  /// The results of `query` over the records of type `R`, run now; as of `lsn` when given (see
  /// `Results.asOf(_:)`).
  public func results<R: Record>(_ type: R.Type, _ query: Query, asOf lsn: UInt64? = nil) throws -> Results<R>
  {
    let binding = try self.binding(for: type)
    let (schema, evaluation) = try self.evaluation(of: query, in: binding.name, asOf: lsn)
    return Results(
      store: self, collection: binding.name, schema: binding.schema(stored: schema), query: query, asOf: lsn,
      decoding: .typed(binding), evaluation: evaluation)
  }

  /// What `query` finds in the collection `name` now or as of `lsn`, and the collection's schema
  /// now (`nil` when the store does not hold it), in one read (as `objects` and then `evaluate`
  /// would give them in two). Not generic, so that it runs specialized whatever module asks.
  func evaluation(of query: Query, in name: String, asOf lsn: UInt64?) throws
    -> (schema: CollectionSchema?, evaluation: ResultsEvaluation)
  {
    try readState { read in
      (
        read.catalog.collection(named: name)?.schema,
        try ResultsEvaluation.run(query, of: name, asOf: lsn, read)
      )
    }
  }

  /// The results of `query` over the collection `name`, run now.
  public func results(in name: String, _ query: Query, asOf lsn: UInt64? = nil) throws -> Results<
    RecordValues
  > {
    let all = try objects(in: name)
    return try (lsn.map { all.with(query).asOf($0) } ?? all.with(query)).evaluate()
  }

  /// How the store answers `query` over the collection `name`: the plan's steps with estimated
  /// and actual candidates.
  public func explain(_ query: Query, in name: String) throws -> QueryExplanation {
    try read { txn, state in
      guard let collection = state.collection(named: name) else {
        throw StoreError.unknownCollection(name: name, known: state.all.map(\.name))
      }
      var run = QueryRun(collection: collection, txn: txn, explaining: true)
      let rows = try run.rows(for: query)
      return QueryExplanation(query: query, steps: run.steps, checked: run.checked, results: rows.count)
    }
  }
}

/// The plan of a query and what running it took.
public struct QueryExplanation: Sendable, Hashable {
  public var query: Query
  /// The plan, depth first.
  public var steps: [PlanStep]
  /// Records read to check candidates (0 when the indexes answered exactly).
  public var checked: Int
  /// Rows in the result.
  public var results: Int

  /// Whether any index served the query.
  public var usesIndex: Bool {
    steps.contains { $0.description.contains("index") && $0.skipped == nil }
  }
}

extension Results {
  /// These results narrowed by a predicate in the query language, with `%@` values and `%K`
  /// field names taken from `arguments`, as in Realm:
  /// `store.objects(Repository.self).filter("full_name CONTAINS[c] %@ AND language = %@", term, "Swift")`.
  public func filter(_ text: String, _ arguments: any QueryArgument...) throws(QueryError) -> Results {
    with(try query.filter(text, schema: schema, arguments: arguments))
  }

  /// `filter(_:_:)` with the arguments as an array.
  public func filter(_ text: String, arguments: [any QueryArgument]) throws(QueryError) -> Results {
    with(try query.filter(text, schema: schema, arguments: arguments))
  }

  /// These results sorted by a field named as in queries (`stargazers_count`), after any
  /// earlier sort keys; ties keep insertion order.
  public func sorted(by field: String, ascending: Bool = true) throws(QueryError) -> Results {
    with(try query.sorted(by: field, in: schema, ascending: ascending))
  }

  /// At most the first `count` results.
  public func limit(_ count: Int) -> Results {
    with(query.limit(count))
  }
}

extension Results where Element: Record {
  /// These results narrowed by a condition the compiler checks, on the record type's properties:
  /// `.where { $0.fullName.contains(term, options: .caseInsensitive) && $0.language == "Swift" }`.
  public func `where`(_ build: (RecordFields<Element>) -> QueryCondition) -> Results {
    with(query.where(Element.self, build))
  }

  /// These results sorted by a property: `.sorted(by: \.stargazersCount, ascending: false)`.
  public func sorted<V: FieldValueConvertible>(by keyPath: KeyPath<Element, V>, ascending: Bool = true)
    -> Results
  {
    with(query.sorted(by: keyPath, ascending: ascending))
  }
}
