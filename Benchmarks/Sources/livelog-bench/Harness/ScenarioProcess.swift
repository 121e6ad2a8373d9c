import Foundation

/// Runs one scenario in a process of its own: this program again, with `--scenario NAME`, its
/// rows printed by the child and its comparisons read back from the JSON the child writes.
///
/// Why: run after other scenarios in one process, a scenario measured slower than alone (replay
/// after the live queries, by a fifth; Docs/Benchmarks.md, "How it runs"), for a cause not
/// pinned down. A user's replay runs in a process that does just that, as each scenario now does.
struct ScenarioProcess {
  let scenario: Scenario
  let quick: Bool
  let sizes: [Int]?
  /// The parent's scratch directory: the child's stores go in `NAME/`, its results in `NAME.json`.
  let scratch: URL

  /// Runs the scenario and returns its comparisons and, when the child did not finish cleanly,
  /// what went wrong: a scenario that throws keeps what it measured before; a child that crashed
  /// wrote nothing. Throws when the child cannot be started.
  func run() throws -> (comparisons: [Comparison], failure: String?) {
    // The child's stores in a directory this process names and removes; its results beside it,
    // since the child removes its directory when it ends.
    let directory = scratch.appendingPathComponent(scenario.name)
    let json = scratch.appendingPathComponent("\(scenario.name).json")
    var arguments = [
      "--in-process", "--scenario", scenario.name, "--json", json.path, "--scratch", directory.path,
    ]
    if quick { arguments.append("--quick") }
    if let sizes { arguments += ["--sizes", sizes.map(String.init).joined(separator: ",")] }
    guard let executable = Bundle.main.executableURL else {
      throw BenchmarkFailure("cannot find this program's path to run scenario \(scenario.name) on its own")
    }
    // Not an earlier run's file, should the child write none.
    try? FileManager.default.removeItem(at: json)
    let child = Process()
    child.executableURL = executable
    child.arguments = arguments
    // Both processes print to the same terminal: the child's rows come in order after ours.
    fflush(nil)
    try child.run()
    child.waitUntilExit()
    // A child that crashed left its servers running and its stores behind.
    let (stopped, unstoppable) = Self.killProcesses(naming: directory.path, except: child.processIdentifier)
    try? FileManager.default.removeItem(at: directory)
    var ending =
      child.terminationReason == .uncaughtSignal
      ? "killed by signal \(child.terminationStatus)" : "exit status \(child.terminationStatus)"
    if !stopped.isEmpty {
      ending += "; stopped \(Self.processes(stopped)) it left running"
    }
    if !unstoppable.isEmpty {
      ending += "; could not stop \(Self.processes(unstoppable)) it left running"
    }
    let comparisons: [Comparison]
    do {
      comparisons = try JSONDecoder().decode(Report.Document.self, from: Data(contentsOf: json)).comparisons
    } catch {
      return ([], "scenario \(scenario.name) wrote no results (\(ending))")
    }
    let failure =
      child.terminationReason == .exit && child.terminationStatus == 0 && stopped.isEmpty
        && unstoppable.isEmpty
      ? nil : "scenario \(scenario.name) failed (\(ending))"
    return (comparisons, failure)
  }

  /// Kills (SIGKILL) every process but `child` whose arguments name `path` or a file under it (as
  /// an argument of its own: `-sd DIR`, not `--store_dir=DIR`), waits up to a second for each to
  /// go, and returns what became of them: the `nats-server`s a scenario starts keep their files
  /// under its directory (`BenchmarkNATSServer`), and outlive a child that crashed. Reads Linux's
  /// `/proc`; finds none where there is none.
  static func killProcesses(naming path: String, except child: Int32) -> (stopped: [Int32], failed: [Int32]) {
    guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return ([], []) }
    var (stopped, failed): ([Int32], [Int32]) = ([], [])
    for entry in entries {
      guard let id = Int32(entry), id != child, id != getpid(),
        let line = FileManager.default.contents(atPath: "/proc/\(entry)/cmdline")
      else { continue }
      let arguments = line.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
      guard arguments.contains(where: { $0 == path || $0.hasPrefix(path + "/") }) else { continue }
      if kill(id, SIGKILL) == 0 { stopped.append(id) } else { failed.append(id) }
    }
    // Gone, or a zombie its new parent has yet to reap: its files are closed either way.
    func isRunning(_ id: Int32) -> Bool {
      guard let stat = FileManager.default.contents(atPath: "/proc/\(id)/stat") else { return false }
      let fields = String(decoding: stat, as: UTF8.self).split(separator: ")").last?.split(separator: " ")
      return fields?.first != "Z"
    }
    let deadline = Date().addingTimeInterval(1)
    while stopped.contains(where: isRunning) && Date() < deadline { usleep(10_000) }
    return (stopped, failed)
  }

  /// "process 12" or "processes 12, 13".
  private static func processes(_ ids: [Int32]) -> String {
    (ids.count == 1 ? "process " : "processes ") + ids.map(String.init).joined(separator: ", ")
  }
}
