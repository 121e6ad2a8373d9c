import Foundation

let scenarios: [Scenario] = [
  .ingest,
  .commit,
  .group,
  .changesets,
  .query,
  .live,
  .replay,
  .replication,
]

func usage() -> String {
  """
  usage: livelog-bench [--quick] [--scenario NAME]... [--sizes N,N,...] [--json FILE] [--list]
                       [--in-process] [--scratch DIR]

  Runs each scenario with LiveLog and its peer on the same data in the same run and prints both
  figures and their ratio (peer time / LiveLog time: above 1 means LiveLog is faster). When
  several run, each runs in a process of its own, unless --in-process: run after others in one
  process, a scenario measured slower than alone. Stores go in DIR, which must not exist yet
  (default: a new directory in the temporary directory); it is removed, with everything in it,
  at the end.

  scenarios:
  \(scenarios.map { "  \($0.name.padding(toLength: 12, withPad: " ", startingAt: 0)) \($0.summary)" }.joined(separator: "\n"))
  """
}

var selected: [String] = []
var quick = false
var inProcess = false
var scratchPath: String? = nil
var sizes: [Int]? = nil
var jsonPath = "benchmark-results.json"
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
  switch argument {
  case "--quick": quick = true
  case "--in-process": inProcess = true
  case "--scratch":
    guard let path = arguments.popFirst() else {
      FileHandle.standardError.write(Data("--scratch needs a directory\n".utf8))
      exit(2)
    }
    // Removed whole at the end: a directory that holds anything already is not taken.
    guard !FileManager.default.fileExists(atPath: path) else {
      FileHandle.standardError.write(
        Data(
          "--scratch \(path) exists; name a directory that does not, which the run makes and removes\n".utf8))
      exit(2)
    }
    scratchPath = path
  case "--scenario":
    guard let name = arguments.popFirst() else {
      FileHandle.standardError.write(Data("--scenario needs a name\n".utf8))
      exit(2)
    }
    selected.append(name)
  case "--sizes":
    guard let list = arguments.popFirst() else {
      FileHandle.standardError.write(Data("--sizes needs a list such as 10000,100000\n".utf8))
      exit(2)
    }
    let parsed = list.split(separator: ",").compactMap { Int($0) }
    guard !parsed.isEmpty, parsed.allSatisfy({ $0 > 0 }) else {
      FileHandle.standardError.write(Data("--sizes takes positive whole numbers: \(list)\n".utf8))
      exit(2)
    }
    sizes = parsed
  case "--json":
    guard let path = arguments.popFirst() else {
      FileHandle.standardError.write(Data("--json needs a file name\n".utf8))
      exit(2)
    }
    jsonPath = path
  case "--list":
    print(scenarios.map(\.name).joined(separator: "\n"))
    exit(0)
  case "-h", "--help":
    print(usage())
    exit(0)
  default:
    FileHandle.standardError.write(Data("unknown argument \(argument)\n\n\(usage())\n".utf8))
    exit(2)
  }
}

let unknown = selected.filter { name in !scenarios.contains { $0.name == name } }
guard unknown.isEmpty else {
  FileHandle.standardError.write(
    Data("unknown scenario: \(unknown.joined(separator: ", "))\n\n\(usage())\n".utf8))
  exit(2)
}

let workDirectory =
  scratchPath.map { URL(fileURLWithPath: $0) }
  ?? FileManager.default.temporaryDirectory.appendingPathComponent(
    "livelog-bench-\(ProcessInfo.processInfo.processIdentifier)")
try FileManager.default.createDirectory(at: workDirectory, withIntermediateDirectories: true)

let report = Report()
let context = BenchmarkContext(
  report: report,
  repetitions: quick ? .quick : .standard,
  sizes: sizes ?? (quick ? [10_000] : [10_000, 100_000, 1_000_000]),
  quick: quick,
  workDirectory: workDirectory
)

var failed = false
let running = scenarios.filter { selected.isEmpty || selected.contains($0.name) }
for scenario in running {
  do {
    if inProcess || running.count == 1 {
      print("\n== \(scenario.name): \(scenario.summary)")
      try scenario.run(context)
    } else {
      let (comparisons, failure) = try ScenarioProcess(
        scenario: scenario, quick: quick, sizes: sizes, scratch: workDirectory
      ).run()
      report.adopt(comparisons)
      if let failure {
        failed = true
        FileHandle.standardError.write(Data("\(failure)\n".utf8))
      }
    }
  } catch {
    failed = true
    FileHandle.standardError.write(Data("scenario \(scenario.name) failed: \(error)\n".utf8))
  }
}

/// The processor's model name on Linux (absent elsewhere): cores alone do not say how fast they are.
func processorModel() -> String? {
  guard let cpuinfo = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8) else { return nil }
  let line = cpuinfo.split(separator: "\n").first { $0.hasPrefix("model name") }
  return line?.split(separator: ":", maxSplits: 1).last?.trimmingCharacters(in: .whitespaces)
}

var metadata: [String: String] = [
  "date": ISO8601DateFormatter().string(from: Date()),
  "host": ProcessInfo.processInfo.hostName,
  "cores": String(ProcessInfo.processInfo.activeProcessorCount),
  "memory_bytes": String(ProcessInfo.processInfo.physicalMemory),
  "os": ProcessInfo.processInfo.operatingSystemVersionString,
  "mode": quick ? "quick" : "full",
  "commit": ProcessInfo.processInfo.environment["LIVELOG_COMMIT"] ?? "unknown",
  "toolchain": ProcessInfo.processInfo.environment["LIVELOG_TOOLCHAIN"] ?? "unknown",
]
metadata["cpu"] = processorModel()
do {
  try report.write(to: jsonPath, metadata: metadata)
  print("\nresults written to \(jsonPath)")
} catch {
  FileHandle.standardError.write(Data("could not write \(jsonPath): \(error)\n".utf8))
  failed = true
}
// Removed here: `exit` skips a top-level `defer`, and each run's stores took gigabytes of /tmp.
try? FileManager.default.removeItem(at: workDirectory)
exit(failed ? 1 : 0)
