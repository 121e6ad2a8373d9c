import Foundation
import Testing

@testable import LiveLog

/// Data and input never command the terminal: every human-readable output shows control
/// characters (C0, DEL, C1: escape sequences, CR, LF, BEL) as visible escapes, so that a newline
/// in a full name cannot forge a table row and an OSC 8 sequence cannot forge a link; JSON
/// output keeps them exact. The records are Tests/Fixtures/hostile/repositories.ndjson, with a
/// hostile value in every text field.
@Suite struct TerminalSafetyTests {
  static let fixture = Reliability.path("Tests/Fixtures/hostile/repositories.ndjson")

  /// The control characters of `text` other than line feeds (and tabs, where `tabs`: `log`
  /// separates its columns with them).
  static func controls(_ text: String, tabs: Bool = false) -> [Unicode.Scalar] {
    text.unicodeScalars.filter { ControlEscaping.isControl($0) && $0 != "\n" && !(tabs && $0 == "\t") }
  }

  @Test func everyHumanReadableOutputEscapesControlCharacters() throws {
    let directory = try TemporaryDirectory()
    // The store's own path is hostile too: stats and messages print it.
    let store = directory.child("store\u{1B}[31m\u{9B}")
    let tool = CommandLineTool(store: store)
    #expect(try tool.run(["ingest", Self.fixture]).status == 0)
    // No forged rows: a header, one line per repository, the count.
    let table = try tool.run(["query", "id > 0"])
    #expect(table.stdout.split(separator: "\n").count == 1 + 5 + 1, "\(table.stdout)")
    #expect(
      table.stdout.contains("\\u{1B}]8;;http://evil.example/\\u{7}click me"), "the sequence is shown, not run"
    )
    let log = try tool.run(["log"])
    // The collection's schema event (LSN, time, "schema", collection, version, commit end), then
    // the records: LSN, time, kind, id, full name, and the commit-end mark on the last one. No
    // forged line, no forged column.
    #expect(log.stdout.split(separator: "\n").count == 1 + 5)
    let columns = log.stdout.split(separator: "\n").map {
      $0.split(separator: "\t", omittingEmptySubsequences: false).count
    }
    #expect(columns == [6, 5, 5, 5, 5, 6], "\(log.stdout)")
    let hostileQuery = "full_name CONTAINS 'tetris\u{1B}[2J' OR full_name CONTAINS[c] 'TETRIS'"
    let outputs: [(String, [String], Bool)] = [
      ("query table", ["query", "id > 0"], false),
      ("query table, sorted", ["query", hostileQuery, "--sort", "stargazers_count:desc"], false),
      ("log", ["log"], true),
      ("watch", ["watch", "full_name CONTAINS 'tetris'", "--until", "5"], false),
      ("diff", ["diff", hostileQuery, "--from", "0", "--to", "5"], false),
      ("explain", ["explain", hostileQuery], false),
      ("stats", ["stats"], false),
      ("ingest summary", ["ingest", Self.fixture], false),
      (
        "search --once",
        [
          "search", "--once", "--term", "tetris", "--language", "Assembly", "--offline",
          Fixtures.path("recorded"),
        ], false
      ),
      ("an error quoting input", ["query", "full_name == 'a' AND \u{1B}]8;;http://evil/\u{7}x == 1"], false),
      ("a repair's report", ["replay", "--in-place"], false),
    ]
    for (what, arguments, tabs) in outputs {
      let result = try tool.run(arguments)
      #expect(!result.signalled)
      #expect(
        Self.controls(result.stdout, tabs: tabs).isEmpty,
        "\(what): \(Self.controls(result.stdout, tabs: tabs)) in \(result.stdout.prefix(300))")
      #expect(
        Self.controls(result.stderr).isEmpty,
        "\(what): \(Self.controls(result.stderr)) in \(result.stderr.prefix(300))")
    }
  }

  @Test func jsonOutputKeepsTheValuesExact() throws {
    let directory = try TemporaryDirectory()
    let tool = CommandLineTool(store: directory.child("store"))
    #expect(try tool.run(["ingest", Self.fixture]).status == 0)
    let expected = try String(contentsOfFile: Self.fixture, encoding: .utf8).split(separator: "\n").map {
      try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
    }
    let result = try tool.run(["query", "id > 0", "--format", "json"])
    let objects = try #require(
      try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]])
    #expect(objects.count == expected.count)
    for (object, original) in zip(objects, expected) {
      for key in ["full_name", "description", "language"] {
        #expect(object[key] as? String == original[key] as? String, "\(key)")
      }
      #expect(object["topics"] as? [String] == original["topics"] as? [String])
    }
    let ndjson = try tool.run(["log", "--format", "ndjson"])
    #expect(ndjson.stdout.contains(#"\u001b]8;;http://evil.example/\u0007click me"#))
  }

  @Test func theEscapeIsVisibleAndOneLine() {
    // What livelog's TerminalSafe applies to every line it prints for people.
    #expect(
      ControlEscaping.escaped("a\r\nb\u{1B}[2J\u{7}\u{9B}c\u{7F}\td")
        == "a\\r\\nb\\u{1B}[2J\\u{7}\\u{9B}c\\u{7F}\\td")
    #expect(
      ControlEscaping.escaped("line one\nline \u{1B}two", keepingNewlines: true)
        == "line one\nline \\u{1B}two")
    #expect(ControlEscaping.escaped("日本語 é 😀") == "日本語 é 😀")
  }

  /// A collection of another type prints its own keys and text (`log`, a `query` table, `diff`):
  /// a string key or a title with an escape sequence or a line break must not reach the terminal
  /// either.
  @Test func anotherCollectionsKeysAndTextAreEscapedToo() throws {
    let directory = try TemporaryDirectory()
    let tool = CommandLineTool(store: directory.child("store"))
    #expect(
      try tool.run(["collection", "create", "apps", "--schema", Fixtures.apps("apps.schema.json")]).status
        == 0)
    let hostile = #"\u001b[2J\u001b]8;;http://evil.example/\u0007click\u001b]8;;\u0007\r\nforged\u009b31m"#
    let input = directory.child("apps.ndjson")
    try Reliability.write(
      #"{"url": "https://a.example/\#(hostile)", "title": "A \#(hostile)", "stars": 1}"# + "\n"
        + #"{"url": "https://b.example/\#(hostile)", "title": "B \#(hostile)", "stars": 2}"# + "\n",
      to: input)
    let ingested = try tool.run(["ingest", "--collection", "apps", input])
    #expect(ingested.status == 0, "\(ingested.stderr)")
    let version = try Reliability.version(tool)
    let outputs: [(String, [String], Bool)] = [
      ("log", ["log", "--collection", "apps"], true),
      ("query table", ["query", "--collection", "apps", "stars > 0"], false),
      ("query table, sorted", ["query", "--collection", "apps", "stars > 0", "--sort", "title"], false),
      ("diff", ["diff", "--collection", "apps", "stars > 0", "--from", "1", "--to", "\(version)"], false),
    ]
    for (name, arguments, tabs) in outputs {
      let result = try tool.run(arguments)
      #expect(result.status == 0, "\(name): \(result.stderr)")
      #expect(Self.controls(result.stdout + result.stderr, tabs: tabs).isEmpty, "\(name): \(result.stdout)")
      #expect(result.stdout.contains("\\u{1B}]8;;http://evil.example/"), "\(name): the sequence is shown")
    }
    // One line per record: the schema event and the two records; no forged line.
    let log = try tool.run(["log", "--collection", "apps"])
    #expect(log.stdout.split(separator: "\n").count == 3, "\(log.stdout)")
  }
}
