import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// `replay --in-place` cannot lose data: killed at every step it takes (each rename, link,
/// unlink and fsync, through the `LIVELOG_CRASH_AT` seam, and at each rename through strace's
/// fault injection), it leaves a store that opens with every acknowledged commit and verifies;
/// it refuses to run beside another process that has the store open; it never starts from, and
/// no command ever opens, a missing data file whose before-repair copy exists.
@Suite(.serialized) struct RepairTests {
  /// The steps a repair passes, as `LIVELOG_CRASH_TRACE` lists them.
  static func steps(of store: String) throws -> [String] {
    let result = try CommandLineTool(store: store).run(
      ["replay", "--in-place"], environment: ["LIVELOG_CRASH_TRACE": "1"])
    #expect(result.status == 0, "\(result.stderr)")
    return result.stderr.split(separator: "\n").filter { $0.hasPrefix("crash point ") }.map(String.init)
  }

  /// After a repair killed anywhere: the store opens, holds exactly the original log, verifies;
  /// a second repair succeeds and changes nothing of the log either.
  static func expectIntact(_ store: String, original: String, acknowledged: Int, _ what: String) throws {
    let tool = CommandLineTool(store: store)
    let stats = try tool.run(["stats", "--format", "json"])
    #expect(stats.status == 0, "\(what): stats: \(stats.stderr)")
    #expect(stats.stdout.contains("\"version\":\(acknowledged),"), "\(what): \(stats.stdout)")
    #expect(try DamageSupport.export(store) == original, "\(what): the log changed")
    let verify = try tool.run(["verify"])
    #expect(verify.status == 0, "\(what): verify: \(verify.stdout)\(verify.stderr)")
    let again = try tool.run(["replay", "--in-place"])
    #expect(again.status == 0, "\(what): the next repair: \(again.stderr)")
    #expect(try DamageSupport.export(store) == original, "\(what): the log changed in the next repair")
    let names = try FileManager.default.contentsOfDirectory(atPath: store).sorted()
    #expect(names == ["LIVELOG", "data.mdb", "data.mdb.before-repair", "lock.mdb"], "\(what): \(names)")
  }

  @Test func aRepairKilledAtEveryStepLosesNoAcknowledgedCommit() throws {
    let directory = try TemporaryDirectory()
    let pristine = directory.child("pristine")
    let acknowledged = try DamageSupport.makeStore(at: pristine, count: 400, batch: 20)
    let last = try #require(acknowledged.last)
    let original = try DamageSupport.export(pristine)
    let probe = directory.child("probe")
    try DamageSupport.copy(pristine, to: probe)
    let steps = try Self.steps(of: probe)
    // Invalidating the lock file, syncing the new file and its directory, the hard link, two
    // renames with their syncs, the scratch directory's removal.
    #expect(steps.count >= 10, "\(steps)")
    #expect(steps.contains { $0.contains("rename") } && steps.contains { $0.contains("fsync") })
    var lost = 0
    for step in 1...steps.count + 1 {
      let store = directory.child("kill-\(step)")
      try DamageSupport.copy(pristine, to: store)
      let killed = try CommandLineTool(store: store).run(
        ["replay", "--in-place"], environment: ["LIVELOG_CRASH_AT": String(step)])
      if step <= steps.count {
        #expect(
          killed.signalled && killed.status == SIGKILL, "step \(step) (\(steps[step - 1])): \(killed.stderr)")
      } else {
        #expect(killed.status == 0, "\(killed.stderr)")
      }
      let version = try Reliability.version(CommandLineTool(store: store))
      lost += max(0, last - version)
      try Self.expectIntact(store, original: original, acknowledged: last, "killed before step \(step)")
      try? FileManager.default.removeItem(atPath: store)
    }
    #expect(lost == 0)
    print(
      "repair kill campaign: \(steps.count + 1) kill points, \(acknowledged.count) acknowledged commits, \(lost) lost"
    )
  }

  /// The same at each rename, by the kernel's count rather than the seam's: strace kills the
  /// process as it enters its Nth rename system call.
  @Test func aRepairKilledByStraceAtEachRenameLosesNothing() throws {
    guard FileManager.default.isExecutableFile(atPath: "/usr/bin/strace") else {
      try Test.cancel(
        "skipped: strace is not installed (scripts/ensure-package.sh strace /usr/bin/strace strace)")
    }
    // Where ptrace is not allowed (some containers), strace fails at once: every run would then
    // count as a kill that never happened.
    guard try CommandLineTool.launch("/usr/bin/strace", ["-qq", "-o", "/dev/null", "/bin/true"]).status == 0
    else {
      try Test.cancel("skipped: strace cannot trace here (ptrace is not permitted)")
    }
    let directory = try TemporaryDirectory()
    let pristine = directory.child("pristine")
    let acknowledged = try DamageSupport.makeStore(at: pristine, count: 200, batch: 20)
    let last = try #require(acknowledged.last)
    let original = try DamageSupport.export(pristine)
    let calls = "rename,renameat,renameat2,link,linkat"
    var killedAt = 0
    for count in 1...6 {
      let store = directory.child("strace-\(count)")
      try DamageSupport.copy(pristine, to: store)
      let result = try CommandLineTool.launch(
        "/usr/bin/strace",
        [
          "-f", "-qq", "-o", "/dev/null", "-e", "trace=\(calls)", "-e",
          "inject=\(calls):signal=SIGKILL:when=\(count)",
          CommandLineTool.executable, "--store", store, "replay", "--in-place",
        ])
      if result.status != 0 { killedAt += 1 }
      try Self.expectIntact(store, original: original, acknowledged: last, "strace kill at call \(count)")
      try? FileManager.default.removeItem(atPath: store)
      if result.status == 0 { break }
    }
    // The link and both renames were each a kill point.
    #expect(killedAt >= 3)
  }

  @Test func aRepairRefusesWhileAnotherProcessHasTheStoreOpen() throws {
    let directory = try TemporaryDirectory()
    let store = directory.child("store")
    let acknowledged = try DamageSupport.makeStore(at: store, count: 100, batch: 10)
    let original = try DamageSupport.export(store)
    let data = FileManager.default.contents(atPath: store + "/data.mdb")
    // A follower between two polls holds no reader slot, but it has the environment open.
    let follower = try ProcessTests.start(store, ["log", "--follow", "--from", "999999999"])
    defer { Reliability.kill9(follower) }
    #expect(Reliability.waitUntilMapped(follower, store + "/data.mdb"), "the follower never opened the store")
    let refused = try CommandLineTool(store: store).run(["replay", "--in-place"])
    #expect(refused.status == 1, "\(refused.stdout)\(refused.stderr)")
    #expect(refused.stderr.contains("is open in process \(follower.processIdentifier)"), "\(refused.stderr)")
    #expect(refused.stderr.contains("Nothing was changed"))
    #expect(FileManager.default.contents(atPath: store + "/data.mdb") == data)
    #expect(!FileManager.default.fileExists(atPath: store + "/data.mdb.before-repair"))
    Reliability.kill9(follower)
    let repaired = try CommandLineTool(store: store).run(["replay", "--in-place"])
    #expect(repaired.status == 0, "\(repaired.stderr)")
    #expect(try DamageSupport.export(store) == original)
    #expect(try Reliability.version(CommandLineTool(store: store)) == acknowledged.last)
  }

  /// A writer that opens the store while the repair holds it waits, then commits into the
  /// rebuilt file: nothing it acknowledged is only in the old one.
  @Test func aWriterThatArrivesDuringARepairCommitsIntoTheRebuiltFile() throws {
    let directory = try TemporaryDirectory()
    let store = directory.child("store")
    let first = try DamageSupport.makeStore(at: store, count: 200, batch: 20)
    let repair = Process()
    repair.executableURL = URL(fileURLWithPath: CommandLineTool.executable)
    repair.arguments = ["--store", store, "replay", "--in-place"]
    // Two seconds before the rename that swaps the files in.
    repair.environment = ProcessInfo.processInfo.environment.merging(["LIVELOG_PAUSE_AT": "9"]) { $1 }
    repair.standardOutput = FileHandle.nullDevice
    repair.standardError = FileHandle.nullDevice
    try repair.run()
    defer { if repair.isRunning { Reliability.kill9(repair) } }
    usleep(700_000)
    let input = directory.child("more.ndjson")
    try Reliability.write(Reliability.repositories(from: 900_000, count: 30, tag: "during"), to: input)
    let started = Date()
    let writer = try CommandLineTool(store: store).run(["ingest", "--batch", "10", "--progress-lsn", input])
    #expect(writer.status == 0, "\(writer.stderr)")
    #expect(Date().timeIntervalSince(started) > 0.5, "the writer did not wait for the repair")
    repair.waitUntilExit()
    #expect(repair.terminationStatus == 0)
    let acknowledged = LimitTests.progress(writer.stdout)
    #expect(acknowledged.last == (first.last ?? 0) + 30)
    let tool = CommandLineTool(store: store)
    #expect(try Reliability.version(tool) == acknowledged.last)
    #expect(try tool.run(["verify"]).status == 0)
  }

  /// The state an interrupted repair of an older LiveLog left: the data file gone, its copy
  /// beside it. No command opens it as a new empty store; each says what to do.
  @Test func aMissingDataFileWithABeforeRepairCopyIsNeverReplacedByAnEmptyStore() throws {
    let directory = try TemporaryDirectory()
    let store = directory.child("store")
    let version = try #require(try DamageSupport.makeStore(at: store, count: 100, batch: 10).last)
    let original = try DamageSupport.export(store)
    #expect(rename(store + "/data.mdb", store + "/data.mdb.before-repair") == 0)
    let good = directory.child("good.ndjson")
    try Reliability.write(Reliability.repositories(from: 1, count: 2, tag: "x"), to: good)
    for arguments in [
      ["ingest", good], ["stats"], ["log"], ["query", "id > 0"], ["verify"], ["replay", "--in-place"],
    ] {
      let result = try CommandLineTool(store: store).run(arguments)
      #expect(result.status == 1, "\(arguments): \(result.stdout)")
      #expect(
        result.stderr.contains("data.mdb.before-repair holds the store"), "\(arguments): \(result.stderr)")
      #expect(result.stderr.contains("its log holds \(version) events"), "\(arguments): \(result.stderr)")
      #expect(result.stderr.contains("mv "), "\(arguments): \(result.stderr)")
      #expect(!FileManager.default.fileExists(atPath: store + "/data.mdb"), "\(arguments) made a data file")
    }
    // An empty data file is refused the same way.
    #expect(FileManager.default.createFile(atPath: store + "/data.mdb", contents: Data()))
    #expect(try CommandLineTool(store: store).run(["ingest", good]).status == 1)
    #expect(Reliability.fileSize(store + "/data.mdb") == 0)
    // The advice works.
    #expect(rename(store + "/data.mdb.before-repair", store + "/data.mdb") == 0)
    #expect(try DamageSupport.export(store) == original)
  }

  @Test func aRepairOfAPathWithoutAStoreCreatesNothing() throws {
    let directory = try TemporaryDirectory()
    let missing = directory.child("no-such-store")
    let result = try CommandLineTool(store: missing).run(["replay", "--in-place"])
    #expect(result.status == 1)
    #expect(result.stderr.contains("there is no store at \(missing)"), "\(result.stderr)")
    #expect(!StorePathProbe.exists(missing))
  }
}

/// lstat, for tests that must see dangling links too.
enum StorePathProbe {
  static func exists(_ path: String) -> Bool {
    var status = stat()
    return lstat(path, &status) == 0
  }
}
