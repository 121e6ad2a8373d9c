import Foundation
import Testing

@testable import LiveLog

/// `livelog query` and `explain` on the real repos-2022 data.
@Suite struct CommandLineQueryTests {
  static let store: (TemporaryDirectory, CommandLineTool) = {
    let directory = try? TemporaryDirectory()
    let tool = CommandLineTool(store: directory?.child("store") ?? "/nonexistent")
    _ = try? tool.run(["ingest", "--durability", "no-sync", Fixtures.path("repos-2022.csv")])
    return (directory ?? (try? TemporaryDirectory())!, tool)
  }()

  @Test func theSeedQueryReturns39RowsFromAnIndexPlan() throws {
    let tool = Self.store.1
    let result = try tool.run(["query", "full_name CONTAINS[c] 'anim'", "--format", "json"])
    #expect(result.status == 0, "\(result.stderr)")
    let rows = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]]
    #expect(rows?.count == 39)
    #expect(rows?.allSatisfy { ($0["full_name"] as? String)?.lowercased().contains("anim") == true } == true)
    let plan = try tool.run(["explain", "full_name CONTAINS[c] 'anim'"])
    #expect(plan.stdout.contains("substring index of full_name"))
    #expect(plan.stdout.contains("plan: index"))
  }

  @Test func sortLimitAndNDJSON() throws {
    let tool = Self.store.1
    let result = try tool.run([
      "query", "language == 'Swift'", "--sort", "stargazers_count:desc", "--limit", "5", "--format", "ndjson",
    ])
    let stars = result.stdout.split(separator: "\n").compactMap {
      (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["stargazers_count"] as? Int
    }
    #expect(stars.count == 5)
    #expect(stars == stars.sorted(by: >))
  }

  @Test func queryErrorsExitTwoWithACaret() throws {
    let tool = Self.store.1
    let syntax = try tool.run(["query", "full_name CONTAINS[c] 'anim' AND language ="])
    #expect(syntax.status == 2)
    #expect(syntax.stderr.contains("^"))
    let unknown = try tool.run(["query", "stars > 5"])
    #expect(unknown.status == 2 && unknown.stderr.contains("stargazers_count"))
    let mismatch = try tool.run(["query", "stargazers_count CONTAINS 'x'"])
    #expect(mismatch.status == 2 && mismatch.stderr.contains("integer"))
  }

  /// `--arg` and `--arg-json` fill `%@` and `%K` in order, for `query` and `explain` alike.
  @Test func argumentsFillPlaceholders() throws {
    let tool = Self.store.1
    func ids(_ arguments: [String]) throws -> [Int] {
      let result = try tool.run(["query"] + arguments + ["--format", "json"])
      #expect(result.status == 0, "\(arguments): \(result.stderr)")
      let rows = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]]
      return rows?.compactMap { $0["id"] as? Int } ?? []
    }
    let literal = try ids(["stargazers_count > 1000 AND language IN {'Go', 'Rust'}"])
    #expect(!literal.isEmpty)
    #expect(
      try ids([
        "stargazers_count > %@ AND language IN %@", "--arg", "1000", "--arg-json", "[\"Go\", \"Rust\"]",
      ])
        == literal)
    #expect(
      try ids([
        "%K > %@ AND %K IN %@", "--arg", "stargazers_count", "--arg", "1000",
        "--arg=language", "--arg-json=[\"Go\", \"Rust\"]",
      ]) == literal)
    #expect(try ids(["language == %@", "--arg-json", "null"]) == ids(["language == nil"]))
    #expect(try ids(["fork == %@", "--arg", "true"]) == ids(["fork == true"]))
    let plan = try tool.run(["explain", "language == %@", "--arg", "Go"])
    #expect(plan.status == 0 && plan.stdout.contains("equality index of language"), "\(plan.stdout)")
    let missing = try tool.run(["query", "stargazers_count > %@"])
    #expect(missing.status == 2 && missing.stderr.contains("argument"), "\(missing.stderr)")
    let badJSON = try tool.run(["query", "language IN %@", "--arg-json", "[1,"])
    #expect(badJSON.status == 2 && badJSON.stderr.contains("JSON"), "\(badJSON.stderr)")
    let help = try tool.run(["query", "--help"])
    #expect(help.stdout.contains("--arg-json"), "\(help.stdout)")
  }
}
