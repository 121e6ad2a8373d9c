/// A JSON syntax error at a byte offset of the input.
struct JSONSyntaxError: Error, Sendable {
  var offset: Int
  var message: String
}

/// A strict RFC 8259 JSON parser over UTF-8 bytes.
///
/// It never trusts its input: strings must be valid UTF-8 with paired surrogate escapes, nesting is
/// limited, duplicate keys are rejected (JSON leaves their meaning open, and silently keeping one
/// would hide a broken producer), and every error carries the offset where it was found.
struct JSONParser {
  /// Deepest nesting of arrays and objects accepted. GitHub's objects nest three levels.
  static let maximumDepth = 64
  /// Longest string accepted, in bytes: beyond any real field, small enough to bound memory.
  static let maximumStringBytes = 16 << 20
  /// Keys of an object checked for duplicates by a linear scan; past this, by a hash set.
  static let linearKeyLimit = 16

  private let input: UnsafeBufferPointer<UInt8>
  private var index: Int
  private var depth = 0

  private init(input: UnsafeBufferPointer<UInt8>, start: Int) {
    self.input = input
    self.index = start
  }

  /// Parses exactly one JSON value filling `bytes` (surrounding white space allowed).
  static func parse(_ bytes: UnsafeBufferPointer<UInt8>) throws(JSONSyntaxError) -> JSONValue {
    var parser = JSONParser(input: bytes, start: 0)
    parser.skipWhitespace()
    let value = try parser.parseValue()
    parser.skipWhitespace()
    guard parser.index == bytes.count else {
      throw JSONSyntaxError(offset: parser.index, message: "unexpected content after the JSON value")
    }
    return value
  }

  static func parse(_ bytes: [UInt8]) throws(JSONSyntaxError) -> JSONValue {
    try bytes.withUnsafeBufferPointer { (buffer) throws(JSONSyntaxError) in try parse(buffer) }
  }

  /// Parses one value starting at `start`; returns it and the offset just after it.
  static func parsePrefix(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) throws(JSONSyntaxError)
    -> (JSONValue, end: Int)
  {
    var parser = JSONParser(input: bytes, start: start)
    parser.skipWhitespace()
    let value = try parser.parseValue()
    return (value, parser.index)
  }

  // MARK: Grammar

  private mutating func skipWhitespace() {
    while index < input.count {
      switch input[index] {
      case 0x20, 0x0A, 0x0D, 0x09: index += 1
      default: return
      }
    }
  }

  private func fail(_ message: String, at offset: Int? = nil) -> JSONSyntaxError {
    JSONSyntaxError(offset: offset ?? index, message: message)
  }

  private func describeCurrent() -> String {
    guard index < input.count else { return "the end of the input" }
    let byte = input[index]
    if byte >= 0x20 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
    return "byte 0x\(String(byte, radix: 16))"
  }

  private mutating func parseValue() throws(JSONSyntaxError) -> JSONValue {
    guard index < input.count else { throw fail("unexpected end of input, expected a value") }
    switch input[index] {
    case 0x7B: return try parseObject()
    case 0x5B: return try parseArray()
    case 0x22: return .string(try parseString())
    case 0x74:
      try parseLiteral("true")
      return .bool(true)
    case 0x66:
      try parseLiteral("false")
      return .bool(false)
    case 0x6E:
      try parseLiteral("null")
      return .null
    case 0x2D, 0x30...0x39: return .number(try parseNumber())
    default: throw fail("expected a value, found \(describeCurrent())")
    }
  }

  private mutating func parseLiteral(_ word: StaticString) throws(JSONSyntaxError) {
    let start = index
    let count = word.utf8CodeUnitCount
    guard index + count <= input.count else { throw fail("truncated literal", at: start) }
    for offset in 0..<count where input[index + offset] != word.utf8Start[offset] {
      throw fail("invalid literal, expected '\(word)'", at: start)
    }
    index += count
  }

  private mutating func enter() throws(JSONSyntaxError) {
    depth += 1
    if depth > JSONParser.maximumDepth {
      throw fail("nesting deeper than \(JSONParser.maximumDepth) levels")
    }
  }

  private mutating func parseArray() throws(JSONSyntaxError) -> JSONValue {
    try enter()
    defer { depth -= 1 }
    index += 1
    var elements: [JSONElement] = []
    skipWhitespace()
    if index < input.count && input[index] == 0x5D {
      index += 1
      return .array(elements)
    }
    while true {
      skipWhitespace()
      let offset = index
      elements.append(JSONElement(value: try parseValue(), offset: offset))
      skipWhitespace()
      guard index < input.count else { throw fail("unterminated array, expected ',' or ']'") }
      if input[index] == 0x2C {
        index += 1
      } else if input[index] == 0x5D {
        index += 1
        return .array(elements)
      } else {
        throw fail("expected ',' or ']' in array, found \(describeCurrent())")
      }
    }
  }

  private mutating func parseObject() throws(JSONSyntaxError) -> JSONValue {
    try enter()
    defer { depth -= 1 }
    index += 1
    var members: [JSONObject.Member] = []
    // Keys seen, once the object outgrows a linear scan: checking each key against every earlier
    // one would make an object of n keys cost n² comparisons.
    var keys = Set<String>()
    skipWhitespace()
    if index < input.count && input[index] == 0x7D {
      index += 1
      return .object(JSONObject(members: members))
    }
    while true {
      skipWhitespace()
      guard index < input.count, input[index] == 0x22 else {
        throw fail("expected a key in double quotes, found \(describeCurrent())")
      }
      let keyOffset = index
      let key = try parseString()
      let isDuplicate: Bool
      if members.count < JSONParser.linearKeyLimit {
        isDuplicate = members.contains { $0.key == key }
      } else {
        if keys.isEmpty { keys = Set(members.map(\.key)) }
        isDuplicate = !keys.insert(key).inserted
      }
      if isDuplicate {
        throw fail("duplicate key \"\(ControlEscaping.excerpt(key))\" in object", at: keyOffset)
      }
      skipWhitespace()
      guard index < input.count, input[index] == 0x3A else {
        throw fail("expected ':' after key \"\(ControlEscaping.excerpt(key))\", found \(describeCurrent())")
      }
      index += 1
      skipWhitespace()
      let offset = index
      members.append(JSONObject.Member(key: key, value: try parseValue(), offset: offset))
      skipWhitespace()
      guard index < input.count else { throw fail("unterminated object, expected ',' or '}'") }
      if input[index] == 0x2C {
        index += 1
      } else if input[index] == 0x7D {
        index += 1
        return .object(JSONObject(members: members))
      } else {
        throw fail("expected ',' or '}' in object, found \(describeCurrent())")
      }
    }
  }

  private mutating func parseString() throws(JSONSyntaxError) -> String {
    let start = index
    index += 1
    let contentStart = index
    // Fast path: no escapes.
    while index < input.count {
      let byte = input[index]
      if byte == 0x22 {
        let run = UnsafeBufferPointer(rebasing: input[contentStart..<index])
        index += 1
        guard run.count <= JSONParser.maximumStringBytes else {
          throw fail("string longer than \(JSONParser.maximumStringBytes) bytes", at: start)
        }
        guard let string = String.validated(utf8: run) else {
          throw fail("string is not valid UTF-8", at: start)
        }
        return string
      }
      if byte == 0x5C { break }
      if byte < 0x20 { throw fail("control character in string (escape it as \\u00XX)") }
      index += 1
    }
    guard index < input.count else { throw fail("unterminated string", at: start) }
    var bytes = Array(input[contentStart..<index])
    while index < input.count {
      let byte = input[index]
      switch byte {
      case 0x22:
        index += 1
        guard let string = String.validated(utf8: bytes) else {
          throw fail("string is not valid UTF-8", at: start)
        }
        return string
      case 0x5C:
        try parseEscape(into: &bytes)
      case ..<0x20:
        throw fail("control character in string (escape it as \\u00XX)")
      default:
        bytes.append(byte)
        index += 1
      }
      if bytes.count > JSONParser.maximumStringBytes {
        throw fail("string longer than \(JSONParser.maximumStringBytes) bytes", at: start)
      }
    }
    throw fail("unterminated string", at: start)
  }

  private mutating func parseEscape(into bytes: inout [UInt8]) throws(JSONSyntaxError) {
    let start = index
    index += 1
    guard index < input.count else { throw fail("unterminated escape", at: start) }
    let code = input[index]
    index += 1
    switch code {
    case 0x22: bytes.append(0x22)
    case 0x5C: bytes.append(0x5C)
    case 0x2F: bytes.append(0x2F)
    case 0x62: bytes.append(0x08)
    case 0x66: bytes.append(0x0C)
    case 0x6E: bytes.append(0x0A)
    case 0x72: bytes.append(0x0D)
    case 0x74: bytes.append(0x09)
    case 0x75:
      var scalar = try parseHex4()
      if (0xD800...0xDBFF).contains(scalar) {
        guard index + 1 < input.count, input[index] == 0x5C, input[index + 1] == 0x75 else {
          throw fail("unpaired surrogate \\u\(String(scalar, radix: 16)) in string", at: start)
        }
        index += 2
        let low = try parseHex4()
        guard (0xDC00...0xDFFF).contains(low) else {
          throw fail("unpaired surrogate \\u\(String(scalar, radix: 16)) in string", at: start)
        }
        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
      } else if (0xDC00...0xDFFF).contains(scalar) {
        throw fail("unpaired surrogate \\u\(String(scalar, radix: 16)) in string", at: start)
      }
      guard let unicode = Unicode.Scalar(scalar) else { throw fail("invalid \\u escape", at: start) }
      bytes.append(contentsOf: String(Character(unicode)).utf8)
    default:
      throw fail("invalid escape '\\\(Character(Unicode.Scalar(code)))'", at: start)
    }
  }

  private mutating func parseHex4() throws(JSONSyntaxError) -> UInt32 {
    guard index + 4 <= input.count else { throw fail("truncated \\u escape") }
    var value: UInt32 = 0
    for _ in 0..<4 {
      let c = input[index]
      let digit: UInt32
      switch c {
      case 0x30...0x39: digit = UInt32(c - 0x30)
      case 0x41...0x46: digit = UInt32(c - 0x41 + 10)
      case 0x61...0x66: digit = UInt32(c - 0x61 + 10)
      default: throw fail("invalid hex digit in \\u escape")
      }
      value = value << 4 | digit
      index += 1
    }
    return value
  }

  private mutating func parseNumber() throws(JSONSyntaxError) -> JSONNumber {
    let start = index
    var isInteger = true
    if input[index] == 0x2D { index += 1 }
    guard index < input.count, (0x30...0x39).contains(input[index]) else {
      throw fail("invalid number: expected a digit", at: start)
    }
    if input[index] == 0x30 {
      index += 1
      if index < input.count && (0x30...0x39).contains(input[index]) {
        throw fail("invalid number: leading zero", at: start)
      }
    } else {
      while index < input.count && (0x30...0x39).contains(input[index]) { index += 1 }
    }
    if index < input.count && input[index] == 0x2E {
      isInteger = false
      index += 1
      let digits = index
      while index < input.count && (0x30...0x39).contains(input[index]) { index += 1 }
      guard index > digits else { throw fail("invalid number: expected digits after '.'", at: start) }
    }
    if index < input.count && (input[index] == 0x65 || input[index] == 0x45) {
      isInteger = false
      index += 1
      if index < input.count && (input[index] == 0x2B || input[index] == 0x2D) { index += 1 }
      let digits = index
      while index < input.count && (0x30...0x39).contains(input[index]) { index += 1 }
      guard index > digits else { throw fail("invalid number: expected exponent digits", at: start) }
    }
    guard index - start <= 1_000 else { throw fail("number literal longer than 1000 characters", at: start) }
    let literal = String(decoding: UnsafeBufferPointer(rebasing: input[start..<index]), as: UTF8.self)
    return JSONNumber(literal: literal, integer: isInteger ? Int64(literal) : nil)
  }
}

/// Converts byte offsets of a text into 1-based line and column numbers (columns in characters).
struct TextPosition: Sendable, Hashable, CustomStringConvertible {
  var line: Int
  var column: Int

  init(line: Int, column: Int) {
    self.line = line
    self.column = column
  }

  /// The position of `offset` in `bytes`, counting lines from `firstLine`.
  init(offset: Int, in bytes: UnsafeBufferPointer<UInt8>, firstLine: Int = 1) {
    var line = firstLine
    var lineStart = 0
    let end = Swift.min(offset, bytes.count)
    for i in 0..<end where bytes[i] == 0x0A {
      line += 1
      lineStart = i + 1
    }
    // Count characters, not bytes: continuation bytes do not start a column.
    var column = 1
    for i in lineStart..<end where bytes[i] & 0xC0 != 0x80 { column += 1 }
    self.init(line: line, column: column)
  }

  var description: String { "\(line):\(column)" }
}
