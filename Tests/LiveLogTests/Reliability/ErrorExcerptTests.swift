import Foundation
import Testing

@testable import LiveLog

/// An error message quotes at most a short excerpt of its input, control characters escaped: an
/// error about a 10 MB NUL-filled CSV header echoed 20 MB, and a 120 KB query came back whole.
@Suite struct ErrorExcerptTests {
  /// Every message must be short, name its place, and hold no control character but line feeds.
  static func expectShort(_ result: CommandLineTool.Result, _ what: String, limit: Int = 4_000) {
    #expect(result.status == 2, "\(what): \(result.status)")
    #expect(result.stderr.utf8.count < limit, "\(what): \(result.stderr.utf8.count) bytes of message")
    let controls = result.stderr.unicodeScalars.filter { ControlEscaping.isControl($0) && $0 != "\n" }
    #expect(controls.isEmpty, "\(what): \(controls.count) control characters in the message")
  }

  @Test func hugeInputsAreQuotedByExcerpt() throws {
    let directory = try TemporaryDirectory()
    let tool = CommandLineTool(store: directory.child("store"))
    let nul = String(repeating: "\u{0}", count: 10 << 20)
    let escapes = String(repeating: "\u{1B}[2J", count: 1 << 20)
    let files = [
      ("nul-header.csv", "\(nul),full_name\n1,a/b\n"),
      ("nul-cell.csv", "id,full_name,stargazers_count\n1,a/b,\(nul)\n"),
      ("escape-date.ndjson", #"{"id": 1, "full_name": "a/b", "created_at": "\#(escapes)"}"# + "\n"),
      ("huge-number.ndjson", #"{"id": 1\#(String(repeating: "0", count: 900)), "full_name": "a/b"}"# + "\n"),
      ("escape-key.ndjson", #"{"id": 1, "full_name": "a/b", "\#(escapes)": 1, "\#(escapes)": 2}"# + "\n"),
    ]
    for (name, text) in files {
      let path = directory.child(name)
      try Reliability.write(text, to: path)
      let result = try tool.run(["ingest", path])
      Self.expectShort(result, name)
      #expect(result.stderr.contains(name), "\(name): \(result.stderr.prefix(300))")
    }
    let nulHeader = try tool.run(["ingest", directory.child("nul-header.csv")])
    #expect(nulHeader.stderr.contains("… (10485760 bytes)"), "\(nulHeader.stderr.prefix(400))")
    #expect(nulHeader.stderr.contains("\\u{0}"), "the NULs are shown escaped")
  }

  @Test func hugeQueriesAndArgumentsAreQuotedByExcerpt() throws {
    let directory = try TemporaryDirectory()
    let tool = CommandLineTool(store: directory.child("store"))
    #expect(try tool.run(["ingest", "-"], input: "").status == 0)
    let long = String(repeating: "q", count: 120_000)
    let cases: [(String, [String])] = [
      ("unterminated string", ["query", "full_name == '" + long]),
      ("unknown field", ["query", long + " == 1"]),
      ("escape in a query", ["query", "full_name == \u{1B}]8;;http://x\u{7}a\u{1B}]8;;\u{7}"]),
      ("bad number", ["query", "id == 1" + long]),
      ("error at the end", ["query", String(repeating: "id == 1 AND ", count: 9_000) + "id =="]),
      ("option value", ["query", "id > 0", "--limit", long]),
      ("unknown option", ["query", "id > 0", "--" + long]),
      ("choice", ["query", "id > 0", "--format", "\u{1B}[31m" + long]),
      ("sort", ["query", "id > 0", "--sort", "stars:" + long]),
      ("unknown command", ["\u{1B}[2J" + long]),
    ]
    for (what, arguments) in cases {
      Self.expectShort(try tool.run(arguments), what)
    }
  }

  @Test func anExcerptIsShortEscapedAndSaysHowLongTheWholeWas() {
    #expect(ControlEscaping.excerpt("full_name") == "full_name")
    #expect(ControlEscaping.excerpt("a\u{1B}[2Jb\nc\u{9B}d\u{7F}") == "a\\u{1B}[2Jb\\nc\\u{9B}d\\u{7F}")
    let long = String(repeating: "é", count: 100)
    #expect(ControlEscaping.excerpt(long) == String(repeating: "é", count: 40) + "… (200 bytes)")
    #expect(ControlEscaping.excerpt(String(repeating: "x", count: 40)) == String(repeating: "x", count: 40))
    // A query's error shows a window around its column, with the caret under it.
    let query = String(repeating: "id == 1 AND ", count: 1_000) + "stars > 5"
    let error = QueryError(
      kind: .unknownField, message: "unknown field 'stars'", query: query, column: 12_001)
    let lines = error.description.split(separator: "\n", omittingEmptySubsequences: false)
    #expect(lines.count == 3 && lines[1].count < 100, "\(error.description)")
    let caret =
      lines[2].firstIndex(of: "^").map { lines[2].distance(from: lines[2].startIndex, to: $0) } ?? -1
    let at = lines[1].index(lines[1].startIndex, offsetBy: caret)
    #expect(lines[1][at...].hasPrefix("stars"), "\(lines[1]) / \(lines[2])")
  }
}
