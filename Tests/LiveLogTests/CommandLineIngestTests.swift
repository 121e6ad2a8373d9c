import Foundation
import Testing

@testable import LiveLog

/// The command-line contract of `ingest`, `log` and `stats`, driven through the real executable.
@Suite struct CommandLineIngestTests {
  @Test func ingestingTheAPIFilesTwiceAppendsNothingTheSecondTime() throws {
    let directory = try TemporaryDirectory()
    let tool = CommandLineTool(store: directory.child("store"))
    let first = try tool.run(["ingest", "--format", "json"] + Fixtures.apiRepoFiles)
    #expect(first.status == 0, "\(first.stderr)")
    let summary = try JSONSerialization.jsonObject(with: Data(first.stdout.utf8)) as? [String: Any]
    #expect(summary?["inserted"] as? Int == 3_965)
    #expect(summary?["commits"] as? Int == 5)
    let second = try tool.run(["ingest", "--format", "json"] + Fixtures.apiRepoFiles)
    let again = try JSONSerialization.jsonObject(with: Data(second.stdout.utf8)) as? [String: Any]
    #expect(again?["commits"] as? Int == 0)
    #expect(again?["unchanged"] as? Int == 3_965)
    #expect(again?["first_lsn"] is NSNull)

    let stats = try tool.run(["stats", "--format", "json"])
    let figures = try JSONSerialization.jsonObject(with: Data(stats.stdout.utf8)) as? [String: Any]
    #expect(figures?["records"] as? Int == 3_965)
    // The first event creates the repositories collection.
    #expect(figures?["version"] as? Int == 3_966)

    let log = try tool.run(["log", "--format", "ndjson"])
    let lines = log.stdout.split(separator: "\n")
    #expect(lines.count == 3_966)
    for (index, line) in lines.enumerated() {
      let event = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
      #expect(event?["lsn"] as? Int == index + 1)
      #expect(event?["collection"] as? String == "repositories")
      if index == 0 {
        #expect(event?["op"] as? String == "schema" && event?["schema"] is [String: Any])
        continue
      }
      #expect(event?["op"] as? String == "upsert")
      #expect(event?["time"] is String && event?["id"] is Int && event?["record"] is [String: Any])
    }
  }

  @Test func everyVersionRecordsEachObservation() throws {
    let directory = try TemporaryDirectory()
    let tool = CommandLineTool(store: directory.child("store"))
    let files = ["05", "11", "06"].map(Fixtures.searchResponse)
    let result = try tool.run(["ingest", "--every-version", "--format", "json"] + files)
    let summary = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
    #expect(summary?["commits"] as? Int == 3)
    #expect((summary?["updated"] as? Int ?? 0) > 0)
  }

  @Test(arguments: [
    ("truncated.json", #"{"items": [{"id": 1, "full_name": "a/b"}, {"id": 2, "full_"#, "truncated.json:1:"),
    (
      "no-id.ndjson", "{\"id\": 1, \"full_name\": \"a/b\"}\n{\"full_name\": \"c/d\"}\n",
      "no-id.ndjson:2:1: field 'id'"
    ),
    (
      "types.ndjson", "{\"id\": 1, \"full_name\": \"a/b\", \"fork\": \"yes\"}\n",
      "types.ndjson:1:39: field 'fork'"
    ),
    (
      "long.ndjson",
      "{\"id\": 1, \"full_name\": \"a/b\", \"description\": \"\(String(repeating: "é", count: 600_000))\"}\n",
      "field 'description'"
    ),
  ])
  func badInputExitsTwoNamesThePlaceAndWritesNothing(name: String, content: String, expected: String) throws {
    let directory = try TemporaryDirectory()
    let tool = CommandLineTool(store: directory.child("store"))
    let good = directory.child("good.ndjson")
    try Data("{\"id\": 7, \"full_name\": \"x/y\"}\n".utf8).write(to: URL(fileURLWithPath: good))
    #expect(try tool.run(["ingest", good]).status == 0)
    let bad = directory.child(name)
    try Data(content.utf8).write(to: URL(fileURLWithPath: bad))
    // The good file first: nothing of it may be committed either.
    let other = directory.child("other.ndjson")
    try Data("{\"id\": 8, \"full_name\": \"x/z\"}\n".utf8).write(to: URL(fileURLWithPath: other))
    let result = try tool.run(["ingest", other, bad])
    #expect(result.status == 2)
    #expect(result.stderr.contains(expected), "\(result.stderr.prefix(300))")
    let stats = try tool.run(["stats", "--format", "json"])
    let figures = try JSONSerialization.jsonObject(with: Data(stats.stdout.utf8)) as? [String: Any]
    // The schema event and the good record.
    #expect(figures?["version"] as? Int == 2)
  }

  @Test func invalidUTF8OnStandardInputExitsTwo() throws {
    let directory = try TemporaryDirectory()
    let tool = CommandLineTool(store: directory.child("store"))
    let path = directory.child("bad.ndjson")
    try Data([
      0x7B, 0x22, 0x69, 0x64, 0x22, 0x3A, 0x31, 0x2C, 0x22, 0x66, 0x75, 0x6C, 0x6C, 0x5F, 0x6E, 0x61, 0x6D,
      0x65, 0x22, 0x3A, 0x22, 0xFF, 0x22, 0x7D,
    ])
    .write(to: URL(fileURLWithPath: path))
    let result = try tool.run(["ingest", path])
    #expect(result.status == 2)
    #expect(result.stderr.contains("UTF-8"))
  }

  @Test func usageErrorsExitTwoWithHelp() throws {
    let directory = try TemporaryDirectory()
    let tool = CommandLineTool(store: directory.child("store"))
    #expect(try tool.run(["ingest"]).status == 2)
    #expect(try tool.run(["ingest", "--batch", "zero", "x"]).status == 2)
    #expect(try tool.run(["frobnicate"]).status == 2)
    #expect(try tool.run(["log", "--colour"]).status == 2)
    let help = try tool.run(["ingest", "--help"])
    #expect(help.status == 0 && help.stdout.contains("usage: livelog ingest"))
    let missing = try tool.run(["ingest", directory.child("nope.json")])
    #expect(missing.status == 2 && missing.stderr.contains("no such file"))
  }

  @Test func standardInputAndBatchesCommitInChunks() throws {
    let directory = try TemporaryDirectory()
    let tool = CommandLineTool(store: directory.child("store"))
    let lines = (1...25).map { "{\"id\": \($0), \"full_name\": \"o/r\($0)\"}" }.joined(separator: "\n")
    let result = try tool.run(["ingest", "--batch", "10", "--format", "json", "-"], input: lines)
    let summary = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
    #expect(summary?["commits"] as? Int == 3)
    #expect(summary?["last_lsn"] as? Int == 26)
    let log = try tool.run(["log", "--format", "ndjson", "--from", "11", "--to", "12"])
    let ends = log.stdout.split(separator: "\n").map { $0.contains("\"commit_end\":true") }
    #expect(ends == [true, false])
  }

  /// `--writers`: batches committed from several threads at once end in the records the input
  /// says (the last version of each key, deletes applied), each commit acknowledged once.
  @Test(arguments: [(batch: 7, writers: 4), (batch: 300, writers: 3)])
  func concurrentWritersEndInTheInputsRecords(batch: Int, writers: Int) throws {
    let directory = try TemporaryDirectory()
    let tool = CommandLineTool(store: directory.child("store"))
    var random = SplitMix64(seed: UInt64(batch * 100 + writers))
    var expected: [Int: String] = [:]
    var lines: [String] = []
    for step in 0..<1_000 {
      let id = Int(random.next() % 400) + 1
      if random.next() % 10 == 0 {
        lines.append("{\"delete\": \(id)}")
        expected[id] = nil
      } else {
        lines.append("{\"id\": \(id), \"full_name\": \"o/r\(id)-v\(step)\"}")
        expected[id] = "o/r\(id)-v\(step)"
      }
    }
    let result = try tool.run(
      [
        "ingest", "--batch", "\(batch)", "--writers", "\(writers)", "--progress-lsn", "--format", "json", "-",
      ],
      input: lines.joined(separator: "\n"))
    #expect(result.status == 0, "\(result.stderr)")
    let output = result.stdout.split(separator: "\n")
    let acknowledged = output.dropLast().compactMap { Int($0) }
    let summary = try JSONSerialization.jsonObject(with: Data((output.last ?? "").utf8)) as? [String: Any]
    // One acknowledgement per commit, each a different LSN, the last the store's last.
    #expect(acknowledged.count == summary?["commits"] as? Int)
    #expect(Set(acknowledged).count == acknowledged.count)
    #expect(acknowledged.max() == summary?["last_lsn"] as? Int)

    let query = try tool.run(["query", "TRUEPREDICATE", "--format", "ndjson"])
    var found: [Int: String] = [:]
    for line in query.stdout.split(separator: "\n") {
      let record = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
      let id = try #require(record?["id"] as? Int)
      #expect(found[id] == nil, "id \(id) listed twice")
      found[id] = record?["full_name"] as? String
    }
    let differing = Set(found.keys).union(expected.keys).filter { found[$0] != expected[$0] }.sorted()
    #expect(
      differing.isEmpty,
      "\(differing.count) ids differ; the first: \(differing.prefix(3).map { "\($0): \(found[$0] ?? "none") for \(expected[$0] ?? "none")" })"
    )
    #expect(try tool.run(["verify"]).status == 0)
  }

  @Test func writersNeedBatchesAndRefuseEveryVersion() throws {
    let directory = try TemporaryDirectory()
    let tool = CommandLineTool(store: directory.child("store"))
    let alone = try tool.run(["ingest", "--writers", "2", "-"], input: "")
    #expect(alone.status == 2 && alone.stderr.contains("--writers needs --batch"), "\(alone.stderr)")
    let versions = try tool.run(
      ["ingest", "--batch", "5", "--writers", "2", "--every-version", "-"], input: "")
    #expect(versions.status == 2 && versions.stderr.contains("--every-version"), "\(versions.stderr)")
    #expect(try tool.run(["ingest", "--batch", "5", "--writers", "0", "-"], input: "").status == 2)
  }
}

/// Standard input and files are mapped, not read into memory: a pipe goes through an unlinked
/// temporary file in `TMPDIR`, which must be gone when the command ends.
@Suite struct CommandLineInputTests {
  static let lines = (1...2_000).map { "{\"id\": \($0), \"full_name\": \"o/r\($0)\"}" }.joined(
    separator: "\n")

  @Test func aPipeIsSpooledToATemporaryFileThatDoesNotOutliveTheCommand() throws {
    let directory = try TemporaryDirectory()
    let spool = directory.child("tmp")
    try FileManager.default.createDirectory(atPath: spool, withIntermediateDirectories: false)
    let tool = CommandLineTool(store: directory.child("store"))
    let result = try tool.run(
      ["ingest", "--format", "json", "-"], input: Self.lines, environment: ["TMPDIR": spool])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdout.contains("\"inserted\":2000"))
    #expect(try FileManager.default.contentsOfDirectory(atPath: spool) == [])
  }

  @Test func aPipeWithoutRoomForItsCopySaysWhereToPutIt() throws {
    let directory = try TemporaryDirectory()
    let tool = CommandLineTool(store: directory.child("store"))
    let result = try tool.run(
      ["ingest", "-"], input: Self.lines, environment: ["TMPDIR": directory.child("missing")])
    #expect(result.status == 2)
    #expect(result.stderr.contains("TMPDIR"), "\(result.stderr)")
    #expect(!FileManager.default.fileExists(atPath: directory.child("store")))
  }

  @Test func standardInputRedirectedFromAFileIsReadFromThatFile() throws {
    let directory = try TemporaryDirectory()
    let path = directory.child("in.ndjson")
    try Data(Self.lines.utf8).write(to: URL(fileURLWithPath: path))
    let process = Process()
    process.executableURL = URL(fileURLWithPath: CommandLineTool.executable)
    process.arguments = ["--store", directory.child("store"), "ingest", "--format", "json", "-"]
    process.standardInput = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    #expect(process.terminationStatus == 0)
    #expect(text.contains("\"inserted\":2000"), "\(text)")
  }

  @Test func emptyInputsIngestNothing() throws {
    let directory = try TemporaryDirectory()
    let tool = CommandLineTool(store: directory.child("store"))
    let empty = directory.child("empty.ndjson")
    _ = FileManager.default.createFile(atPath: empty, contents: Data())
    for arguments in [["ingest", "--format", "json", empty], ["ingest", "--format", "json", "-"]] {
      let result = try tool.run(arguments, input: "")
      #expect(result.status == 0, "\(arguments): \(result.stderr)")
      #expect(result.stdout.contains("\"inserted\":0"), "\(arguments): \(result.stdout)")
    }
  }
}
