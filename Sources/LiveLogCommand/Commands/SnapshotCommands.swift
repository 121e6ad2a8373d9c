import Foundation
import LiveLog
import LiveLogReplication

/// The stream's configuration, or a usage error naming the command that needs it.
private func streamConfiguration(_ context: CommandContext, for command: String) throws
  -> ReplicationConfiguration
{
  guard let configuration = context.replication else {
    throw UsageError(
      message: "\(command) needs --nats URL and --stream NAME (or $LIVELOG_NATS, $LIVELOG_STREAM)")
  }
  return configuration
}

let snapshotCommand = Command(
  name: "snapshot",
  summary: "write a snapshot of a replicated store, stamped with its stream position",
  help: """
    usage: livelog --store DIR --nats URL[,URL...] --stream NAME snapshot [--to FILE]

    Catches the store up with the stream, then writes FILE (default NAME.snapshot): a compacted
    copy of the store's LMDB environment taken in one read transaction while writers go on,
    stamped with the stream position it holds (stream, sequence, version, checksum of the last
    event) and checksummed. The file is renamed into place once complete. Its position is
    recorded as the stream's newest snapshot: `purge` keeps every message after it. Keep the
    newest snapshot: new replicas start from it with `bootstrap`.
    """,
  run: { arguments, context in
    let file = try arguments.value("--to")
    try arguments.finish()
    let configuration = try streamConfiguration(context, for: "snapshot")
    let store = try context.openStore()
    guard let replication = context.replications.last else {
      throw UsageError(message: "snapshot needs --nats URL and --stream NAME")
    }
    let path = file ?? "\(configuration.stream).snapshot"
    let stamp = try replication.writeSnapshot(to: path)
    let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue ?? 0
    context.output.line(
      "wrote \(path): stream \(stamp.stream) at sequence \(stamp.sequence) (version \(stamp.version)), "
        + "\(size) bytes")
    withExtendedLifetime(store) {}
    return 0
  }
)

let bootstrapCommand = Command(
  name: "bootstrap",
  summary: "make a new replica in an empty store directory from a snapshot",
  help: """
    usage: livelog --store DIR --nats URL[,URL...] --stream NAME bootstrap [--from FILE]

    Restores the snapshot FILE (default NAME.snapshot) into DIR, which must be absent or
    empty, and checks it against the stream: then `follow` (or any writing command) goes on
    from the snapshot's position. Refused, with nothing left in DIR and exit status 1: a
    damaged or truncated file, a snapshot of another stream, one beyond the stream's head or
    older than its purge, and one whose commit at its position is not the stream's there.
    """,
  run: { arguments, context in
    let file = try arguments.value("--from")
    try arguments.finish()
    let configuration = try streamConfiguration(context, for: "bootstrap")
    var options = StoreOptions()
    if let maximumMapSize = context.maximumMapSize { options.maximumMapSize = maximumMapSize }
    // A snapshot an older LiveLog wrote is upgraded once restored.
    options.progress = { printError("  \($0)") }
    let path = file ?? "\(configuration.stream).snapshot"
    let replication = try Replication.bootstrap(
      from: path, into: context.storePath, configuration: configuration, options: options)
    let status = try replication.status()
    context.output.line(
      "bootstrapped \(context.storePath) from \(path): stream \(status.stream) at sequence \(status.sequence) "
        + "(version \(status.version)); the stream is at \(status.streamHead ?? 0)")
    return 0
  }
)

let purgeCommand = Command(
  name: "purge",
  summary: "remove the stream's messages that every replica and the newest snapshot have passed",
  help: """
    usage: livelog --nats URL[,URL...] --stream NAME purge [--forget ID]...

    Removes the stream's messages below the smallest position of the newest snapshot and of
    every registered replica (every store that replicated through the stream says where it
    stands), keeping the message at that position. Needs a snapshot first (`snapshot`). Prints
    the registered replicas; --forget ID removes a replica that is gone for good first, so that
    it holds the purge back no more (if it comes back below the purge, it is told to
    bootstrap). The store (--store) is not used.
    """,
  run: { arguments, context in
    let forget = try arguments.values("--forget")
    try arguments.finish()
    let configuration = try streamConfiguration(context, for: "purge")
    for id in forget { try Replication.forgetReplica(id, configuration) }
    let outcome = try Replication.purge(configuration)
    for replica in outcome.replicas {
      context.output.line("replica \(replica.id) at sequence \(replica.sequence)")
    }
    context.output.line(
      (outcome.purged
        ? "purged stream \(configuration.stream) below sequence"
        : "nothing to purge: stream "
          + "\(configuration.stream) starts at sequence")
        + " \(outcome.firstSequence); its head is \(outcome.streamHead), the newest snapshot at "
        + "\(outcome.snapshotSequence)")
    return 0
  }
)
