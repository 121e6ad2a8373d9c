/// Input that cannot be ingested, with the place it was found.
///
/// `description` reads `FILE:LINE:COLUMN: ITEM: field 'NAME': MESSAGE`, leaving out what is not
/// known, e.g. `repos.ndjson:12:31: field 'stargazers_count': expected a whole number, found a string`.
public struct InputError: Error, Sendable, Hashable, CustomStringConvertible {
  /// The file (`-` for standard input).
  public var source: String
  /// 1-based line, when known.
  public var line: Int?
  /// 1-based column in characters, when known.
  public var column: Int?
  /// The item within the file, such as `items[3]` or `[17]`, when the file holds several.
  public var item: String?
  /// The field, as a query would name it (`owner.login`), when the problem is one field.
  public var field: String?
  /// What is wrong, and where it helps, what is expected.
  public var message: String

  public init(
    source: String, line: Int? = nil, column: Int? = nil, item: String? = nil, field: String? = nil,
    message: String
  ) {
    self.source = source
    self.line = line
    self.column = column
    self.item = item
    self.field = field
    self.message = message
  }

  public var description: String {
    var place = ControlEscaping.escaped(source)
    if let line {
      place += ":\(line)"
      if let column { place += ":\(column)" }
    }
    var parts = [place]
    if let item { parts.append(item) }
    if let field { parts.append("field '\(ControlEscaping.excerpt(field))'") }
    parts.append(message)
    return parts.joined(separator: ": ")
  }
}

/// Where a piece of JSON came from, so that an error at a byte offset can name line and column.
struct SourceLocator {
  var source: String
  /// The bytes the offsets refer to.
  var text: UnsafeBufferPointer<UInt8>
  /// Line number of `text`'s first byte (NDJSON parses one line at a time).
  var firstLine: Int
  /// The item being decoded (`items[3]`), if the file holds several.
  var item: String?

  func error(at offset: Int, field: String? = nil, _ message: String) -> InputError {
    let position = TextPosition(offset: offset, in: text, firstLine: firstLine)
    return InputError(
      source: source, line: position.line, column: position.column, item: item, field: field, message: message
    )
  }
}
