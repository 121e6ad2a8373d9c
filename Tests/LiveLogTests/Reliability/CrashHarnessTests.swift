import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// The short mode of scripts/crash-harness.sh: SIGKILL a writer (and a reader stuck in its
/// snapshot) at random moments, then check that every acknowledged commit is there, the log
/// verifies and no reader slot is left held. `make crash` runs the long mode (200 kills a mode).
@Suite(.serialized) struct CrashHarnessTests {
  static let script = Reliability.path("scripts/crash-harness.sh")

  /// The `RESULT` lines of a harness run, as mode → figures.
  static func results(_ output: String) -> [String: [String: Int]] {
    var modes: [String: [String: Int]] = [:]
    for line in output.split(separator: "\n") where line.hasPrefix("RESULT ") {
      var figures: [String: Int] = [:]
      var mode = ""
      for pair in line.dropFirst("RESULT ".count).split(separator: " ") {
        let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
        guard parts.count == 2 else { continue }
        if parts[0] == "mode" { mode = parts[1] } else { figures[parts[0]] = Int(parts[1]) }
      }
      modes[mode] = figures
    }
    return modes
  }

  @Test func killedWritersLoseNoAcknowledgedCommit() throws {
    let directory = try TemporaryDirectory()
    let result = try CommandLineTool.launch(
      "/bin/bash",
      [
        Self.script, "--kills", "12", "--lines", "600", "--durability", "both", "--seed", "20261129",
        "--livelog", CommandLineTool.executable, "--work", directory.child("work"),
      ])
    #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
    let modes = Self.results(result.stdout)
    let durable = try #require(modes["durable"], "\(result.stdout)")
    let noSync = try #require(modes["no-sync"], "\(result.stdout)")
    #expect(durable["kills"] == 12)
    #expect(durable["lost"] == 0)
    #expect(durable["failures"] == 0)
    #expect((durable["acknowledged"] ?? 0) > 0)
    // Every round kills a reader inside its snapshot; the next open clears its slot.
    #expect((durable["stale_readers_cleared"] ?? 0) >= 12)
    #expect(noSync["kills"] == 12)
    #expect(noSync["failures"] == 0)
    // A process crash loses nothing even without fsync: the pages are in the kernel's cache.
    #expect(noSync["lost"] == 0)
  }

  /// Concurrent writers (`ingest --writers`): small commits that share fsyncs (group commit),
  /// and commits of more than 256 changes, each of which folds into the index segments (the
  /// bulk path). Acknowledgements come in any order; the highest must be in the store.
  @Test(arguments: [(batch: 20, writers: 4), (batch: 300, writers: 3)])
  func killedConcurrentWritersLoseNoAcknowledgedCommit(batch: Int, writers: Int) throws {
    let directory = try TemporaryDirectory()
    let result = try CommandLineTool.launch(
      "/bin/bash",
      [
        Self.script, "--kills", "8", "--lines", "900", "--batch", "\(batch)", "--writers", "\(writers)",
        "--durability", "durable", "--seed", "20261203", "--livelog", CommandLineTool.executable, "--work",
        directory.child("work"),
      ])
    #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
    let durable = try #require(Self.results(result.stdout)["durable"], "\(result.stdout)")
    #expect(durable["writers"] == writers && durable["batch"] == batch)
    #expect(durable["kills"] == 8)
    #expect(durable["lost"] == 0)
    #expect(durable["failures"] == 0)
    #expect((durable["acknowledged"] ?? 0) > 0)
  }

  /// The harness is not vacuous: a store that reports less than was acknowledged fails it.
  @Test func theHarnessFailsWhenAnAcknowledgedCommitIsMissing() throws {
    let directory = try TemporaryDirectory()
    let wrapper = directory.child("lying-livelog")
    // `stats` claims version 0: as if every acknowledged commit had been lost.
    try Reliability.write(
      """
      #!/bin/sh
      for argument in "$@"; do
        if [ "$argument" = stats ]; then
          "\(CommandLineTool.executable)" "$@" | sed 's/"version":[0-9]*/"version":0/'
          exit 0
        fi
      done
      exec "\(CommandLineTool.executable)" "$@"
      """, to: wrapper)
    #expect(chmod(wrapper, 0o755) == 0)
    let result = try CommandLineTool.launch(
      "/bin/bash",
      [
        Self.script, "--kills", "3", "--lines", "300", "--durability", "durable", "--livelog", wrapper,
        "--work", directory.child("work"),
      ])
    #expect(result.status == 1)
    #expect(result.stderr.contains("was acknowledged"), "\(result.stderr)")
    #expect(Self.results(result.stdout)["durable"]?["failures"] ?? 0 > 0)
  }
}
