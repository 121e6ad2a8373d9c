/// Why replication through a stream failed.
public enum ReplicationError: Error, Sendable, Hashable, CustomStringConvertible {
  /// No server of the list answered.
  case unreachable(servers: [String], detail: String)
  /// A call of the NATS client failed.
  case nats(operation: String, detail: String)
  /// The store and the stream disagree: the store halts instead of going on from a history that
  /// is not its own. `sequence` is the stream position where it showed, `firstLSN` the first
  /// LSN the stream's commit there carries (when it could be read), `version` the store's.
  case diverged(stream: String, sequence: UInt64, firstLSN: UInt64?, version: UInt64, reason: String)
  /// The store has events that were never published to the stream.
  case notInStream(path: String, version: UInt64, streamPosition: UInt64)
  /// The store replicates through another stream.
  case otherStream(path: String, stored: String, asked: String)
  /// A message of a commit is larger than the server takes: commits go in parts cut to the
  /// connected server's `max_payload`, so this is a server that announced a smaller limit than
  /// the one the parts were cut for (the client reconnected to another meanwhile).
  case commitTooLarge(bytes: Int, detail: String)
  /// No acknowledgement came for a commit after every attempt: it may or may not be in the
  /// stream, and the store did not apply it (a follower will, if it is there).
  case unacknowledged(stream: String, messageID: String, attempts: Int, detail: String)
  /// The stream was purged past what the store needs to go on: the message at its position
  /// (`sequence`, 0 for an empty store) or after it. The store must be made again from a
  /// snapshot.
  case purged(stream: String, sequence: UInt64, firstSequence: UInt64)
  /// A snapshot file is damaged, truncated, or not a snapshot.
  case badSnapshot(path: String, reason: String)
  /// A snapshot is of another stream than the one asked.
  case snapshotOfOtherStream(path: String, stream: String, asked: String)
  /// The stream does not hold a snapshot's position: it is beyond the stream's head, or purged.
  case snapshotNotInStream(path: String, stream: String, sequence: UInt64, reason: String)
  /// A purge was asked before any snapshot of the stream was written.
  case noSnapshot(stream: String)

  public var description: String {
    switch self {
    case .unreachable(let servers, let detail):
      "no NATS server answered at \(servers.joined(separator: ",")) (\(detail)). Check --nats and that the "
        + "servers run with JetStream (nats-server -js)"
    case .nats(let operation, let detail):
      "\(operation) failed: \(detail)"
    case .diverged(let stream, let sequence, let firstLSN, let version, let reason):
      "the store diverged from stream \(stream) at sequence \(sequence)"
        + (firstLSN.map { " (a commit from LSN \($0))" } ?? "") + " with the store at version \(version): "
        + "\(reason). It stopped applying; nothing of that commit was written. Rebuild this replica "
        + "from an empty store, or find out which history is right (Docs/Replication.md, Divergence)"
    case .notInStream(let path, let version, let position):
      "\(path) is at version \(version), but its stream holds it only up to version \(position): the rest was "
        + "written without the stream. Replicate into an empty store, or write that store's log into a new stream"
    case .otherStream(let path, let stored, let asked):
      "\(path) replicates through stream \(stored), not \(asked); give --stream \(stored)"
    case .commitTooLarge(let bytes, let detail):
      "a message of \(bytes) bytes of a commit is larger than the NATS server takes (\(detail)); nothing was "
        + "written. The servers announce different max_payload limits: give them the same one, and write again"
    case .unacknowledged(let stream, let id, let attempts, let detail):
      "stream \(stream) did not acknowledge commit \(id) after \(attempts) attempts (\(detail)); the write failed, "
        + "but the commit may be in the stream: read the store again once it follows the stream"
    case .purged(let stream, let sequence, let first):
      "stream \(stream) was purged: it holds sequences from \(first) on, but "
        + (sequence == 0 ? "this store is empty and needs them from 1" : "this store is at \(sequence)")
        + ", so it cannot go on from the stream. Bootstrap this replica from a snapshot into an empty directory "
        + "(livelog --stream \(stream) snapshot on a replica that is current, then bootstrap)"
    case .badSnapshot(let path, let reason):
      "\(path) is not a usable snapshot: \(reason). Write a new one with `livelog snapshot`"
    case .snapshotOfOtherStream(let path, let stream, let asked):
      "\(path) is a snapshot of stream \(stream), not \(asked); nothing was restored. Give --stream \(stream), "
        + "or a snapshot of \(asked)"
    case .snapshotNotInStream(let path, let stream, let sequence, let reason):
      "\(path) is a snapshot at sequence \(sequence) of stream \(stream), but \(reason); nothing was restored"
    case .noSnapshot(let stream):
      "stream \(stream) has no snapshot yet, and a purge keeps every message after the newest one: write one first "
        + "(livelog --stream \(stream) snapshot), and keep it for new replicas"
    }
  }

  /// Whether a follower stops on this error rather than trying again: the store and the stream
  /// cannot go on together.
  public var endsFollowing: Bool {
    switch self {
    case .diverged, .purged, .otherStream, .notInStream: true
    default: false
    }
  }
}
