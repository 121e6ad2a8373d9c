import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// A store its user may not write: queries, logs and stats work (without LMDB's lock file),
/// writes fail with a clear message, and nothing in the store changes.
@Suite(.serialized) struct PermissionTests {
  /// Checks a store that the runner of `command` may read but not write.
  static func expectReadableNotWritable(
    store: String, directory: TemporaryDirectory, run: (([String]) throws -> CommandLineTool.Result)
  ) throws {
    let before = try FileManager.default.contentsOfDirectory(atPath: store).sorted()
    let dataBefore = FileManager.default.contents(atPath: store + "/data.mdb")
    let query = try run(["query", "id <= 2", "--format", "json"])
    #expect(query.status == 0, "\(query.stderr)")
    #expect(query.stdout.contains("\"full_name\":\"rel/r2\""), "\(query.stdout.prefix(200))")
    let stats = try run(["stats", "--format", "json"])
    #expect(stats.status == 0, "\(stats.stderr)")
    #expect(stats.stdout.contains("\"version\":6"))
    #expect(try run(["log", "--from", "5", "--to", "5"]).status == 0)
    #expect(try run(["verify"]).status == 0)
    let good = directory.child("more.ndjson")
    try Reliability.write(Reliability.repositories(from: 100, count: 3, tag: "more"), to: good)
    #expect(chmod(good, 0o644) == 0)
    let write = try run(["ingest", good])
    #expect(write.status == 1, "\(write.stderr)")
    #expect(!write.signalled)
    #expect(write.stderr.contains("read-only") || write.stderr.contains("write access"), "\(write.stderr)")
    #expect(try FileManager.default.contentsOfDirectory(atPath: store).sorted() == before)
    #expect(FileManager.default.contents(atPath: store + "/data.mdb") == dataBefore)
  }

  static func seededStore(_ directory: TemporaryDirectory) throws -> String {
    let store = directory.child("store")
    let input = directory.child("seed.ndjson")
    try Reliability.write(Reliability.repositories(from: 1, count: 5, tag: "seed"), to: input)
    let result = try CommandLineTool(store: store).run(["ingest", input])
    #expect(result.status == 0, "\(result.stderr)")
    return store
  }

  /// A store owned by root, opened by `nobody` (as root: through setpriv), or a store made
  /// read-only with chmod (as another user, whom permissions do bind).
  @Test func aStoreThisUserMayNotWriteOpensReadOnly() throws {
    let directory = try TemporaryDirectory()
    let store = try Self.seededStore(directory)
    if Reliability.isRoot {
      guard FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") else {
        try Test.cancel("skipped: running as root without setpriv to drop to another user")
      }
      // The binary, copied where `nobody` may run it; the temporary directory is world-readable.
      let binary = try CommandLineTool.copyOfExecutable(in: directory.path)
      #expect(chmod(binary, 0o755) == 0 && chmod(directory.path, 0o755) == 0)
      let probe = try CommandLineTool.launchAsNobody(binary, ["--version"])
      if probe.status != 0 {
        try Test.cancel("skipped: cannot run livelog as nobody (\(probe.stderr.prefix(200)))")
      }
      try Self.expectReadableNotWritable(store: store, directory: directory) { arguments in
        try CommandLineTool.launchAsNobody(binary, ["--store", store] + arguments)
      }
    } else {
      for name in ["", "/data.mdb", "/lock.mdb", "/LIVELOG"] {
        #expect(chmod(store + name, name.isEmpty ? 0o555 : 0o444) == 0)
      }
      defer { _ = chmod(store, 0o755) }
      try Self.expectReadableNotWritable(store: store, directory: directory) {
        try CommandLineTool(store: store).run($0)
      }
    }
  }

  /// A read-only file system: LMDB opens without its lock file by itself.
  @Test func aStoreOnAReadOnlyFileSystemOpensReadOnly() throws {
    let directory = try TemporaryDirectory()
    let mountPoint = directory.child("disk")
    try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: true)
    if let reason = try Reliability.mountTmpfs(at: mountPoint, megabytes: 16) {
      try Test.cancel("skipped: no file system to make read-only (\(reason))")
    }
    defer { Reliability.unmount(mountPoint) }
    let store = mountPoint + "/store"
    let input = directory.child("seed.ndjson")
    try Reliability.write(Reliability.repositories(from: 1, count: 5, tag: "seed"), to: input)
    #expect(try CommandLineTool(store: store).run(["ingest", input]).status == 0)
    let remount = try CommandLineTool.launch("/bin/mount", ["-o", "remount,ro", mountPoint])
    if remount.status != 0 {
      try Test.cancel("skipped: cannot remount read-only (\(remount.stderr))")
    }
    try Self.expectReadableNotWritable(store: store, directory: directory) {
      try CommandLineTool(store: store).run($0)
    }
  }
}
