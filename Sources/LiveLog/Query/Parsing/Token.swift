/// One token of query text, with the place it starts.
struct Token: Sendable {
  enum Kind: Equatable, Sendable {
    /// A name: a keyword or a key path; key paths keep their dots (`owner.login`).
    case identifier(String)
    /// A quoted string, escapes resolved.
    case string(String)
    /// A whole number; `nil` when it does not fit in `Int64` (the text is in `Token.text`), which
    /// only some fields reject, so the lexer cannot decide.
    case integer(Int64?)
    /// A number with a fraction or an exponent.
    case decimal(Double)
    /// A date literal: `2021-01-01`, `2021-01-01@10:20:30`, `2021-01-01T10:20:30Z`.
    case date(Timestamp)
    /// `%@`.
    case valuePlaceholder
    /// `%K`.
    case keyPathPlaceholder
    /// `.@count`, `.@size` after a key path: the word after `@`.
    case collectionOperator(String)
    case symbol(Symbol)
    case end
  }

  /// Punctuation and operators, each with the spelling messages use.
  enum Symbol: String, Sendable {
    case leftParenthesis = "("
    case rightParenthesis = ")"
    case leftBrace = "{"
    case rightBrace = "}"
    case leftBracket = "["
    case rightBracket = "]"
    case comma = ","
    case equal = "=="
    case notEqual = "!="
    case less = "<"
    case lessOrEqual = "<="
    case greater = ">"
    case greaterOrEqual = ">="
    case and = "&&"
    case or = "||"
    case not = "!"
    case plus = "+"
    case minus = "-"
    case star = "*"
    case slash = "/"
  }

  var kind: Kind
  /// 1-based column, in Characters, of the token's first character.
  var column: Int
  /// The token as written, for messages.
  var text: String

  var isEnd: Bool { kind == .end }

  /// Whether the token is the keyword `word` (given in upper case), in any case.
  func isKeyword(_ word: String) -> Bool {
    guard case .identifier(let name) = kind else { return false }
    return name.utf8.count == word.utf8.count
      && zip(name.utf8, word.utf8).allSatisfy { Token.asciiUppercase($0) == $1 }
  }

  /// The keyword this token spells among `words` (upper case), if any.
  func keyword(among words: [String]) -> String? {
    words.first { isKeyword($0) }
  }

  /// ASCII-only upper-casing: Unicode case mapping would turn `ın` into the keyword `IN`.
  private static func asciiUppercase(_ byte: UInt8) -> UInt8 {
    byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z") ? byte - 32 : byte
  }

  /// The words that cannot name a field.
  static let reservedWords: Set<String> = [
    "AND", "OR", "NOT", "TRUEPREDICATE", "FALSEPREDICATE", "ANY", "SOME", "ALL", "NONE", "BETWEEN", "IN",
    "CONTAINS", "BEGINSWITH", "ENDSWITH", "LIKE", "TRUE", "YES", "FALSE", "NO", "NIL", "NULL",
  ]

  /// Whether the token can end an operand, so that a `+` or `-` after it is arithmetic, not the
  /// sign of a number: `stars -5` is `stars - 5`.
  var endsOperand: Bool {
    switch kind {
    case .identifier: !isReservedWord || keyword(among: ["TRUE", "YES", "FALSE", "NO", "NIL", "NULL"]) != nil
    case .string, .integer, .decimal, .date, .valuePlaceholder, .keyPathPlaceholder, .collectionOperator: true
    case .symbol(let symbol): symbol == .rightParenthesis || symbol == .rightBracket || symbol == .rightBrace
    case .end: false
    }
  }

  /// Whether the token is an identifier that is a reserved word.
  var isReservedWord: Bool {
    guard case .identifier(let name) = kind, name.utf8.count <= 14 else { return false }
    return Token.reservedWords.contains { isKeyword($0) }
  }

  /// The token quoted for a message.
  var quoted: String { "'\(shortText)'" }

  /// The token as written, shortened so that a 100 KB string does not fill the screen, its
  /// control characters escaped.
  var shortText: String { ControlEscaping.excerpt(text) }
}
