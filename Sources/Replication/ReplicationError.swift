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
  /// The commit is larger than the server takes in one message.
  case commitTooLarge(bytes: Int, detail: String)
  /// No acknowledgement came for a commit after every attempt: it may or may not be in the
  /// stream, and the store did not apply it (a follower will, if it is there).
  case unacknowledged(stream: String, messageID: String, attempts: Int, detail: String)

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
      "a commit of \(bytes) bytes is larger than the NATS server takes in one message (\(detail)); nothing was "
        + "written. Write smaller commits, or raise the server's max_payload"
    case .unacknowledged(let stream, let id, let attempts, let detail):
      "stream \(stream) did not acknowledge commit \(id) after \(attempts) attempts (\(detail)); the write failed, "
        + "but the commit may be in the stream: read the store again once it follows the stream"
    }
  }
}
