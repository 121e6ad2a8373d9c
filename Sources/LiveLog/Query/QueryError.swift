/// A query that cannot run, with the place in its text and what to do about it.
///
/// `description` shows the query with a caret under the place:
/// ```
/// expected a value after '==' (column 45)
///   full_name CONTAINS[c] 'anim' AND language ==
///                                               ^
/// ```
public struct QueryError: Error, Hashable, Sendable, CustomStringConvertible {
  public enum Kind: String, Hashable, Sendable {
    /// The text does not follow the grammar.
    case syntax
    /// A name that is not a field of the record type.
    case unknownField
    /// An operator or value that does not fit the field's type.
    case typeMismatch
    /// A `%@` / `%K` argument that is missing, extra or of the wrong kind.
    case argument
  }

  public var kind: Kind
  public var message: String
  /// The query's text, when it came from text.
  public var query: String?
  /// 1-based column (in characters) where the problem is, when known.
  public var column: Int?

  public init(kind: Kind, message: String, query: String? = nil, column: Int? = nil) {
    self.kind = kind
    self.message = message
    self.query = query
    self.column = column
  }

  public var description: String {
    guard let query, let column else { return message }
    let (line, caret) = QueryError.window(of: query, around: column)
    return "\(message) (column \(column))\n  \(line)\n  \(String(repeating: " ", count: caret))^"
  }

  /// The part of `query` around `column` shown under a message: all of a query of up to 100
  /// characters, else 40 characters on each side of the column (a 100 KB query is not echoed
  /// whole); on one line (tabs and newlines as spaces, other control characters escaped); and
  /// the caret's offset in it.
  static func window(of query: String, around column: Int) -> (line: String, caret: Int) {
    let characters = Array(query)
    let place = max(0, min(column - 1, characters.count))
    let whole = characters.count <= 100
    let start = whole ? 0 : max(0, place - 40)
    let end = whole ? characters.count : min(characters.count, place + 40)
    var line = start > 0 ? "…" : ""
    var caret = line.count
    for index in start..<end {
      let character = characters[index]
      let shown =
        character == "\t" || character.isNewline
        ? " " : ControlEscaping.escaped(String(character))
      if index < place { caret += shown.count }
      line += shown
    }
    if end < characters.count { line += "…" }
    return (line, caret)
  }
}
