import Foundation
import LiveLog
import Testing

/// `livelog search --once`, the scripting mode, through the built executable and the recorded
/// GitHub answers.
@Suite struct SearchOnceTests {
  let directory: ScratchDirectory
  let store: String

  init() throws {
    directory = try ScratchDirectory()
    store = directory.child("store")
  }

  func search(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
    try runTool(["--store", store, "search", "--once", "--offline", SearchFixtures.recorded] + arguments)
  }

  func objects(_ output: String) throws -> [[String: Any]] {
    try output.split(separator: "\n").map {
      try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
    }
  }

  @Test func aFetchIntoAnEmptyStoreInsertsEveryMatch() throws {
    let result = try search(["--term", "tetris", "--language", "Assembly", "--format", "json", "--ids"])
    #expect(result.status == 0, "\(result.stderr)")
    let lines = try objects(result.stdout)
    #expect(lines.map { $0["kind"] as? String } == ["initial", "update"])
    #expect(lines[0]["count"] as? Int == 0 && lines[0]["lsn"] as? Int == 0)
    // The 2014 answer: 30 repositories, 28 of them with "tetris" in the full name, after the
    // schema event that created the collection.
    #expect(lines[1]["lsn"] as? Int == 31)
    #expect(lines[1]["count"] as? Int == 28)
    #expect(lines[1]["insertions"] as? [Int] == Array(0..<28))
    let ids = try #require(lines[1]["ids"] as? [Int])
    let local = try Store(directory: store)
    let expected = try local.objects(Repository.self)
      .filter("full_name CONTAINS[c] 'tetris' AND language ==[c] 'Assembly'")
      .sorted(by: "stargazers_count", ascending: false).ids()
    #expect(ids.map(Int64.init) == expected)
  }

  @Test func aFetchThatChangesNothingPrintsAnEmptyUpdate() throws {
    #expect(try search(["--term", "tetris", "--language", "Assembly"]).status == 0)
    let again = try search(["--term", "tetris", "--language", "Assembly", "--format", "json"])
    #expect(again.status == 0)
    let lines = try objects(again.stdout)
    #expect(lines.map { $0["count"] as? Int } == [28, 28])
    #expect(lines.map { $0["lsn"] as? Int } == [31, 31], "identical upserts write nothing")
    #expect(lines[1]["insertions"] as? [Int] == [] && lines[1]["modifications"] as? [Int] == [])
  }

  /// The cache holds the 2019 answer; the fetch brings 2014's (stars were lower, a repository had
  /// another name): the changeset turns the initial ids into the updated ones.
  @Test func theChangesetTurnsTheCachedResultsIntoTheFetchedOnes() throws {
    let ingest = try runTool(["--store", store, "ingest", try SearchFixtures.searchResponse("11")])
    #expect(ingest.status == 0)
    let result = try search(["--term", "tetris", "--language", "Assembly", "--format", "json", "--ids"])
    #expect(result.status == 0, "\(result.stderr)")
    let lines = try objects(result.stdout)
    var rows = try #require(lines[0]["ids"] as? [Int])
    let update = lines[1]
    let ids = try #require(update["ids"] as? [Int])
    for index in (update["deletions"] as? [Int] ?? []).sorted(by: >) { rows.remove(at: index) }
    for index in (update["insertions"] as? [Int] ?? []).sorted() { rows.insert(ids[index], at: index) }
    #expect(rows == ids)
    #expect(
      !((update["modifications"] as? [Int]) ?? []).isEmpty || !((update["moves"] as? [[Int]]) ?? []).isEmpty)
  }

  @Test func textFormatSaysWhatTheFetchDid() throws {
    let result = try search(["--term", "tetris", "--language", "assembly"])
    #expect(result.status == 0)
    let lines = result.stdout.split(separator: "\n").map(String.init)
    #expect(lines.first == "initial at 0: 0 results")
    #expect(
      lines.contains(
        "fetched 30 repositories for “tetris language:assembly” (page 1; 30 inserted, 0 updated, 0 unchanged)"
      ))
    #expect(lines.contains("update at 31: 28 results; 0 deleted, 28 inserted, 0 modified, 0 moved"))
    #expect(lines.contains("  + [0] cjauvin/tetris-c64"))
  }

  @Test func pagesOfOneSearchAreOneCommit() throws {
    let result = try search([
      "--term", "octokit", "--language", "Python", "--per-page", "1", "--pages", "2", "--format", "json",
    ])
    #expect(result.status == 0, "\(result.stderr)")
    let lines = try objects(result.stdout)
    #expect(lines[1]["insertions"] as? [Int] == [0, 1])
    #expect(lines[1]["lsn"] as? Int == 3)
  }

  @Test func aRateLimitIsReportedWithItsResetTime() throws {
    let result = try search(["--term", "ratelimited", "--format", "json"])
    #expect(result.status == 1)
    #expect(try objects(result.stdout).map { $0["kind"] as? String } == ["initial"])
    #expect(result.stderr.contains("rate limit is reached (10 requests per window); it resets at"))
  }

  /// Broken answers (cut off, HTML, a record without full_name, a wrong type, no items, nothing)
  /// are errors with exit status 1 — never a crash — and write nothing.
  @Test(arguments: ["truncated", "notjson", "badrecord", "wrongtype", "noitems", "emptybody"])
  func malformedAnswersAreErrorsNotCrashes(term: String) throws {
    let result = try search(["--term", term])
    #expect(result.status == 1, "\(term): \(result.stderr)")
    #expect(result.stderr.contains("GitHub's answer could not be read"))
    #expect(try Store(directory: store).version() == 0)
  }

  @Test func httpErrorsAreReported() throws {
    let gateway = try search(["--term", "servererror"])
    #expect(gateway.status == 1 && gateway.stderr.contains("502 Bad Gateway"))
    let offline = try search(["--term", "nothing recorded"])
    #expect(offline.status == 1 && offline.stderr.contains("no recorded response"))
  }

  @Test func usageErrors() throws {
    #expect(try search([]).status == 2, "--once needs a term")
    #expect(try search(["--term", "ab"]).status == 2, "too short")
    let noTerminal = try runTool(["--store", store, "search", "--term", "tetris"])
    #expect(noTerminal.status == 2 && noTerminal.stderr.contains("needs a terminal"))
    #expect(!FileManager.default.fileExists(atPath: store), "nothing was opened")
    #expect(try runTool(["--store", store, "search", "--format", "json"]).status == 2)
    #expect(
      try runTool(["--store", store, "search", "--once", "--term", "tetris", "--offline", "/nonexistent"])
        .status == 2)
  }
}
