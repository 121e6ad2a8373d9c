import Dispatch
import Foundation
import LiveLog
import LiveLogReplication
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

let followCommand = Command(
  name: "follow",
  summary: "run as a replica of the store's NATS JetStream stream until stopped",
  help: """
    usage: livelog --store DIR --nats URL[,URL...] --stream NAME follow [--format text|json]

    Applies the stream's commits to the store, from where it stopped last, as they come; each
    commit is applied with its stream position in one transaction, so a follower ended at any
    moment (even by kill -9) resumes exactly. Commits this store's own writes applied first are
    skipped. Prints one line per applied commit with the follower's lag (commits of the stream
    not applied yet); SIGINT or SIGTERM stops it cleanly (exit status 0). While no server
    answers (a restart, an election) it notes each failure on standard error and tries again.

    When the stream and the store disagree — a commit whose first LSN is not the store's version
    + 1, a checksum that fails, a commit made after another history, or a stream whose head is
    below what the store applied — it applies nothing more and exits with status 1 and a message
    naming the stream, the sequence and the LSNs (see Docs/Replication.md).

      --format json    one object per line: {"sequence", "first_lsn", "last_lsn", "lag"}
    """,
  run: { arguments, context in
    let format = try arguments.choice("--format", ["text", "json"]) ?? "text"
    try arguments.finish()
    guard context.replication != nil else {
      throw UsageError(
        message: "follow needs --nats URL and --stream NAME (or $LIVELOG_NATS, $LIVELOG_STREAM)")
    }
    let store = try context.openStore(catchingUp: false)
    guard let replication = context.replications.last else {
      throw UsageError(message: "follow needs --nats URL and --stream NAME")
    }
    let output = context.output
    output.lineBuffered = true
    let status = try replication.status()
    if format == "text" {
      output.line(
        "following stream \(status.stream) from sequence \(status.sequence) (version \(status.version)); "
          + "the stream is at \(status.streamHead ?? 0)")
    }
    let stop = StopRequest()
    let signals = stop.install()
    defer { withExtendedLifetime(signals) {} }
    try replication.follow(
      shouldStop: { stop.requested },
      applied: { commit in
        if format == "json" {
          output.line(
            "{\"sequence\":\(commit.sequence),\"first_lsn\":\(commit.firstLSN),\"last_lsn\":\(commit.lastLSN),"
              + "\"lag\":\(commit.lag)}")
        } else {
          output.line(
            "applied \(commit.sequence): LSN \(commit.firstLSN)…\(commit.lastLSN), lag \(commit.lag)")
        }
      },
      problem: { printError("note: \($0); trying again") })
    withExtendedLifetime(store) {}
    return 0
  }
)

/// SIGINT and SIGTERM, turned into a flag the follower's loop reads.
final class StopRequest: Sendable {
  private let flag = Atomic<Bool>(false)

  /// Handles both signals from now on; they are handled while the returned sources live.
  func install() -> [any DispatchSourceSignal] {
    [SIGINT, SIGTERM].map { number in
      signal(number, SIG_IGN)
      let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
      source.setEventHandler { [self] in flag.store(true, ordering: .relaxed) }
      source.resume()
      return source
    }
  }

  var requested: Bool { flag.load(ordering: .relaxed) }
}
