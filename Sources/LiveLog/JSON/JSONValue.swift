/// A parsed JSON document, as the GitHub ingest reads it.
///
/// Objects keep their members in document order together with the byte offset of each value, so
/// that an error about a field can name its line and column.
enum JSONValue: Sendable {
  case null
  case bool(Bool)
  case number(JSONNumber)
  case string(String)
  case array([JSONElement])
  case object(JSONObject)

  /// A short name of the value's type, for error messages: "a string", "an array", ...
  var typeDescription: String {
    switch self {
    case .null: "null"
    case .bool: "a boolean"
    case .number(let number): number.integer != nil ? "a whole number" : "a number"
    case .string: "a string"
    case .array: "an array"
    case .object: "an object"
    }
  }
}

/// A JSON number, kept as written so that huge or fractional values can be reported exactly.
struct JSONNumber: Sendable, Hashable {
  /// The literal as it appeared in the input.
  var literal: String
  /// The value when it is a whole number that fits in 64 bits (`1e3` is not: only plain digits).
  var integer: Int64?
}

/// An element of a JSON array with the byte offset where it starts.
struct JSONElement: Sendable {
  var value: JSONValue
  var offset: Int
}

/// A JSON object's members in document order. Keys are unique: the parser rejects duplicates.
struct JSONObject: Sendable {
  struct Member: Sendable {
    var key: String
    var value: JSONValue
    /// Byte offset of the value in the input.
    var offset: Int
  }

  var members: [Member]

  /// The member named `key`, or `nil`. Objects are small: a linear search beats hashing.
  subscript(key: String) -> Member? {
    for member in members where member.key == key { return member }
    return nil
  }
}
