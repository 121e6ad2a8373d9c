import LiveLog

/// The collection a command works on: `--collection NAME`, or `repositories`, whose schema is
/// `Repository`'s, so that every command keeps its meaning on a store of GitHub repositories.
struct CollectionOption {
  let name: String

  static let help = """
      --collection NAME    the collection to work on (default: repositories)
    """

  init(_ arguments: inout Arguments) throws {
    name = try arguments.value("--collection") ?? Repository.schema.declaration.name
  }

  var isRepositories: Bool { name == Repository.schema.declaration.name }

  /// The collection's schema in `store`; `repositories` has `Repository`'s even before the store
  /// holds any.
  func schema(in store: Store) throws -> CollectionSchema {
    if let schema = try store.schema(of: name) { return schema }
    if isRepositories { return Repository.schema.declaration }
    throw StoreError.unknownCollection(name: name, known: try store.collections().map(\.name))
  }

  /// Every record of the collection, as field values.
  func objects(in store: Store) throws -> Results<RecordValues> {
    if isRepositories { return try store.objects(Repository.self).recordValues }
    return try store.objects(in: name)
  }

  /// How ingested records are read.
  func input(in store: Store) throws -> RecordInput {
    if isRepositories { return RecordInput(Repository.self) }
    return RecordInput(schema: try schema(in: store))
  }

  /// The help of `--arg` and `--arg-json`.
  static let argumentHelp = """
      --arg VALUE               the next %@ (or %K) placeholder's value: a whole or decimal number,
                                true, false, or else text; repeatable, in the placeholders' order
      --arg-json JSON           the same as JSON: "text", 42, null, [1, 2] for IN and lists
    """

  /// The `--arg` and `--arg-json` values, in the order given.
  static func queryArguments(_ arguments: inout Arguments) throws -> [any QueryArgument] {
    try arguments.interleaved(["--arg", "--arg-json"]).map { option -> any QueryArgument in
      option.name == "--arg" ? QueryValue(commandLine: option.value) : try QueryValue(json: option.value)
    }
  }

  /// A query over the collection: the predicate with its placeholders' arguments, then `--sort`
  /// keys and `--limit`.
  func query(
    _ text: String, in store: Store, arguments: [any QueryArgument] = [], sorts: [String], limit: Int?
  ) throws -> Query {
    let schema = try schema(in: store)
    var query = try Query(parsing: text, for: schema, arguments: arguments)
    for sort in sorts {
      let parts = sort.split(separator: ":", maxSplits: 1).map(String.init)
      let direction = parts.count > 1 ? parts[1].lowercased() : "asc"
      guard direction == "asc" || direction == "desc", let field = parts.first else {
        throw UsageError(
          message: "--sort takes FIELD, FIELD:asc or FIELD:desc, not '\(ControlEscaping.excerpt(sort))'")
      }
      query = try query.sorted(by: field, in: schema, ascending: direction == "asc")
    }
    if let limit { query = query.limit(limit) }
    return query
  }
}

/// How commands name a record in text: a repository by its full name, any other record by its
/// key and its first text field. Text from records is escaped (`TerminalSafe`): it is input.
enum RecordText {
  static func title(_ record: RecordValues) -> String { TerminalSafe.escaped(plainTitle(record)) }

  private static func plainTitle(_ record: RecordValues) -> String {
    if case .string(let name) = record["full_name"] { return name }
    let key = record.primaryKey.map(\.description) ?? "?"
    let text = record.schema.fields.first { $0.type == .string && $0 != record.schema.primaryKey }
    if let text, case .string(let value) = record.value(of: text) { return "\(key) \(value)" }
    return key
  }

  /// A value for a table cell.
  static func cell(_ value: FieldValue) -> String { TerminalSafe.escaped(plainCell(value)) }

  private static func plainCell(_ value: FieldValue) -> String {
    switch value {
    case .null: "-"
    case .bool(let flag): flag ? "true" : "false"
    case .integer(let number): grouped(Int(truncatingIfNeeded: number))
    case .double(let number): String(number)
    case .date(let date): date.iso8601
    case .string(let text): text
    case .strings(let list): list.joined(separator: ", ")
    case .integers(let list): list.map(String.init).joined(separator: ", ")
    }
  }

  /// The table of `records`: repositories by full name, language, stars and description; other
  /// collections by their key and first fields. Numbers are aligned right; long text is cut.
  static func table(_ records: [RecordValues], schema: CollectionSchema) -> TextTable {
    let repositoryColumns = ["full_name", "language", "stargazers_count", "description"]
    var fields = repositoryColumns.compactMap(schema.field(named:))
    if fields.count < repositoryColumns.count {
      fields = [schema.primaryKey] + schema.fields.filter { $0 != schema.primaryKey }.prefix(3)
    }
    var table = TextTable(
      // Escaped like every cell, though a checked schema's field names are ASCII identifiers.
      header: fields.map {
        $0.name == "stargazers_count"
          ? "STARS" : TerminalSafe.escaped($0.name.replacingOccurrences(of: "_", with: " ").uppercased())
      },
      rightAligned: Set(fields.indices.filter { [.integer, .double].contains(fields[$0].type) }))
    for record in records {
      table.rows.append(
        fields.map { field in record[field.name].isNull ? "" : String(cell(record[field.name]).prefix(60)) })
    }
    return table
  }
}

extension PrimaryKey {
  /// The key as JSON: a number or a string.
  var json: String {
    switch self {
    case .integer(let number): String(number)
    case .string(let text): jsonString(text)
    }
  }
}
