import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Scratch directories of verifies and replays, named `PREFIX<pid>-<uuid>` after the process that
/// made them, so that what a killed process left can be told from what a running one uses.
public enum ScratchDirectories {
  /// A new scratch path under `parent` for this process.
  public static func path(in parent: String, prefix: String) -> String {
    (parent as NSString).appendingPathComponent("\(prefix)\(getpid())-\(UUID().uuidString)")
  }

  /// Removes the scratch directories under `parent` whose process is gone; those of an older
  /// LiveLog, without a pid in their name, once they are an hour old.
  public static func sweep(in parent: String, prefix: String) {
    let manager = FileManager.default
    for name in (try? manager.contentsOfDirectory(atPath: parent)) ?? [] where name.hasPrefix(prefix) {
      let path = (parent as NSString).appendingPathComponent(name)
      let rest = name.dropFirst(prefix.count)
      if let dash = rest.firstIndex(of: "-"), let pid = pid_t(rest[..<dash]), pid > 0 {
        guard kill(pid, 0) != 0, errno == ESRCH else { continue }
      } else {
        let modified = (try? manager.attributesOfItem(atPath: path)[.modificationDate] as? Date) ?? Date()
        guard Date().timeIntervalSince(modified) > 3_600 else { continue }
      }
      try? manager.removeItem(atPath: path)
    }
  }

  /// Removes the directory of a store this process has open: the open store goes on working (its
  /// files stay open and mapped), and whatever ends the process — SIGKILL included — leaves
  /// nothing behind.
  public static func detach(_ path: String) {
    try? FileManager.default.removeItem(atPath: path)
  }
}
