/// The value of one field of a record, as the engine stores, indexes and compares it.
public enum FieldValue: Hashable, Sendable {
  /// Absent: the key was missing or `null` in the API response.
  case null
  case bool(Bool)
  case integer(Int64)
  case date(Timestamp)
  case string(String)
  case strings([String])

  /// Whether this is `.null`.
  public var isNull: Bool {
    if case .null = self { return true }
    return false
  }
}

/// The type of a field: what its values are and which operators apply to it.
public enum FieldType: String, Sendable, Hashable, CustomStringConvertible {
  case integer
  case string
  case bool
  case date
  /// A list of strings, such as `topics`: queried with `ANY`.
  case stringList = "string list"

  public var description: String { rawValue }
}

/// The indexes the engine keeps for a field.
public struct IndexKinds: OptionSet, Sendable, Hashable {
  public let rawValue: UInt8
  public init(rawValue: UInt8) { self.rawValue = rawValue }

  /// Trigrams of the case- and diacritic-folded text: serves `CONTAINS`, `BEGINSWITH`,
  /// `ENDSWITH`, `LIKE` and `==`.
  public static let substring = IndexKinds(rawValue: 1)
  /// Exact values (and their folded forms): serves `==`, `!=` and `IN`.
  public static let equality = IndexKinds(rawValue: 2)
  /// Values in order: serves `<`, `<=`, `>`, `>=`, `BETWEEN`, `==` and sorting.
  public static let ordered = IndexKinds(rawValue: 4)
}

/// One field of a record type: its query name, type and indexes.
public struct Field: Sendable, Hashable, CustomStringConvertible {
  /// Position of the field in its schema and in the stored encoding.
  public let position: Int
  /// The API's own key; dotted for nested objects (`owner.login`).
  public let name: String
  public let type: FieldType
  public let indexes: IndexKinds

  public var description: String { name }
}

/// The fields of a record type, in the order they are stored.
///
/// The engine works from a schema, not from a record type's properties, so that indexes, the
/// query language and the codec need no code of their own for a new record type.
public struct Schema: Sendable {
  public let fields: [Field]
  private let positions: [String: Int]

  init(_ declarations: [(String, FieldType, IndexKinds)]) {
    fields = declarations.enumerated().map { position, declaration in
      Field(position: position, name: declaration.0, type: declaration.1, indexes: declaration.2)
    }
    positions = Dictionary(uniqueKeysWithValues: fields.map { ($0.name, $0.position) })
  }

  /// The field called `name`, or `nil`.
  public func field(named name: String) -> Field? {
    positions[name].map { fields[$0] }
  }
}
