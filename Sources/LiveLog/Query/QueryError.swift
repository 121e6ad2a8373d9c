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
    let line = query.replacingTabsAndNewlines
    let caret = String(repeating: " ", count: max(0, column - 1)) + "^"
    return "\(message) (column \(column))\n  \(line)\n  \(caret)"
  }
}

extension String {
  /// One line with the same columns: tabs and newlines become spaces.
  fileprivate var replacingTabsAndNewlines: String {
    String(map { $0 == "\t" || $0.isNewline ? " " : $0 })
  }
}
