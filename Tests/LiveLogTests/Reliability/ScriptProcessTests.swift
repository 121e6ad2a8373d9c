import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Scripts end every process they start, on every way out: `make demo` left its `livelog
/// watch` running forever (it killed the subshell of a shell function, not the watcher), and an
/// interrupted crash harness left its follower and reader behind.
@Suite(.serialized) struct ScriptProcessTests {
  /// Processes whose command line mentions `text` (and `also`, if given), by pid (from /proc).
  static func processes(mentioning text: String, and also: String? = nil) -> [pid_t] {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
    return names.compactMap { name in
      guard let pid = pid_t(name), pid != getpid(),
        let data = FileManager.default.contents(atPath: "/proc/\(name)/cmdline")
      else { return nil }
      let line = String(decoding: data.map { $0 == 0 ? 0x20 : $0 }, as: UTF8.self)
      return line.contains(text) && also.map(line.contains) != false ? pid : nil
    }
  }

  /// Fails for every leftover process, and ends it, so that the test leaks nothing itself.
  static func expectNoneLeft(_ text: String, _ what: String) {
    // A process killed a moment ago may still be on its way out.
    _ = Reliability.wait(seconds: 3) { processes(mentioning: text).isEmpty }
    let left = processes(mentioning: text)
    #expect(left.isEmpty, "\(what) left processes \(left) running")
    for pid in left { kill(pid, SIGKILL) }
  }

  @Test func theDemoEndsItsWatcher() throws {
    let directory = try TemporaryDirectory()
    let store = directory.child("demo-\(UUID().uuidString).store")
    // Not through Foundation's Process, whose wait would hang on a leaked watcher: the watcher
    // inherits the descriptor by which Process learns that its child has ended.
    let demo = try SpawnedProcess(
      "/bin/sh", [Reliability.path("scripts/demo.sh"), CommandLineTool.executable, store])
    let status = demo.wait()
    #expect(status == 0, "the demo failed: wait status \(status)")
    #expect(FileManager.default.fileExists(atPath: store + "-search"), "the demo ran to its end")
    Self.expectNoneLeft(store, "the demo")
  }

  @Test func anInterruptedDemoEndsItsWatcher() throws {
    let directory = try TemporaryDirectory()
    let store = directory.child("demo-\(UUID().uuidString).store")
    let demo = try SpawnedProcess(
      "/bin/sh", [Reliability.path("scripts/demo.sh"), CommandLineTool.executable, store])
    let watching = Reliability.wait(seconds: 60) {
      !Self.processes(mentioning: store, and: " watch ").isEmpty
    }
    #expect(watching, "the demo never started its watcher")
    kill(demo.pid, SIGTERM)
    demo.wait()
    Self.expectNoneLeft(store, "the interrupted demo")
  }

  @Test func anInterruptedCrashHarnessEndsItsProcesses() throws {
    let directory = try TemporaryDirectory()
    let work = directory.child("harness-\(UUID().uuidString)")
    let harness = try SpawnedProcess(
      "/bin/bash",
      [
        Reliability.path("scripts/crash-harness.sh"), "--kills", "100", "--lines", "300", "--durability",
        "durable",
        "--livelog", CommandLineTool.executable, "--work", work,
      ])
    // The follower that lives through the run, and a round's reader and writer.
    #expect(
      Reliability.wait(seconds: 30) { Self.processes(mentioning: work, and: " ingest --batch").count >= 1 })
    #expect(!Self.processes(mentioning: work, and: " --follow").isEmpty)
    let interrupted = Date()
    kill(harness.pid, SIGTERM)
    harness.wait()
    // It ends within its current step (a trap runs once the foreground command is done).
    #expect(Date().timeIntervalSince(interrupted) < 20)
    Self.expectNoneLeft(work, "the interrupted crash harness")
    #expect(!FileManager.default.fileExists(atPath: work), "its work directory is removed too")
  }
}
