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
    // A child that crashed left its stores behind.
    try? FileManager.default.removeItem(at: directory)
    let ending =
      child.terminationReason == .uncaughtSignal
      ? "killed by signal \(child.terminationStatus)" : "exit status \(child.terminationStatus)"
    let comparisons: [Comparison]
    do {
      comparisons = try JSONDecoder().decode(Report.Document.self, from: Data(contentsOf: json)).comparisons
    } catch {
      return ([], "scenario \(scenario.name) wrote no results (\(ending))")
    }
    let failure =
      child.terminationReason == .exit && child.terminationStatus == 0
      ? nil : "scenario \(scenario.name) failed (\(ending))"
    return (comparisons, failure)
  }
}
