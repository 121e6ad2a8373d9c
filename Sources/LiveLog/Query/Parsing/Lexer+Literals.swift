import Foundation

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
    case "'", "\"", "\\", "/": return letter
    case "b": return "\u{08}"
    case "f": return "\u{0C}"
    case "0": return "\u{00}"
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
        "invalid escape '\\\(letter)' in a string; use \\', \\\", \\\\, \\/, \\b, \\f, \\n, \\r, \\t, \\0 or \\uXXXX",
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

  // MARK: - Dates

  /// Whether a date literal (`YYYY-M-D`, one or two digits for month and day) starts at `index`.
  func isDateAhead() -> Bool {
    guard matches("DDDD-", at: index) else { return false }
    var offset = index + 5
    for part in 0..<2 {
      let digits = digitRun(at: offset)
      guard digits == 1 || digits == 2 else { return false }
      offset += digits
      if part == 0 {
        guard offset < scalars.count, scalars[offset] == "-" else { return false }
        offset += 1
      }
    }
    return true
  }

  /// How many digits start at `position`.
  private func digitRun(at position: Int) -> Int {
    var end = position
    while end < scalars.count, Lexer.isDigit(scalars[end]) { end += 1 }
    return end - position
  }

  /// One to `limit` digits at `index`, zero-padded to two, or nil.
  private mutating func datePart(limit: Int = 2) -> String? {
    let count = digitRun(at: index)
    guard count >= 1, count <= limit else { return nil }
    let digits = text(index..<index + count)
    index += count
    return count == 1 ? "0" + digits : digits
  }

  /// A date: `YYYY-MM-DD` (midnight UTC), Realm's `YYYY-MM-DD@HH:MM:SS[:NANOSECONDS]` or
  /// `YYYY-MM-DDTHH:MM:SS[:NANOSECONDS]` (UTC; month, day and time parts of one or two digits),
  /// or ISO 8601 `YYYY-MM-DDTHH:MM:SS[.fraction][Z|±HH:MM]` (UTC when no zone is given), to the
  /// nanosecond: Realm's `:505` is 505 nanoseconds, ISO's `.505` is 505 milliseconds.
  mutating func date() throws(QueryError) -> Timestamp {
    let start = index
    func invalid() -> QueryError {
      while let more = peek(0), !more.properties.isWhitespace, !"(){},[]".unicodeScalars.contains(more) {
        index += 1
      }
      return error(
        "invalid date '\(ControlEscaping.excerpt(text(start..<index)))'; write 2021-01-31, 2021-01-31@10:20:30 or 2021-01-31T10:20:30Z",
        at: start)
    }
    var iso = text(index..<index + 5)
    index += 5
    guard let month = datePart() else { throw invalid() }
    index += 1
    guard let day = datePart() else { throw invalid() }
    iso += month + "-" + day
    var nanoseconds: Int64 = 0
    if let separator = peek(0), separator == "@" || separator == "T" || separator == "t",
      let next = peek(1), Lexer.isDigit(next)
    {
      let isRealm = separator == "@"
      index += 1
      guard let hour = datePart(), peek(0) == ":" else { throw invalid() }
      index += 1
      guard let minute = datePart(), peek(0) == ":" else { throw invalid() }
      index += 1
      guard let second = datePart() else { throw invalid() }
      iso += "T" + hour + ":" + minute + ":" + second
      var hasNanoseconds = false
      if let mark = peek(0), mark == "." || mark == ":", let digit = peek(1), Lexer.isDigit(digit),
        mark == ":" || !isRealm
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
          hasNanoseconds = true
        }
      }
      iso += isRealm || hasNanoseconds ? "Z" : try zone()
    }
    if let next = peek(0), Lexer.isIdentifierContinue(next) || ".:@-+".unicodeScalars.contains(next) {
      throw invalid()
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

  /// Realm's `T<seconds>:<nanoseconds>` (`T1270000000:500`, `T-5:-100`), or nil when the scalars
  /// at `index` are a name that starts with T. Both parts carry the same sign.
  mutating func secondsTimestamp() throws(QueryError) -> Timestamp? {
    var offset = index + 1
    let negative = offset < scalars.count && scalars[offset] == "-"
    if negative { offset += 1 }
    let secondsDigits = digitRun(at: offset)
    guard secondsDigits > 0, offset + secondsDigits < scalars.count, scalars[offset + secondsDigits] == ":"
    else { return nil }
    let secondsText = text(offset..<offset + secondsDigits)
    offset += secondsDigits + 1
    let nanosNegative = offset < scalars.count && scalars[offset] == "-"
    if nanosNegative { offset += 1 }
    let nanosDigits = digitRun(at: offset)
    guard nanosDigits > 0 else { return nil }
    if offset + nanosDigits < scalars.count, Lexer.isIdentifierContinue(scalars[offset + nanosDigits]) {
      return nil
    }
    let start = index
    let nanosText = text(offset..<offset + nanosDigits)
    index = offset + nanosDigits
    guard let seconds = Int64(secondsText), let nanos = Int64(nanosText), nanos <= 999_999_999 else {
      throw error(
        "invalid timestamp '\(text(start..<index))'; write T<seconds>:<nanoseconds>, nanoseconds below 10^9",
        at: start)
    }
    guard !nanosNegative || negative || nanos == 0, !negative || nanosNegative || nanos == 0 else {
      throw error(
        "invalid timestamp '\(text(start..<index))': seconds and nanoseconds need the same sign, as in T-5:-100",
        at: start)
    }
    let signedSeconds = negative ? -seconds : seconds
    guard Timestamp.range.contains(signedSeconds) else {
      throw error("invalid timestamp '\(text(start..<index))': outside years 0001 to 9999", at: start)
    }
    return Timestamp(secondsSince1970: signedSeconds, nanoseconds: Int32(negative ? -nanos : nanos))
  }

  /// `B64"…"`: base64 text whose bytes are a UTF-8 string (LiveLog has no binary fields; Realm
  /// compares binary with strings by bytes).
  mutating func base64() throws(QueryError) -> String {
    let start = index
    index += 3
    let quote = index
    index += 1
    var encoded = ""
    while let scalar = peek(0), scalar != "\"" {
      encoded.unicodeScalars.append(scalar)
      index += 1
    }
    guard peek(0) == "\"" else {
      throw error("unterminated string: the quote at column \(columns[quote]) is never closed", at: quote)
    }
    index += 1
    guard let data = Data(base64Encoded: encoded), let text = String(bytes: data, encoding: .utf8) else {
      throw error("B64\"…\" needs base64 of UTF-8 text", at: start)
    }
    return text
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
