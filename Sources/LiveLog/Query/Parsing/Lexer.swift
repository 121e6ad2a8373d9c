/// Splits query text into tokens.
///
/// Works on Unicode scalars rather than Characters: a quote followed by a combining mark is one
/// Character, and reading Characters would lose the quote. Columns are still reported in
/// Characters, the unit a user counts in and `QueryError.description` draws its caret in.
struct Lexer {
  // Not private: the literal readers in Lexer+Literals.swift work on the same scalars.
  let query: String
  let scalars: [Unicode.Scalar]
  /// `columns[i]`: the 1-based Character column of scalar `i`; one extra entry for the end.
  let columns: [Int]
  var index = 0
  private var tokens: [Token] = []

  /// The tokens of `text`, ending with an `.end` token.
  static func tokens(of text: String) throws(QueryError) -> [Token] {
    var lexer = Lexer(text)
    try lexer.run()
    return lexer.tokens
  }

  private init(_ text: String) {
    query = text
    var scalars: [Unicode.Scalar] = []
    var columns: [Int] = []
    scalars.reserveCapacity(text.utf8.count)
    columns.reserveCapacity(text.utf8.count + 1)
    var column = 1
    for character in text {
      for scalar in character.unicodeScalars {
        scalars.append(scalar)
        columns.append(column)
      }
      column += 1
    }
    columns.append(column)
    self.scalars = scalars
    self.columns = columns
  }

  private mutating func run() throws(QueryError) {
    while true {
      while index < scalars.count && scalars[index].properties.isWhitespace { index += 1 }
      guard index < scalars.count else {
        tokens.append(Token(kind: .end, column: columns[index], text: ""))
        return
      }
      let start = index
      let kind = try nextKind()
      tokens.append(Token(kind: kind, column: columns[start], text: text(start..<index)))
    }
  }

  /// Reads one token at `index` and moves past it.
  private mutating func nextKind() throws(QueryError) -> Token.Kind {
    let scalar = scalars[index]
    switch scalar {
    case "(": return symbol(.leftParenthesis, length: 1)
    case ")": return symbol(.rightParenthesis, length: 1)
    case "{": return symbol(.leftBrace, length: 1)
    case "}": return symbol(.rightBrace, length: 1)
    case "[": return symbol(.leftBracket, length: 1)
    case "]": return symbol(.rightBracket, length: 1)
    case ",": return symbol(.comma, length: 1)
    case "=":
      switch peek(1) {
      case "=": return symbol(.equal, length: 2)
      case "<": return symbol(.lessOrEqual, length: 2)
      case ">": return symbol(.greaterOrEqual, length: 2)
      default: return symbol(.equal, length: 1)
      }
    case "!": return peek(1) == "=" ? symbol(.notEqual, length: 2) : symbol(.not, length: 1)
    case "<":
      switch peek(1) {
      case "=": return symbol(.lessOrEqual, length: 2)
      case ">": return symbol(.notEqual, length: 2)
      default: return symbol(.less, length: 1)
      }
    case ">": return peek(1) == "=" ? symbol(.greaterOrEqual, length: 2) : symbol(.greater, length: 1)
    case "&", "|":
      guard peek(1) == scalar else {
        throw error(
          "unexpected character '\(scalar)'; use \(scalar)\(scalar) or \(scalar == "&" ? "AND" : "OR")")
      }
      return symbol(scalar == "&" ? .and : .or, length: 2)
    case "'", "\"": return .string(try string())
    case "%": return try placeholder()
    case "0"..."9":
      if isDateAhead() { return .date(try date()) }
      return try number()
    case "-", "+":
      // A sign, unless an operand comes before: then arithmetic (`stars -5` is `stars - 5`).
      let isSign = !(tokens.last?.endsOperand ?? false) && startsDigits(at: index + 1)
      if isSign { return try number() }
      return symbol(scalar == "-" ? .minus : .plus, length: 1)
    case "*": return symbol(.star, length: 1)
    case "/": return symbol(.slash, length: 1)
    case ".":
      if peek(1) == "@" { return try collectionOperator() }
      if let next = peek(1), Lexer.isDigit(next) { return try number() }
      throw error("unexpected character '.'; a collection operator is written .@count or .@size")
    default:
      guard Lexer.isIdentifierStart(scalar) else {
        throw error("unexpected character \(Lexer.describe(scalar))")
      }
      if scalar == "B", peek(1) == "6", peek(2) == "4", peek(3) == "\"" { return .string(try base64()) }
      if scalar == "T" || scalar == "t", let timestamp = try secondsTimestamp() { return .date(timestamp) }
      return .identifier(try identifier())
    }
  }

  /// Whether digits start at `position`, or a `.` and digits (`-.5`).
  private func startsDigits(at position: Int) -> Bool {
    guard position < scalars.count else { return false }
    if Lexer.isDigit(scalars[position]) { return true }
    return scalars[position] == "." && position + 1 < scalars.count && Lexer.isDigit(scalars[position + 1])
  }

  /// `.@count`, `.@size` (any word after the `@`; the parser says which it knows).
  private mutating func collectionOperator() throws(QueryError) -> Token.Kind {
    let start = index
    index += 2
    guard let first = peek(0), Lexer.isIdentifierStart(first) else {
      throw error("expected a collection operator such as .@count after '.@'", at: start)
    }
    let wordStart = index
    while let next = peek(0), Lexer.isIdentifierContinue(next) { index += 1 }
    return .collectionOperator(text(wordStart..<index))
  }

  // MARK: - Tokens

  private mutating func symbol(_ symbol: Token.Symbol, length: Int) -> Token.Kind {
    index += length
    return .symbol(symbol)
  }

  private mutating func placeholder() throws(QueryError) -> Token.Kind {
    switch peek(1) {
    case "@":
      index += 2
      return .valuePlaceholder
    case "K":
      index += 2
      return .keyPathPlaceholder
    case let next?:
      throw error("unknown placeholder '%\(next)'; use %@ for a value or %K for a field name")
    case nil:
      throw error("'%' must be followed by @ (a value) or K (a field name)")
    }
  }

  /// A key path: names joined by dots (`owner.login`).
  private mutating func identifier() throws(QueryError) -> String {
    let start = index
    while true {
      index += 1
      while index < scalars.count && Lexer.isIdentifierContinue(scalars[index]) { index += 1 }
      guard index < scalars.count && scalars[index] == "." else { break }
      // `topics.@count`: the key path ends before the collection operator.
      if peek(1) == "@" { break }
      guard let next = peek(1), Lexer.isIdentifierStart(next) else {
        throw error("expected a field name after '.'")
      }
      index += 1
    }
    return text(start..<index)
  }

  /// A number: `42`, `-7`, `0x3E8`, `1.5`, `10.`, `-.5`, `2e10`. Letters right after it are an
  /// error (`5abc`), unless they spell a keyword, which Realm's lexer reads apart (`5AND`).
  private mutating func number() throws(QueryError) -> Token.Kind {
    let start = index
    if scalars[index] == "-" || scalars[index] == "+" { index += 1 }
    if peek(0) == "0", peek(1) == "x" || peek(1) == "X", let digit = peek(2), Lexer.hexValue(digit) != nil {
      return try hexNumber(start: start)
    }
    skipDigits()
    var isDecimal = false
    if peek(0) == "." {
      if let next = peek(1), Lexer.isDigit(next) {
        isDecimal = true
        index += 1
        skipDigits()
      } else if !(peek(1).map { Lexer.isIdentifierStart($0) || $0 == "." || $0 == "@" } ?? false) {
        // `10.`: a decimal with nothing after its point.
        isDecimal = true
        index += 1
      }
    }
    if peek(0) == "e" || peek(0) == "E" {
      var exponent = index + 1
      if exponent < scalars.count && (scalars[exponent] == "+" || scalars[exponent] == "-") { exponent += 1 }
      if exponent < scalars.count && Lexer.isDigit(scalars[exponent]) {
        isDecimal = true
        index = exponent
        skipDigits()
      }
    }
    try checkNumberEnd(start: start)
    var written = text(start..<index)
    if written.hasSuffix(".") { written.removeLast() }
    // Int64 and Double parse a leading `+` too; dropping it keeps that independent of the stdlib.
    var digits = written.hasPrefix("+") ? String(written.dropFirst()) : written
    if digits.hasPrefix("-.") {
      digits = "-0" + digits.dropFirst()
    } else if digits.hasPrefix(".") {
      digits = "0" + digits
    }
    guard isDecimal else { return .integer(Int64(digits)) }
    guard let value = Double(digits), value.isFinite else {
      throw error("number '\(ControlEscaping.excerpt(text(start..<index)))' is out of range", at: start)
    }
    return .decimal(value)
  }

  /// `0x3E8`, after an optional sign; the caller has seen `0x` and a hexadecimal digit.
  private mutating func hexNumber(start: Int) throws(QueryError) -> Token.Kind {
    let negative = scalars[start] == "-"
    index += 2
    var magnitude: UInt64 = 0
    var overflow = false
    while let scalar = peek(0), let digit = Lexer.hexValue(scalar) {
      let (shifted, o1) = magnitude.multipliedReportingOverflow(by: 16)
      let (sum, o2) = shifted.addingReportingOverflow(UInt64(digit))
      overflow = overflow || o1 || o2
      magnitude = sum
      index += 1
    }
    try checkNumberEnd(start: start)
    if overflow { return .integer(nil) }
    if negative {
      return .integer(magnitude <= UInt64(Int64.max) + 1 ? Int64(truncatingIfNeeded: 0 &- magnitude) : nil)
    }
    return .integer(magnitude <= UInt64(Int64.max) ? Int64(magnitude) : nil)
  }

  /// Refuses letters glued to a number, but for a keyword, which ends the number.
  private mutating func checkNumberEnd(start: Int) throws(QueryError) {
    guard let next = peek(0), Lexer.isIdentifierContinue(next) || next == "." else { return }
    var end = index
    while end < scalars.count, Lexer.isIdentifierContinue(scalars[end]) { end += 1 }
    let word = Token(kind: .identifier(text(index..<end)), column: 0, text: "")
    if end > index,
      word.isReservedWord || word.keyword(among: ["SORT", "LIMIT", "DISTINCT", "ASC", "DESC"]) != nil
    {
      return
    }
    index += 1
    while let more = peek(0), Lexer.isIdentifierContinue(more) || more == "." { index += 1 }
    throw error("invalid number '\(ControlEscaping.excerpt(text(start..<index)))'", at: start)
  }

  mutating func skipDigits() {
    while index < scalars.count && Lexer.isDigit(scalars[index]) { index += 1 }
  }

  // MARK: - Helpers

  func peek(_ offset: Int) -> Unicode.Scalar? {
    index + offset < scalars.count ? scalars[index + offset] : nil
  }

  func text(_ range: Range<Int>) -> String {
    var view = String.UnicodeScalarView()
    view.append(contentsOf: scalars[range])
    return String(view)
  }

  /// A syntax error at scalar `position` (the current one by default).
  func error(_ message: String, at position: Int? = nil) -> QueryError {
    QueryError(kind: .syntax, message: message, query: query, column: columns[position ?? index])
  }

  static func hexValue(_ scalar: Unicode.Scalar) -> UInt32? {
    switch scalar {
    case "0"..."9": scalar.value - 0x30
    case "a"..."f": scalar.value - 0x61 + 10
    case "A"..."F": scalar.value - 0x41 + 10
    default: nil
    }
  }

  static func isDigit(_ scalar: Unicode.Scalar) -> Bool {
    scalar.value >= 0x30 && scalar.value <= 0x39
  }

  static func isIdentifierStart(_ scalar: Unicode.Scalar) -> Bool {
    scalar == "_" || scalar.properties.isAlphabetic
  }

  static func isIdentifierContinue(_ scalar: Unicode.Scalar) -> Bool {
    if isIdentifierStart(scalar) || isDigit(scalar) { return true }
    switch scalar.properties.generalCategory {
    case .nonspacingMark, .spacingMark, .enclosingMark, .decimalNumber: return true
    default: return false
    }
  }

  /// A scalar for a message: itself when printable, its code point otherwise.
  static func describe(_ scalar: Unicode.Scalar) -> String {
    if scalar.properties.isWhitespace || scalar.value < 0x20 || scalar.value == 0x7F
      || scalar.properties.generalCategory == .format || scalar.properties.generalCategory == .nonspacingMark
    {
      return "U+" + hex(scalar.value)
    }
    return "'\(scalar)'"
  }

  static func hex(_ value: UInt32) -> String {
    let digits = String(value, radix: 16, uppercase: true)
    return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
  }
}
