import Foundation
import Testing

/// `livelog collection` and `--collection` on a collection of an app's own type: the open-source
/// iOS apps of `Tests/Fixtures/apps`, keyed by URL. The answers are checked against the fixture
/// read with Foundation's JSON parser and filtered here, sharing no code with the store.
@Suite struct CommandLineCollectionTests {
  static let schema = Fixtures.apps("apps.schema.json")
  static let apps = Fixtures.apps("apps.ndjson")
  static let changes = ["changes-1.ndjson", "changes-2.ndjson"].map(Fixtures.apps)

  /// The fixture's records by URL after `files`, as Foundation reads them.
  static func oracle(_ files: [String]) throws -> [String: [String: Any]] {
    var records: [String: [String: Any]] = [:]
    for file in files {
      let text = try String(contentsOfFile: file, encoding: .utf8)
      for line in text.split(separator: "\n") {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        if let key = object["delete"] as? String {
          records[key] = nil
        } else {
          records[try #require(object["url"] as? String)] = object
        }
      }
    }
    return records
  }

  /// The URLs `query` prints as NDJSON.
  static func urls(_ tool: CommandLineTool, _ arguments: [String]) throws -> [String] {
    let result = try tool.run(["query", "--collection", "apps", "--format", "ndjson"] + arguments)
    #expect(result.status == 0, "\(result.stderr)")
    return try result.stdout.split(separator: "\n").map {
      let object = try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
      return try #require(object["url"] as? String)
    }
  }

  static func loadedStore(_ store: String, changes: Bool) throws -> CommandLineTool {
    let tool = CommandLineTool(store: store)
    let created = try tool.run(["collection", "create", "apps", "--schema", schema])
    #expect(created.status == 0, "\(created.stderr)")
    // The changes in an ingest of their own: one ingest keeps only the last version of a key.
    for files in [[apps]] + (changes ? [Self.changes] : []) {
      let ingested = try tool.run(["ingest", "--collection", "apps"] + files)
      #expect(ingested.status == 0, "\(ingested.stderr)")
    }
    return tool
  }

  @Test func queriesOnTheAppsAgreeWithAFilterOverTheFixture() throws {
    let directory = try TemporaryDirectory()
    let tool = try Self.loadedStore(directory.child("store"), changes: true)
    let records = try Self.oracle([Self.apps] + Self.changes)
    func stars(_ record: [String: Any]) -> Int? { record["stars"] as? Int }
    func tags(_ record: [String: Any]) -> [String] { record["tags"] as? [String] ?? [] }

    let popularSwift = records.values.filter { tags($0).contains("swift") && (stars($0) ?? 0) >= 1_000 }
    let sorted = try Self.urls(tool, ["ANY tags == 'swift' AND stars >= 1000", "--sort", "stars:desc"])
    #expect(Set(sorted) == Set(popularSwift.compactMap { $0["url"] as? String }))
    let starsInOrder = sorted.compactMap { records[$0].flatMap(stars) }
    #expect(starsInOrder == starsInOrder.sorted(by: >) && starsInOrder.count == sorted.count)

    let chat = records.values.filter { ($0["title"] as? String)?.lowercased().contains("chat") == true }
    #expect(
      Set(try Self.urls(tool, ["title CONTAINS[c] 'chat'"])) == Set(chat.compactMap { $0["url"] as? String }))

    // The dates are ISO 8601 in UTC with whole seconds, so text order is time order.
    let recent = records.values.filter { ($0["updated"] as? String ?? "") >= "2026-07-20T12:00:00Z" }
    #expect(
      Set(try Self.urls(tool, ["updated >= 2026-07-20T12:00:00Z"]))
        == Set(recent.compactMap { $0["url"] as? String }))

    let unlicensed = records.values.filter { $0["license"] == nil }
    #expect(
      Set(try Self.urls(tool, ["license == nil"])) == Set(unlicensed.compactMap { $0["url"] as? String }))

    let stats = try tool.run(["collection", "list", "--format", "json"])
    let list = try #require(
      try JSONSerialization.jsonObject(with: Data(stats.stdout.utf8)) as? [[String: Any]])
    #expect(list.count == 1 && list.first?["name"] as? String == "apps")
    #expect(list.first?["records"] as? Int == records.count)
  }

  @Test func showPrintsTheSchemaAndItsHistory() throws {
    let directory = try TemporaryDirectory()
    let tool = try Self.loadedStore(directory.child("store"), changes: false)
    let shown = try tool.run(["collection", "show", "apps"])
    let schema = try #require(
      try JSONSerialization.jsonObject(with: Data(shown.stdout.utf8)) as? [String: Any])
    let declared = try #require(
      try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: Self.schema)))
        as? [String: Any])
    #expect(schema["primary_key"] as? String == "url")
    let names = { (schema: [String: Any]) in
      (schema["fields"] as? [[String: Any]])?.compactMap { $0["name"] as? String }
    }
    #expect(names(schema) == names(declared))

    // A compatible change (an optional field and an index added) makes version 2 and builds the
    // index from the records already there.
    var fields = try #require(declared["fields"] as? [[String: Any]])
    fields.append(["name": "homepage", "type": "string"])
    if let license = fields.firstIndex(where: { $0["name"] as? String == "license" }) {
      fields[license]["indexes"] = ["equality", "substring"]
    }
    var evolved = declared
    evolved["fields"] = fields
    let file = directory.child("evolved.json")
    try JSONSerialization.data(withJSONObject: evolved).write(to: URL(fileURLWithPath: file))
    let changed = try tool.run(["collection", "create", "apps", "--schema", file])
    #expect(changed.status == 0, "\(changed.stderr)")
    let records = try Self.oracle([Self.apps])
    let gpl = records.values.filter { ($0["license"] as? String)?.contains("gpl") == true }
    #expect(
      Set(try Self.urls(tool, ["license CONTAINS 'gpl'"])) == Set(gpl.compactMap { $0["url"] as? String }))
    let explained = try tool.run(["explain", "--collection", "apps", "license CONTAINS 'gpl'"])
    #expect(explained.stdout.contains("substring index of license"), "\(explained.stdout)")

    let history = try tool.run(["collection", "show", "apps", "--history"])
    let versions = try history.stdout.split(separator: "\n").map {
      try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
    }
    #expect(versions.compactMap { $0["version"] as? Int } == [1, 2])
  }

  @Test(arguments: [
    (
      #"{"name": "apps", "primary_key": "url", "fields": [{"name": "url", "type": "text"}]}"#,
      "unknown type 'text'"
    ),
    (#"{"name": "apps", "primary_key": "id", "fields": [{"name": "url", "type": "string"}]}"#, "'id'"),
    (
      #"{"name": "other", "primary_key": "url", "fields": [{"name": "url", "type": "string"}]}"#, "not 'apps'"
    ),
    (
      #"{"primary_key": "url", "fields": [{"name": "url", "type": "string"}, {"name": "url", "type": "bool"}]}"#,
      "'url'"
    ),
    (#"{"primary_key": "url", "fields": [{"name": "url", "type": "string"}"#, "schema.json:1:"),
  ])
  func aBadSchemaFileExitsTwoAndCreatesNothing(schema: String, expected: String) throws {
    let directory = try TemporaryDirectory()
    let tool = CommandLineTool(store: directory.child("store"))
    let file = directory.child("schema.json")
    try Data(schema.utf8).write(to: URL(fileURLWithPath: file))
    let result = try tool.run(["collection", "create", "apps", "--schema", file])
    #expect(result.status == 2)
    #expect(result.stderr.contains(expected), "\(result.stderr)")
    #expect(!result.stderr.contains("Fatal error"))
    let list = try tool.run(["collection", "list"])
    #expect(!list.stdout.contains("apps"), "\(list.stdout)")
  }

  @Test func anIncompatibleChangeIsRefusedNamingTheField() throws {
    let directory = try TemporaryDirectory()
    let tool = try Self.loadedStore(directory.child("store"), changes: false)
    let file = directory.child("retyped.json")
    let text = try String(contentsOfFile: Self.schema, encoding: .utf8)
      .replacingOccurrences(
        of: #""name": "stars", "type": "integer""#, with: #""name": "stars", "type": "string""#)
    try Data(text.utf8).write(to: URL(fileURLWithPath: file))
    let result = try tool.run(["collection", "create", "apps", "--schema", file])
    #expect(result.status == 2)
    #expect(result.stderr.contains("field 'stars'"), "\(result.stderr)")
    let shown = try tool.run(["collection", "show", "apps", "--history"])
    #expect(shown.stdout.split(separator: "\n").count == 1)
  }

  @Test(arguments: [
    (#"{"url": "https://x", "title": "X", "stars": "many"}"#, "bad.ndjson:2:45: field 'stars'"),
    (#"{"url": "https://x", "stars": 3}"#, "bad.ndjson:2:1: field 'title'"),
    (#"{"title": "X"}"#, "bad.ndjson:2:1: field 'url'"),
    (#"{"url": "https://x", "title": "X", "tags": ["a", 1]}"#, "field 'tags'"),
    (#"{"url": "https://x", "title": "X", "updated": "yesterday"}"#, "field 'updated'"),
    (#"{"delete": 12}"#, "bad.ndjson:2:12: field 'url': expected a string"),
  ])
  func aBadRecordExitsTwoNamingTheFieldAndWritesNothing(line: String, expected: String) throws {
    let directory = try TemporaryDirectory()
    let tool = try Self.loadedStore(directory.child("store"), changes: false)
    let before = try tool.run(["stats", "--format", "json"]).stdout
    let file = directory.child("bad.ndjson")
    try Data("{\"url\": \"https://good\", \"title\": \"Good\"}\n\(line)\n".utf8).write(
      to: URL(fileURLWithPath: file))
    let result = try tool.run(["ingest", "--collection", "apps", file])
    #expect(result.status == 2)
    #expect(result.stderr.contains(expected), "\(result.stderr)")
    #expect(try tool.run(["stats", "--format", "json"]).stdout == before)
  }

  @Test func anUnknownCollectionIsAUsageError() throws {
    let directory = try TemporaryDirectory()
    let tool = try Self.loadedStore(directory.child("store"), changes: false)
    for arguments in [
      ["query", "--collection", "appz", "title == 'x'"], ["ingest", "--collection", "appz", Self.apps],
    ] {
      let result = try tool.run(arguments)
      #expect(result.status == 2)
      #expect(
        result.stderr.contains("no collection 'appz'") && result.stderr.contains("apps"), "\(result.stderr)")
    }
    let field = try tool.run(["query", "--collection", "apps", "stargazers_count > 3"])
    #expect(field.status == 2)
    #expect(field.stderr.contains("unknown field 'stargazers_count'"), "\(field.stderr)")
  }

  @Test func watchFollowsTheAppsAcrossProcesses() throws {
    let directory = try TemporaryDirectory()
    let tool = try Self.loadedStore(directory.child("store"), changes: false)
    let start = try #require(
      (try JSONSerialization.jsonObject(with: Data(try tool.run(["stats", "--format", "json"]).stdout.utf8))
        as? [String: Any])?["version"] as? Int)
    let query = "ANY tags == 'swift' AND stars >= 2000"
    let watch = Process()
    watch.executableURL = URL(fileURLWithPath: CommandLineTool.executable)
    // The version the changes reach, learned from the same ingest into a twin store.
    let twin = try Self.loadedStore(directory.child("twin"), changes: true)
    let until = try #require(
      (try JSONSerialization.jsonObject(with: Data(try twin.run(["stats", "--format", "json"]).stdout.utf8))
        as? [String: Any])?["version"] as? Int)
    watch.arguments = [
      "--store", tool.store, "watch", "--collection", "apps", query, "--sort", "stars:desc", "--format",
      "json",
      "--ids", "--until", String(until),
    ]
    let pipe = Pipe()
    watch.standardOutput = pipe
    try watch.run()
    Thread.sleep(forTimeInterval: 0.5)
    let ingest = try tool.run(["ingest", "--collection", "apps", "--format", "json"] + Self.changes)
    #expect(ingest.status == 0, "\(ingest.stderr)")
    let output = pipe.fileHandleForReading.readDataToEndOfFile()
    watch.waitUntilExit()
    #expect(watch.terminationStatus == 0)
    let objects = try String(decoding: output, as: UTF8.self).split(separator: "\n").map {
      try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
    }
    let first = try #require(objects.first)
    #expect(first["kind"] as? String == "initial" && first["lsn"] as? Int == start)
    #expect(objects.last?["lsn"] as? Int == until)

    // Each changeset turns the previous keys into the next; the last keys are the oracle's.
    var previous = try #require(first["ids"] as? [String])
    for object in objects.dropFirst() {
      let ids = try #require(object["ids"] as? [String])
      var rows = previous
      for index in try #require(object["deletions"] as? [Int]).sorted(by: >) { rows.remove(at: index) }
      for index in try #require(object["insertions"] as? [Int]).sorted() {
        rows.insert(ids[index], at: index)
      }
      #expect(rows == ids)
      previous = ids
    }
    let records = try Self.oracle([Self.apps] + Self.changes)
    let expected = records.values.filter {
      ($0["tags"] as? [String] ?? []).contains("swift") && ($0["stars"] as? Int ?? 0) >= 2_000
    }
    #expect(Set(previous) == Set(expected.compactMap { $0["url"] as? String }))
  }

  @Test func twoCollectionsExportImportAndQueryAsOf() throws {
    let directory = try TemporaryDirectory()
    let tool = try Self.loadedStore(directory.child("store"), changes: false)
    #expect(try tool.run(["ingest", Fixtures.searchResponse("05")]).status == 0)
    let middle = try #require(
      (try JSONSerialization.jsonObject(with: Data(try tool.run(["stats", "--format", "json"]).stdout.utf8))
        as? [String: Any])?["version"] as? Int)
    #expect(try tool.run(["ingest", "--collection", "apps"] + Self.changes).status == 0)

    // As of `middle`, the apps are the fixture before its changes.
    let before = try Self.oracle([Self.apps])
    let swift = before.values.filter {
      ($0["tags"] as? [String] ?? []).contains("swift") && ($0["stars"] as? Int ?? 0) > 500
    }
    let asOf = try Self.urls(tool, ["ANY tags == 'swift' AND stars > 500", "--as-of", String(middle)])
    #expect(Set(asOf) == Set(swift.compactMap { $0["url"] as? String }))

    let export = try tool.run(["export"])
    #expect(export.status == 0, "\(export.stderr)")
    let exported = directory.child("log.ndjson")
    try Data(export.stdout.utf8).write(to: URL(fileURLWithPath: exported))
    let copy = CommandLineTool(store: directory.child("copy"))
    let imported = try copy.run(["import", exported])
    #expect(imported.status == 0, "\(imported.stderr)")
    #expect(try copy.run(["export"]).stdout == export.stdout)
    #expect(try copy.run(["replay", "--verify"]).status == 0)
    for arguments in [
      ["query", "--collection", "apps", "ANY tags == 'swift'", "--sort", "stars:desc", "--format", "ndjson"],
      ["query", "full_name CONTAINS[c] 'tetris'", "--format", "ndjson"],
      ["collection", "list", "--format", "json"],
    ] {
      #expect(try copy.run(arguments).stdout == (try tool.run(arguments).stdout))
    }
  }
}
