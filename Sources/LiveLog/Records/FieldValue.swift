/// The value of one field of a record, as the engine stores, indexes and compares it.
public enum FieldValue: Hashable, Sendable {
  /// Absent: the key was missing or `null` in JSON, `nil` in Swift.
  case null
  case bool(Bool)
  case integer(Int64)
  case double(Double)
  case date(Timestamp)
  case string(String)
  case strings([String])
  case integers([Int64])

  /// Whether this is `.null`.
  public var isNull: Bool {
    if case .null = self { return true }
    return false
  }

  /// Whether the value may be stored in a field of `type` (`null` fits every field). The
  /// record codec's check says the same of its tags (`RecordCodec.Tag.fits`).
  public func fits(_ type: FieldType) -> Bool {
    switch (self, type) {
    case (.null, _), (.bool, .bool), (.integer, .integer), (.double, .double), (.date, .date),
      (.string, .string), (.strings, .stringList), (.integers, .integerList):
      true
    default: false
    }
  }

  /// The value's type in words, for messages: "a string", "nil".
  var typeDescription: String {
    switch self {
    case .null: "nil"
    case .bool: "a bool"
    case .integer: "an integer"
    case .double: "a double"
    case .date: "a date"
    case .string: "a string"
    case .strings: "a string list"
    case .integers: "an integer list"
    }
  }
}

extension FieldValue {
  /// The string, or `nil` for another value.
  public var stringValue: String? {
    if case .string(let text) = self { return text }
    return nil
  }

  /// The integer, or `nil` for another value.
  public var integerValue: Int64? {
    if case .integer(let number) = self { return number }
    return nil
  }

  /// The number as a double (integers too), or `nil` for another value.
  public var doubleValue: Double? {
    switch self {
    case .double(let number): number
    case .integer(let number): Double(number)
    default: nil
    }
  }

  /// The flag, or `nil` for another value.
  public var boolValue: Bool? {
    if case .bool(let flag) = self { return flag }
    return nil
  }

  /// The date, or `nil` for another value.
  public var dateValue: Timestamp? {
    if case .date(let date) = self { return date }
    return nil
  }

  /// The list of strings, or `nil` for another value.
  public var stringsValue: [String]? {
    if case .strings(let list) = self { return list }
    return nil
  }

  /// The list of integers, or `nil` for another value.
  public var integersValue: [Int64]? {
    if case .integers(let list) = self { return list }
    return nil
  }
}
