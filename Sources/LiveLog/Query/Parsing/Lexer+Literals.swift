/// The literals whose reading takes more than a glance: quoted strings and dates.
extension Lexer {
  /// A string in single or double quotes, with `\'`, `\"`, `\\`, `\n`, `\t`, `\r` and `\uXXXX`
  /// escapes (UTF-16 surrogate pairs combine into one scalar).
  mutating func string() throws(QueryError) -> String {
    let opening = index
    let quote = scalars[index]
    index += 1
    var value = String.UnicodeScalarView()
    while true {
      guard index < scalars.count else {
        throw error(
          "unterminated string: the quote at column \(columns[opening]) is never closed", at: opening)
      }
      let scalar = scalars[index]
      if scalar == quote {
        index += 1
        return String(value)
      }
      guard scalar == "\\" else {
        value.append(scalar)
        index += 1
        continue
      }
      value.append(try escape(opening: opening))
    }
  }

  /// The escape at `index` (a backslash), moving past it.
  private mutating func escape(opening: Int) throws(QueryError) -> Unicode.Scalar {
    let backslash = index
    guard let letter = peek(1) else {
      throw error(
        "unterminated string: the quote at column \(columns[opening]) is never closed", at: opening)
    }
    index += 2
    switch letter {
    case "'", "\"", "\\": return letter
    case "n": return "\n"
    case "t": return "\t"
    case "r": return "\r"
    case "u":
      let first = try hexQuad(backslash: backslash)
      if (0xD800...0xDBFF).contains(first) {
        // A UTF-16 high surrogate only means something with the low surrogate after it.
        guard peek(0) == "\\", peek(1) == "u" else { throw unpairedSurrogate(at: backslash) }
        let lowBackslash = index
        index += 2
        let second = try hexQuad(backslash: lowBackslash)
        guard (0xDC00...0xDFFF).contains(second) else { throw unpairedSurrogate(at: backslash) }
        let combined = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
        guard let scalar = Unicode.Scalar(combined) else { throw unpairedSurrogate(at: backslash) }
        return scalar
      }
      guard let scalar = Unicode.Scalar(first) else { throw unpairedSurrogate(at: backslash) }
      return scalar
    default:
      throw error(
        "invalid escape '\\\(letter)' in a string; use \\', \\\", \\\\, \\n, \\t, \\r or \\uXXXX",
        at: backslash)
    }
  }

  /// The four hexadecimal digits after `\u`.
  private mutating func hexQuad(backslash: Int) throws(QueryError) -> UInt32 {
    var value: UInt32 = 0
    for _ in 0..<4 {
      guard let scalar = peek(0), let digit = Lexer.hexValue(scalar) else {
        throw error("invalid escape: \\u needs four hexadecimal digits, as in \\u00E9", at: backslash)
      }
      value = value * 16 + digit
      index += 1
    }
    return value
  }

  private func unpairedSurrogate(at backslash: Int) -> QueryError {
    error("invalid escape: a UTF-16 surrogate needs its pair, as in \\uD83D\\uDE00", at: backslash)
  }

  private static func hexValue(_ scalar: Unicode.Scalar) -> UInt32? {
    switch scalar {
    case "0"..."9": scalar.value - 0x30
    case "a"..."f": scalar.value - 0x61 + 10
    case "A"..."F": scalar.value - 0x41 + 10
    default: nil
    }
  }

  // MARK: - Dates

  /// Whether a date literal (`YYYY-MM-DD`) starts at `index`.
  func isDateAhead() -> Bool {
    matches("DDDD-DD-DD", at: index) && !(peek(10).map(Lexer.isDigit) ?? false)
  }

  /// A date: `YYYY-MM-DD` (midnight UTC), Realm's `YYYY-MM-DD@HH:MM:SS[:NANOSECONDS]` (UTC), or
  /// ISO 8601 `YYYY-MM-DDTHH:MM:SS[.fraction][Z|±HH:MM]` (UTC when no zone is given), to the
  /// nanosecond: Realm's `:505` is 505 nanoseconds, ISO's `.505` is 505 milliseconds.
  mutating func date() throws(QueryError) -> Timestamp {
    let start = index
    var iso = text(index..<index + 10)
    index += 10
    var nanoseconds: Int64 = 0
    if let separator = peek(0), separator == "@" || separator == "T" || separator == "t",
      matches("DD:DD:DD", at: index + 1)
    {
      let isRealm = separator == "@"
      iso += "T" + text(index + 1..<index + 9)
      index += 9
      if let mark = peek(0), mark == "." || (isRealm && mark == ":"), let digit = peek(1),
        Lexer.isDigit(digit)
      {
        index += 1
        let digits = index
        skipDigits()
        if mark == "." {
          iso += "." + text(digits..<index)
        } else {
          let count = text(digits..<index)
          guard count.count <= 9, let value = Int64(count) else {
            throw error("a date's nanoseconds '\(count.prefix(20))' are more than 999999999", at: digits)
          }
          nanoseconds = value
        }
      }
      iso += isRealm ? "Z" : try zone()
    }
    if let next = peek(0), Lexer.isIdentifierContinue(next) || ".:@-+".unicodeScalars.contains(next) {
      while let more = peek(0), !more.properties.isWhitespace, !"(){},[]".unicodeScalars.contains(more) {
        index += 1
      }
      throw error(
        "invalid date '\(ControlEscaping.excerpt(text(start..<index)))'; write 2021-01-31, 2021-01-31@10:20:30 or 2021-01-31T10:20:30Z",
        at: start)
    }
    guard let timestamp = Timestamp(iso8601: iso) else {
      throw error(
        "invalid date '\(ControlEscaping.excerpt(text(start..<index)))': no such day or time, or outside years 0001 to 9999",
        at: start
      )
    }
    return Timestamp(
      secondsSince1970: timestamp.secondsSince1970, nanoseconds: timestamp.nanoseconds + Int32(nanoseconds))
  }

  /// The zone of an ISO 8601 time: `Z`, `±HH:MM`, `±HHMM`, or nothing (UTC).
  private mutating func zone() throws(QueryError) -> String {
    switch peek(0) {
    case "Z", "z":
      index += 1
      return "Z"
    case "+", "-":
      let start = index
      if matches("DD:DD", at: index + 1) {
        index += 6
      } else if matches("DDDD", at: index + 1) {
        index += 5
      } else {
        throw error("invalid time zone in a date; write Z, +02:00 or -0530", at: start)
      }
      return text(start..<index)
    default:
      return "Z"
    }
  }

  /// Whether the scalars at `position` follow `pattern`, where `D` is a digit and everything else
  /// matches itself.
  private func matches(_ pattern: String, at position: Int) -> Bool {
    var offset = position
    for expected in pattern.unicodeScalars {
      guard offset < scalars.count else { return false }
      let scalar = scalars[offset]
      guard expected == "D" ? Lexer.isDigit(scalar) : scalar == expected else { return false }
      offset += 1
    }
    return true
  }
}
