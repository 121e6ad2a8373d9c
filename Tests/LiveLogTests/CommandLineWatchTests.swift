import Foundation
import Testing

@testable import LiveLog

/// `livelog watch` in one process while `livelog ingest` writes from another.
@Suite struct CommandLineWatchTests {
  @Test func watchFollowsTheTetrisSearchAcrossProcesses() throws {
    let directory = try TemporaryDirectory()
    let store = directory.child("store")
    let tool = CommandLineTool(store: store)
    // The 2014 search first; the watch starts there.
    #expect(try tool.run(["ingest", Fixtures.searchResponse("05")]).status == 0)
    let start = 31  // a schema event creates the collection, then 30 upserts
    // 2019 then about 2020, as two commits of another process.
    let watch = Process()
    watch.executableURL = URL(fileURLWithPath: CommandLineTool.executable)
    let until = start + 30 + 27  // the two commits' events (see the assertions below)
    watch.arguments = [
      "--store", store, "watch", "full_name CONTAINS[c] 'tetris'", "--sort", "stargazers_count:desc",
      "--format",
      "json", "--ids", "--until", String(until),
    ]
    let pipe = Pipe()
    watch.standardOutput = pipe
    try watch.run()
    // Ended on every way out: a throw below would leave it waiting for --until forever.
    defer { if watch.isRunning { Reliability.kill9(watch) } }
    Thread.sleep(forTimeInterval: 0.5)
    let ingest = try tool.run([
      "ingest", "--format", "json", "--every-version", Fixtures.searchResponse("11"),
      Fixtures.searchResponse("06"),
    ])
    let summary = try JSONSerialization.jsonObject(with: Data(ingest.stdout.utf8)) as? [String: Any]
    #expect(summary?["last_lsn"] as? Int == until)
    let output = pipe.fileHandleForReading.readDataToEndOfFile()
    watch.waitUntilExit()
    #expect(watch.terminationStatus == 0)
    let lines = String(decoding: output, as: UTF8.self).split(separator: "\n")
    let objects = try lines.map {
      try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
    }
    #expect(objects.map { $0["kind"] as? String } == ["initial", "update", "update"])
    #expect(objects.map { $0["lsn"] as? Int } == [start, start + 30, until])

    // Each changeset turns the previous ids into the next, and the ids are the query's.
    var previous = try #require(objects.first?["ids"] as? [Int])
    for object in objects.dropFirst() {
      let ids = try #require(object["ids"] as? [Int])
      var rows = previous
      let deletions = try #require(object["deletions"] as? [Int])
      let insertions = try #require(object["insertions"] as? [Int])
      for index in deletions.sorted(by: >) { rows.remove(at: index) }
      for index in insertions.sorted() { rows.insert(ids[index], at: index) }
      #expect(rows == ids)
      previous = ids
    }
    let local = try Store(
      directory: store,
      options: {
        var o = StoreOptions()
        o.readOnly = true
        return o
      }())
    let query = try Query(parsing: "full_name CONTAINS[c] 'tetris' SORT(stargazers_count DESC)")
    #expect(previous.map(Int64.init) == (try local.results(query).ids()))

    // Edits are modifications, reordering star counts are moves, new repositories insertions,
    // and the rename cjauvin/tetris-c64 → tetris-464 keeps its row (never deleted).
    let updates = objects.dropFirst()
    #expect(updates.contains { !(($0["modifications"] as? [Int]) ?? []).isEmpty })
    #expect(updates.contains { !(($0["moves"] as? [[Int]]) ?? []).isEmpty })
    #expect(
      updates.contains {
        (($0["insertions"] as? [Int]) ?? []).count > (($0["moves"] as? [[Int]]) ?? []).count
      })
    var before = try #require(objects.first?["ids"] as? [Int])
    for object in updates {
      let moves = Set(((object["moves"] as? [[Int]]) ?? []).map { $0[0] })
      for index in (object["deletions"] as? [Int]) ?? [] where !moves.contains(index) {
        #expect(before[index] != 4_731_946)
      }
      before = (object["ids"] as? [Int]) ?? []
    }
  }
}
