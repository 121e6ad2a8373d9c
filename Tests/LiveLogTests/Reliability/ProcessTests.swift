import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Several processes on one store: writers that interleave, and a reader killed inside its
/// snapshot, whose slot the next open clears so that the file stops growing.
@Suite(.serialized) struct ProcessTests {
  /// Starts `livelog --store STORE arguments...` without waiting; standard output goes to
  /// `output` (a file, or a pipe the caller may leave unread).
  static func start(_ store: String, _ arguments: [String], output: Any? = nil) throws -> Process {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: CommandLineTool.executable)
    process.arguments = ["--store", store] + arguments
    process.standardOutput = output ?? FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    process.standardInput = FileHandle.nullDevice
    try process.run()
    return process
  }

  @Test func twoWriterProcessesInterleaveWholeCommits() throws {
    let directory = try TemporaryDirectory()
    let store = directory.child("store")
    let tool = CommandLineTool(store: store)
    #expect(try tool.run(["ingest", "-"], input: "").status == 0)
    // Writer A takes ids from 1, writer B from 100,001: 2,000 each in commits of 10.
    var writers: [(Process, output: String)] = []
    defer { for (process, _) in writers where process.isRunning { Reliability.kill9(process) } }
    for (name, first) in [("a", 1), ("b", 100_001)] {
      let input = directory.child("\(name).ndjson")
      try Reliability.write(Reliability.repositories(from: first, count: 2_000, tag: name), to: input)
      let output = directory.child("\(name).out")
      #expect(FileManager.default.createFile(atPath: output, contents: nil))
      let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: output))
      let process = try Self.start(
        store, ["ingest", "--batch", "10", "--progress-lsn", input], output: handle)
      writers.append((process, output))
    }
    var commits: [[Int]] = []
    for (process, output) in writers {
      process.waitUntilExit()
      #expect(process.terminationStatus == 0)
      let text = try String(contentsOfFile: output, encoding: .utf8)
      commits.append(LimitTests.progress(text))
    }
    #expect(commits[0].count == 200 && commits[1].count == 200)
    #expect(Set(commits[0]).isDisjoint(with: commits[1]))
    let figures = try Reliability.statistics(tool)
    #expect(figures["records"] as? Int == 4_000)
    #expect(figures["version"] as? Int == 4_001)
    // Each commit is whole: the ten events before a commit's last LSN are all its writer's.
    let log = try tool.run(["log", "--format", "ndjson"])
    // Indexed by LSN: the schema event that created the collection is LSN 1, id 0 here.
    let ids = try log.stdout.split(separator: "\n").map { line -> Int in
      let event = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
      return event?["id"] as? Int ?? 0
    }
    #expect(ids.count == 4_001)
    for (writer, lastLSNs) in commits.enumerated() {
      for last in lastLSNs where last >= 10 {
        let owners = Set(ids[(last - 10)..<last].map { $0 > 100_000 ? 1 : 0 })
        #expect(owners == [writer], "commit ending at \(last) mixes writers")
      }
    }
    #expect(try tool.run(["verify"]).status == 0)
    // Record how far the two interleaved (not required: the scheduler decides).
    let switches = zip(ids, ids.dropFirst()).filter { ($0 > 100_000) != ($1 > 100_000) }.count
    print("two writers: \(switches) switches between writers in the log")
  }

  @Test func aKilledReaderStopsPinningPagesOnceTheNextOpenClearsItsSlot() throws {
    let directory = try TemporaryDirectory()
    let store = directory.child("store")
    let tool = CommandLineTool(store: store)
    /// Overwrites 300 repositories; returns the bytes of the data file that no database uses:
    /// pages freed by earlier commits that a reader's snapshot may still see. (The file as a
    /// whole always grows by the log, which keeps every version.)
    func overwrite(_ round: Int) throws -> Int {
      let input = directory.child("round.ndjson")
      // A tag one byte longer each round moves every trigram of the text: each round rewrites
      // the pages of its postings.
      try Reliability.write(
        Reliability.repositories(
          from: 1, count: 300, tag: "round" + String(repeating: "r", count: round), descriptionBytes: 2_000),
        to: input)
      let result = try tool.run(["ingest", input])
      #expect(result.status == 0, "\(result.stderr)")
      let figures = try Reliability.statistics(tool)
      let databases = figures["databases"] as? [String: [String: Int]] ?? [:]
      let used = databases.values.reduce(0) { $0 + ($1["bytes"] ?? 0) }
      return (figures["file_size"] as? Int ?? 0) - used
    }
    _ = try overwrite(0)
    // A follower that stays open keeps LMDB from resetting the reader table on a fresh open.
    let witness = try Self.start(store, ["log", "--follow", "--from", "999999999999"])
    defer { if witness.isRunning { Reliability.kill9(witness) } }
    // A reader whose output nobody reads blocks inside its snapshot once the pipe is full.
    let pipe = Pipe()
    let reader = try Self.start(store, ["log", "--follow", "--format", "ndjson"], output: pipe)
    defer { if reader.isRunning { Reliability.kill9(reader) } }
    let stuck = try Reliability.wait(seconds: 10) {
      (try Reliability.statistics(tool)["readers_active"] as? Int ?? 0) >= 1
    }
    #expect(stuck, "the reader never held its snapshot")
    var pinned: [Int] = []
    for round in 1...8 { pinned.append(try overwrite(round)) }
    Reliability.kill9(reader)
    let cleared = try Reliability.statistics(tool)
    #expect(cleared["stale_readers_cleared"] as? Int == 1)
    #expect(cleared["readers_active"] as? Int ?? 99 <= 1)
    var freed: [Int] = []
    for round in 9...24 { freed.append(try overwrite(round)) }
    print(
      "unused bytes of data.mdb while the reader pinned pages: \(pinned); after its slot was cleared: \(freed)"
    )
    // While pinned, every round's replaced index pages stay unusable: the unused part
    // of the file grows by megabytes a round. Once the slot is cleared they are reused: the
    // unused part stops growing and shrinks as commits take pages from it.
    #expect((pinned.last ?? 0) - (pinned.first ?? 0) > 3_000_000)
    #expect(freed.allSatisfy { $0 <= (pinned.last ?? 0) })
    #expect((freed.last ?? 0) < (pinned.last ?? 0) / 2)
    #expect(try tool.run(["verify"]).status == 0)
    _ = pipe
  }
}
