import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Every path problem is a clear error naming the path and what to do, never a raw Foundation
/// error, and nothing that was there is removed; verifies and replays leave no scratch
/// directory behind, and sweep those of processes that died.
@Suite(.serialized) struct PathTests {
  @Test func replayIntoADanglingSymbolicLinkKeepsTheLinkAndSaysWhatItIs() throws {
    let directory = try TemporaryDirectory()
    let store = directory.child("store")
    try DamageSupport.makeStore(at: store, count: 20, batch: 10)
    let link = directory.child("rebuilt")
    #expect(symlink(directory.child("nowhere/at/all"), link) == 0)
    let result = try CommandLineTool(store: store).run(["replay", "--into", link])
    #expect(result.status == 1)
    #expect(result.stderr.contains("\(link) cannot hold a store"), "\(result.stderr)")
    #expect(
      result.stderr.contains("symbolic link to \(directory.child("nowhere/at/all")), which does not exist"))
    #expect(!result.stderr.contains("NSCocoaErrorDomain"))
    #expect(StorePathProbe.exists(link), "the link was removed")
  }

  @Test func aStoreBelowAFileIsAClearError() throws {
    let directory = try TemporaryDirectory()
    let file = directory.child("a-file")
    try Reliability.write("not a directory", to: file)
    let store = file + "/below/store"
    for arguments in [["ingest", "-"], ["stats"], ["replay", "--in-place"]] {
      let result = try CommandLineTool(store: store).run(arguments, input: "")
      #expect(result.status == 1, "\(arguments)")
      #expect(result.stderr.contains("\(file) is a file, not a directory"), "\(arguments): \(result.stderr)")
      #expect(!result.stderr.contains("NSCocoaErrorDomain") && !result.stderr.contains("Code="))
    }
    let into = try CommandLineTool(store: directory.child("store")).run(["ingest", "-"], input: "")
    #expect(into.status == 0)
    let replay = try CommandLineTool(store: directory.child("store")).run(["replay", "--into", file + "/x"])
    #expect(replay.status == 1)
    #expect(replay.stderr.contains("is a file, not a directory"), "\(replay.stderr)")
    #expect(try String(contentsOfFile: file, encoding: .utf8) == "not a directory")
  }

  /// A parent this user may not write: as root, through setpriv as nobody (root may write
  /// anywhere); as another user, a directory made read-only.
  @Test func aStoreInAnUnwritableParentIsAClearError() throws {
    let directory = try TemporaryDirectory()
    let parent = directory.child("locked")
    try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
    #expect(chmod(parent, 0o555) == 0 && chmod(directory.path, 0o755) == 0)
    defer { _ = chmod(parent, 0o755) }
    let store = parent + "/store"
    let result: CommandLineTool.Result
    if Reliability.isRoot {
      guard FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") else {
        try Test.cancel("skipped: running as root without setpriv to drop to another user")
      }
      let binary = try CommandLineTool.copyOfExecutable(in: directory.path)
      result = try CommandLineTool.launchAsNobody(binary, ["--store", store, "ingest", "-"], input: "")
    } else {
      result = try CommandLineTool(store: store).run(["ingest", "-"], input: "")
    }
    #expect(result.status == 1, "\(result.stderr)")
    #expect(
      result.stderr.contains("the directory \(parent) is not writable by this user"), "\(result.stderr)")
    #expect(!result.stderr.contains("NSCocoaErrorDomain"))
    #expect(!StorePathProbe.exists(store))
  }

  /// Verifies killed at random moments leave nothing in the temporary directory; the next one
  /// sweeps what dead processes of an older LiveLog left, and leaves a live process's alone.
  @Test func verifiesLeaveNoScratchDirectoryAndSweepStaleOnes() throws {
    let directory = try TemporaryDirectory()
    let store = directory.child("store")
    try DamageSupport.makeStore(at: store, count: 1_000, batch: 50)
    let scratch = directory.child("tmp")
    try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
    func leftovers() -> [String] {
      ((try? FileManager.default.contentsOfDirectory(atPath: scratch)) ?? []).filter {
        $0.hasPrefix("livelog-verify-") || $0.hasPrefix("livelog-replay-")
      }
    }
    for delay in [50_000, 150_000, 300_000, 500_000] as [UInt32] {
      for command in [["verify", "--in-process"], ["replay"]] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLineTool.executable)
        process.arguments = ["--store", store] + command
        process.environment = ProcessInfo.processInfo.environment.merging(["TMPDIR": scratch]) { $1 }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        usleep(delay)
        Reliability.kill9(process)
      }
    }
    let replayLeft = leftovers().filter { $0.hasPrefix("livelog-replay-") }
    #expect(leftovers().filter { $0.hasPrefix("livelog-verify-") }.isEmpty, "\(leftovers())")
    // A killed replay's scratch store is swept by the next one; stale verify folders of dead
    // processes and of an older LiveLog are swept by the next verify.
    var dead: pid_t = 4_000_000
    while kill(dead, 0) == 0 || errno != ESRCH { dead -= 1 }
    let stale = ["livelog-verify-\(dead)-\(UUID().uuidString)", "livelog-verify-\(UUID().uuidString)"]
    let alive = "livelog-verify-\(getpid())-\(UUID().uuidString)"
    for name in stale + [alive] {
      try FileManager.default.createDirectory(atPath: scratch + "/" + name, withIntermediateDirectories: true)
    }
    let old = Date().addingTimeInterval(-7_200)
    try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: scratch + "/" + stale[1])
    for command in [["verify"], ["replay"]] {
      let result = try CommandLineTool(store: store).run(command, environment: ["TMPDIR": scratch])
      #expect(result.status == 0, "\(command): \(result.stderr)")
    }
    #expect(leftovers() == [alive], "\(leftovers()) (killed replays had left \(replayLeft))")
  }
}
