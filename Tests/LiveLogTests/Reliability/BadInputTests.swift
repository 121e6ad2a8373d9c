import Foundation
import Testing

@testable import LiveLog

/// The bad-input corpus (Tests/Fixtures/bad-input) through the command line: every input exits
/// 2 with a message, never with a signal, and leaves the store as it was.
@Suite struct BadInputTests {
  static let corpus = Reliability.path("Tests/Fixtures/bad-input")

  static var recordFiles: [String] {
    let directory = corpus + "/records"
    let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
    return names.sorted().map { "\(directory)/\($0)" }
  }

  /// The non-comment lines of a corpus text file.
  static func lines(_ name: String) -> [String] {
    let text = (try? String(contentsOfFile: corpus + "/" + name, encoding: .utf8)) ?? ""
    return text.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
      .filter { !$0.hasPrefix("#") }
  }

  /// A store holding one repository (version 2: the collection's schema event, then the record),
  /// and a valid input file.
  static func seededStore(_ directory: TemporaryDirectory) throws -> (CommandLineTool, good: String) {
    let tool = CommandLineTool(store: directory.child("store"))
    let good = directory.child("good.ndjson")
    try Reliability.write(#"{"id": 7, "full_name": "x/y"}"# + "\n", to: good)
    let seeded = try tool.run(["ingest", good])
    #expect(seeded.status == 0, "\(seeded.stderr)")
    return (tool, good)
  }

  static func expectRefused(
    _ result: CommandLineTool.Result, _ what: String, sourceLocation: SourceLocation = #_sourceLocation
  ) {
    #expect(!result.signalled, "\(what): killed by signal \(result.status)", sourceLocation: sourceLocation)
    #expect(
      result.status == 2, "\(what): exit \(result.status): \(result.stderr)", sourceLocation: sourceLocation)
    #expect(
      result.stderr.hasPrefix("error: ") && result.stderr.count > 10, "\(what): no message",
      sourceLocation: sourceLocation)
  }

  @Test func theCorpusIsThere() {
    #expect(Self.recordFiles.count >= 30)
    #expect(Self.lines("queries.txt").count >= 40)
    #expect(Self.lines("arguments.txt").count >= 40)
  }

  @Test func malformedRecordsExitTwoAndWriteNothing() throws {
    let directory = try TemporaryDirectory()
    let (tool, _) = try Self.seededStore(directory)
    for file in Self.recordFiles {
      let name = URL(fileURLWithPath: file).lastPathComponent
      let alone = try tool.run(["ingest", file])
      Self.expectRefused(alone, name)
      #expect(alone.stderr.contains(name), "\(name): the message does not name the file: \(alone.stderr)")
    }
    #expect(try Reliability.version(tool) == 2)
  }

  @Test func aBadFileAfterAGoodOneWritesNeither() throws {
    let directory = try TemporaryDirectory()
    let (tool, _) = try Self.seededStore(directory)
    let other = directory.child("other.ndjson")
    try Reliability.write(#"{"id": 8, "full_name": "x/z"}"# + "\n", to: other)
    for file in Self.recordFiles.prefix(8) {
      Self.expectRefused(try tool.run(["ingest", "--batch", "1", other, file]), file)
    }
    #expect(try Reliability.version(tool) == 2)
  }

  @Test func tenMegabyteStringsAreRefused() throws {
    let directory = try TemporaryDirectory()
    let (tool, _) = try Self.seededStore(directory)
    let huge = String(repeating: "ab", count: 5 << 20)
    let cases = [
      ("description.ndjson", #"{"id": 1, "full_name": "a/b", "description": "\#(huge)"}"#),
      ("full-name.ndjson", #"{"id": 1, "full_name": "\#(huge)"}"#),
      ("topic.json", #"[{"id": 1, "full_name": "a/b", "topics": ["\#(huge)"]}]"#),
      ("unterminated.ndjson", #"{"id": 1, "full_name": "a/b", "description": "\#(huge)"#),
    ]
    for (name, text) in cases {
      let path = directory.child(name)
      try Reliability.write(text + "\n", to: path)
      Self.expectRefused(try tool.run(["ingest", path]), name)
    }
    #expect(try Reliability.version(tool) == 2)
  }

  @Test func malformedQueriesExitTwo() throws {
    let directory = try TemporaryDirectory()
    let (tool, _) = try Self.seededStore(directory)
    var queries = Self.lines("queries.txt")
    // Generated: deeply nested, enormous (an argument may hold 128 KiB on Linux), and both at once.
    queries.append(String(repeating: "(", count: 10_000) + "id == 1" + String(repeating: ")", count: 10_000))
    queries.append(String(repeating: "NOT ", count: 20_000) + "id == 1")
    queries.append(String(repeating: "(", count: 300) + "id == 1")
    queries.append(Array(repeating: "full_name CONTAINS 'a'", count: 4_000).joined(separator: " OR ") + " OR")
    queries.append("full_name == '" + String(repeating: "q", count: 120_000))
    for query in queries {
      Self.expectRefused(try tool.run(["query", query]), String(query.prefix(80)))
    }
    #expect(try Reliability.version(tool) == 2)
  }

  /// Beyond the command line's argument size: the parser itself on megabytes of query.
  @Test func enormousQueriesFailOrParseWithoutCrashing() throws {
    let nested =
      String(repeating: "(", count: 1_000_000) + "id == 1" + String(repeating: ")", count: 1_000_000)
    #expect(throws: QueryError.self) { try Query(parsing: nested) }
    let wide = Array(repeating: "stargazers_count > 5", count: 200_000).joined(separator: " AND ")
    let query = try Query(parsing: wide)
    guard case .and(let parts) = query.predicate else {
      Issue.record("expected an AND")
      return
    }
    #expect(parts.count == 200_000)
    #expect(throws: QueryError.self) { try Query(parsing: wide + " AND") }
  }

  @Test func badArgumentsExitTwoAndWriteNothing() throws {
    let directory = try TemporaryDirectory()
    let (tool, good) = try Self.seededStore(directory)
    for line in Self.lines("arguments.txt") {
      let arguments = line.components(separatedBy: " | ").map { $0 == "@GOOD" ? good : $0 }
      Self.expectRefused(try tool.run(arguments, input: ""), line)
    }
    #expect(try Reliability.version(tool) == 2)
    #expect(try tool.run(["verify"]).status == 0)
  }
}
