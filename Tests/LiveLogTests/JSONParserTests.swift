import Testing

@testable import LiveLog

@Suite struct JSONParserTests {
  private func parse(_ text: String) throws -> JSONValue { try JSONParser.parse(bytes(text)) }

  private func error(_ text: String) -> JSONSyntaxError? {
    do {
      _ = try JSONParser.parse(Array(text.utf8))
      return nil
    } catch {
      return error
    }
  }

  @Test func parsesEveryKindOfValue() throws {
    let value = try parse(#"{"a": [1, -2.5e3, true, false, null, "x\u00e9\ud83d\ude00\n"], "b": {}}"#)
    guard case .object(let object) = value, case .array(let array)? = object["a"]?.value else {
      Issue.record("expected an object with an array")
      return
    }
    #expect(array.count == 6)
    if case .number(let n) = array[0].value { #expect(n.integer == 1) } else { Issue.record("not a number") }
    if case .number(let n) = array[1].value { #expect(n.integer == nil && n.literal == "-2.5e3") }
    if case .string(let s) = array[5].value { #expect(s == "xé😀\n") } else { Issue.record("not a string") }
  }

  @Test(arguments: [
    (#"{"a": 1"#, "unterminated"),
    (#"{"a": 1, "a": 2}"#, "duplicate key"),
    (#"[1, 2,]"#, "expected a value"),
    (#""\ud800""#, "unpaired surrogate"),
    (#"01"#, "leading zero"),
    (#"[1] 2"#, "after the JSON value"),
    (#"tru"#, "literal"),
    ("\"a\u{01}\"", "control character"),
    (#"{"a" 1}"#, "expected ':'"),
  ])
  func rejectsMalformedInput(text: String, expected: String) {
    let failure = error(text)
    #expect(failure != nil)
    #expect(failure?.message.contains(expected) == true, "\(failure?.message ?? "no error")")
  }

  @Test func rejectsInvalidUTF8AndDeepNesting() {
    var invalid = Array(#"{"a": "x"#.utf8)
    invalid += [0xC3, 0x28]
    invalid += Array(#""}"#.utf8)
    #expect(throws: JSONSyntaxError.self) { try JSONParser.parse(invalid) }
    let deep = String(repeating: "[", count: 1_000) + String(repeating: "]", count: 1_000)
    #expect(error(deep)?.message.contains("nesting deeper") == true)
  }

  @Test func hugeNumbersAreKeptAsWrittenButNotAsIntegers() throws {
    let value = try parse("123456789012345678901234567890")
    guard case .number(let number) = value else {
      Issue.record("not a number")
      return
    }
    #expect(number.integer == nil)
    #expect(number.literal == "123456789012345678901234567890")
  }

  @Test func positionsCountLinesAndCharacters() {
    let text = Array("ab\ncdé\nfg".utf8)
    text.withUnsafeBufferPointer { buffer in
      #expect(TextPosition(offset: 0, in: buffer) == TextPosition(line: 1, column: 1))
      #expect(TextPosition(offset: 3, in: buffer) == TextPosition(line: 2, column: 1))
      // "é" is two bytes but one column.
      #expect(TextPosition(offset: 8, in: buffer) == TextPosition(line: 3, column: 1))
    }
  }

  @Test func writerOutputParsesBackToTheSameStrings() throws {
    var random = SplitMix64(seed: 7)
    let alphabet: [Character] = ["a", "\"", "\\", "\n", "\t", "\u{01}", "é", "😀", "/", " "]
    for _ in 0..<500 {
      let text = String(
        (0..<Int.random(in: 0...20, using: &random)).map { _ in alphabet.randomElement(using: &random) ?? "a"
        })
      var writer = JSONWriter()
      writer.string(text)
      let parsed = try JSONParser.parse(writer.bytes)
      guard case .string(let back) = parsed else {
        Issue.record("not a string")
        return
      }
      #expect(back == text)
    }
  }
}
