public import Foundation

/// The value of a record's primary key, as the engine stores it: an integer or a string.
///
/// A Swift `UUID` key is stored as its string (upper-case, as `uuidString` writes it).
public enum PrimaryKey: Hashable, Sendable, Comparable, CustomStringConvertible {
  case integer(Int64)
  case string(String)

  /// The key as a field value.
  public var fieldValue: FieldValue {
    switch self {
    case .integer(let number): .integer(number)
    case .string(let text): .string(text)
    }
  }

  /// The key held by a field value, or `nil` for another kind of value.
  public init?(_ value: FieldValue) {
    switch value {
    case .integer(let number): self = .integer(number)
    case .string(let text): self = .string(text)
    default: return nil
    }
  }

  /// The type of field that holds such keys.
  var fieldType: FieldType {
    switch self {
    case .integer: .integer
    case .string: .string
    }
  }

  public var description: String {
    switch self {
    case .integer(let number): String(number)
    case .string(let text): text
    }
  }

  /// The longest string key, in UTF-8 bytes: keys go into LMDB keys, which hold at most 511.
  public static let maximumStringBytes = 480

  /// Keys are equal when their bytes are, as in the keys table: `"é"` and `"e\u{301}"`, one
  /// string to Swift's `==`, are two keys (as two values are: `FieldValue`'s `==`).
  public static func == (lhs: PrimaryKey, rhs: PrimaryKey) -> Bool { lhs.fieldValue == rhs.fieldValue }

  public func hash(into hasher: inout Hasher) { hasher.combine(fieldValue) }

  public static func < (lhs: PrimaryKey, rhs: PrimaryKey) -> Bool {
    switch (lhs, rhs) {
    case (.integer(let a), .integer(let b)): a < b
    case (.string(let a), .string(let b)): Array(a.utf8).lexicographicallyPrecedes(b.utf8)
    case (.integer, .string): true
    case (.string, .integer): false
    }
  }
}

/// A Swift type that can be a record's primary key (its `id`): `Int64`, `Int`, `String`, `UUID`.
public protocol PrimaryKeyValue: FieldValueConvertible, Hashable {
  /// The key as the engine stores it.
  var primaryKey: PrimaryKey { get }
  /// The value of a stored key, or `nil` when it does not fit this type.
  init?(primaryKey: PrimaryKey)
  /// The values of stored keys, in order, or `nil` when one does not fit this type. A
  /// requirement, so that `Results.ids()` converts a whole result through the concrete type's
  /// code, not key by key through generic code.
  static func values(ofPrimaryKeys keys: [PrimaryKey]) -> [Self]?
}

extension PrimaryKeyValue {
  public static func values(ofPrimaryKeys keys: [PrimaryKey]) -> [Self]? {
    var values: [Self] = []
    values.reserveCapacity(keys.count)
    for key in keys {
      guard let value = Self(primaryKey: key) else { return nil }
      values.append(value)
    }
    return values
  }
}

extension Int64: PrimaryKeyValue {
  public var primaryKey: PrimaryKey { .integer(self) }
  public init?(primaryKey: PrimaryKey) {
    guard case .integer(let number) = primaryKey else { return nil }
    self = number
  }
}

extension Int: PrimaryKeyValue {
  public var primaryKey: PrimaryKey { .integer(Int64(self)) }
  public init?(primaryKey: PrimaryKey) {
    guard case .integer(let number) = primaryKey, let value = Int(exactly: number) else { return nil }
    self = value
  }
}

extension String: PrimaryKeyValue {
  public var primaryKey: PrimaryKey { .string(self) }
  public init?(primaryKey: PrimaryKey) {
    guard case .string(let text) = primaryKey else { return nil }
    self = text
  }
}

extension UUID: PrimaryKeyValue {
  public var primaryKey: PrimaryKey { .string(uuidString) }
  public init?(primaryKey: PrimaryKey) {
    guard case .string(let text) = primaryKey, let uuid = UUID(uuidString: text) else { return nil }
    self = uuid
  }
}
