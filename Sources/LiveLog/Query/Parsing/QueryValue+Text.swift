/// Query arguments from text, for callers outside Swift (the command line's `--arg` and
/// `--arg-json`).
extension QueryValue {
  /// A value from JSON: `null`, `true`, a number (an integer when it is one that fits in 64
  /// bits), a string, or an array of these for `IN`, `BETWEEN` and list comparisons.
  public init(json text: String) throws(QueryError) {
    let value: JSONValue
    do {
      value = try JSONParser.parse(Array(text.utf8))
    } catch {
      throw QueryError(
        kind: .argument, message: "the JSON argument \(text.prefix(40)) is invalid: \(error.message)")
    }
    self = try QueryValue.converting(value, text)
  }

  private static func converting(_ value: JSONValue, _ text: String) throws(QueryError) -> QueryValue {
    switch value {
    case .null: return .null
    case .bool(let flag): return .bool(flag)
    case .string(let string): return .string(string)
    case .number(let number):
      if let integer = number.integer { return .integer(integer) }
      guard let double = Double(number.literal), double.isFinite else {
        throw QueryError(
          kind: .argument, message: "the JSON number \(number.literal.prefix(40)) is out of range")
      }
      return .double(double)
    case .array(let elements):
      var items: [QueryValue] = []
      for element in elements {
        if case .array = element.value {
          throw QueryError(
            kind: .argument, message: "the JSON argument \(text.prefix(40)) nests lists; give one list")
        }
        items.append(try converting(element.value, text))
      }
      return .list(items)
    case .object:
      throw QueryError(
        kind: .argument, message: "the JSON argument \(text.prefix(40)) is an object; give a value or a list")
    }
  }

  /// A value as typed on a command line: a whole number, a decimal number, `true` / `false`, or
  /// else the text itself (a string, or a field name for `%K`). `QueryValue(json:)` gives a
  /// string that looks like a number (`"\"42\""`), nil and lists.
  public init(commandLine text: String) {
    if let integer = Int64(text) {
      self = .integer(integer)
    } else if text.contains(where: \.isNumber), let double = Double(text), double.isFinite {
      self = .double(double)
    } else if text == "true" || text == "false" {
      self = .bool(text == "true")
    } else {
      self = .string(text)
    }
  }
}
