import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Helpers of the reliability tests: store figures, generated input, privileges.
enum Reliability {
  /// The package's root directory.
  static let packageRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

  static func path(_ relative: String) -> String { packageRoot.appendingPathComponent(relative).path }

  /// `livelog stats --format json` as a dictionary; fails the test when stats fails.
  static func statistics(_ tool: CommandLineTool) throws -> [String: Any] {
    let result = try tool.run(["stats", "--format", "json"])
    #expect(result.status == 0, "stats: \(result.stderr)")
    return try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any] ?? [:]
  }

  static func version(_ tool: CommandLineTool) throws -> Int {
    try statistics(tool)["version"] as? Int ?? -1
  }

  /// NDJSON of `count` repositories with ids from `firstID`, whose descriptions of
  /// `descriptionBytes` bytes carry `tag` (so a new tag updates every one).
  static func repositories(from firstID: Int, count: Int, tag: String, descriptionBytes: Int = 40) -> String {
    var lines: [String] = []
    lines.reserveCapacity(count)
    let filler = String(repeating: "x", count: max(0, descriptionBytes - tag.count - 1))
    for id in firstID..<firstID + count {
      lines.append(
        #"{"id": \#(id), "full_name": "rel/r\#(id)", "description": "\#(tag) \#(filler)", "stargazers_count": \#(id % 97)}"#
      )
    }
    return lines.joined(separator: "\n") + "\n"
  }

  static func write(_ text: String, to path: String) throws {
    try Data(text.utf8).write(to: URL(fileURLWithPath: path))
  }

  static var isRoot: Bool { geteuid() == 0 }

  /// Mounts a tmpfs of `megabytes` at `path` (root only); nil with the reason when not permitted.
  static func mountTmpfs(at path: String, megabytes: Int) throws -> String? {
    guard isRoot else { return "mounting a tmpfs needs root" }
    let result = try CommandLineTool.launch(
      "/bin/mount", ["-t", "tmpfs", "-o", "size=\(megabytes)m,mode=0755", "tmpfs", path])
    return result.status == 0 ? nil : "mount -t tmpfs failed: \(result.stderr)"
  }

  static func unmount(_ path: String) {
    _ = try? CommandLineTool.launch("/bin/umount", ["-l", path])
  }

  /// Sends SIGKILL to a running process and waits for it; nothing for one that has ended (its
  /// pid may belong to another process by now).
  static func kill9(_ process: Process) {
    guard process.isRunning else { return }
    kill(process.processIdentifier, SIGKILL)
    process.waitUntilExit()
  }

  /// Waits (up to 10 s) until `process` has `file` mapped, as LMDB maps a store's data file when
  /// it opens the store.
  static func waitUntilMapped(_ process: Process, _ file: String) -> Bool {
    wait(seconds: 10) {
      let maps =
        (try? String(contentsOfFile: "/proc/\(process.processIdentifier)/maps", encoding: .utf8)) ?? ""
      return maps.contains(file)
    }
  }

  /// Size of a file in bytes, 0 when missing.
  static func fileSize(_ path: String) -> Int {
    (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
  }

  /// Waits until `condition` holds, polling for at most `seconds`.
  static func wait(seconds: Double, until condition: () throws -> Bool) rethrows -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
      if try condition() { return true }
      usleep(20_000)
    }
    return try condition()
  }
}
