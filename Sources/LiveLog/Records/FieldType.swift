/// The type of a field: what its values are and which operators apply to it.
///
/// The raw values are the names of the JSON schema format (`livelog collection create`).
public enum FieldType: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
  /// A whole number, 64 bits.
  case integer
  /// A floating-point number, 64 bits.
  case double
  case string
  case bool
  /// A moment, to the nanosecond (see `Timestamp`).
  case date
  /// A list of strings, such as `topics`: queried with `ANY`, `ALL`, `NONE`.
  case stringList = "string_list"
  /// A list of whole numbers.
  case integerList = "integer_list"

  /// The type in words, for messages: "string list".
  public var description: String {
    switch self {
    case .stringList: "string list"
    case .integerList: "integer list"
    default: rawValue
    }
  }

  /// Whether values are lists, whose comparisons are quantified.
  public var isList: Bool { self == .stringList || self == .integerList }

  /// The type of a list's elements; the type itself for scalars.
  public var elementType: FieldType {
    switch self {
    case .stringList: .string
    case .integerList: .integer
    default: self
    }
  }

  /// The indexes a field of this type may have: substring for strings; equality for every type
  /// but `double` (equal doubles are rare, and `0.1 + 0.2` is not `0.3`); ordered for numbers and
  /// dates.
  public var allowedIndexes: IndexKinds {
    switch self {
    case .string: [.substring, .equality]
    case .bool, .stringList, .integerList: .equality
    case .integer, .date: [.equality, .ordered]
    case .double: .ordered
    }
  }
}

/// The indexes the engine keeps for a field.
public struct IndexKinds: OptionSet, Sendable, Hashable, CustomStringConvertible {
  public let rawValue: UInt8
  public init(rawValue: UInt8) { self.rawValue = rawValue }

  /// Trigrams of the case- and diacritic-folded text: serves `CONTAINS`, `BEGINSWITH`,
  /// `ENDSWITH`, `LIKE` and `==`.
  public static let substring = IndexKinds(rawValue: 1)
  /// Exact values (and their folded forms): serves `==`, `IN` and `BEGINSWITH`.
  public static let equality = IndexKinds(rawValue: 2)
  /// Values in order: serves `<`, `<=`, `>`, `>=`, `BETWEEN`, `==` and sorting.
  public static let ordered = IndexKinds(rawValue: 4)

  /// Each kind with its name in the JSON schema format, in a fixed order.
  static let named: [(IndexKinds, String)] = [
    (.substring, "substring"), (.equality, "equality"), (.ordered, "ordered"),
  ]

  /// The kinds' names: `["substring", "equality"]`.
  public var names: [String] { IndexKinds.named.filter { contains($0.0) }.map(\.1) }

  /// The kind called `name`, or `nil`.
  public init?(named name: String) {
    guard let kind = IndexKinds.named.first(where: { $0.1 == name })?.0 else { return nil }
    self = kind
  }

  public var description: String { names.isEmpty ? "none" : names.joined(separator: " and ") }
}
