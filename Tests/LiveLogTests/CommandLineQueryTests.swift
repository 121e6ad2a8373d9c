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
}
