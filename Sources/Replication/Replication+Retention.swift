import Foundation
@_spi(Replication) import LiveLog

/// What `Replication.purge` did.
public struct PurgeOutcome: Sendable, Hashable {
  /// The stream's first sequence after the purge: messages below it are gone.
  public var firstSequence: UInt64
  /// Whether this purge removed anything (false when nothing was below the floor).
  public var purged: Bool
  /// The newest snapshot's sequence.
  public var snapshotSequence: UInt64
  /// Every registered replica, by id, as it last said where it stands.
  public var replicas: [RegisteredReplica]
  /// The stream's head.
  public var streamHead: UInt64
}

extension Replication {
  /// Removes the stream's messages that no one needs any more: those below both the newest
  /// snapshot's position and the position of every registered replica (every store that
  /// replicated through the stream says where it stands, in the stream's `livelog-<stream>`
  /// key-value bucket). The message at the floor itself is kept, so that a store there can
  /// still check that the stream holds its last commit. A new replica then starts from the
  /// snapshot (`bootstrap`); a store whose position falls below the stream's first message
  /// fails with `ReplicationError.purged`.
  ///
  /// Throws `ReplicationError.noSnapshot` when no snapshot of the stream was written. A replica
  /// that is gone for good holds purges back until it is forgotten (`forgetReplica`).
  public static func purge(_ configuration: ReplicationConfiguration) throws -> PurgeOutcome {
    let stream = configuration.stream
    let jetStream = try JetStream(configuration)
    guard let state = try jetStream.streamState(stream) else {
      throw ReplicationError.nats(
        operation: "purge of stream \(stream)", detail: "the servers have no such stream")
    }
    let registry = try ReplicaRegistry(jetStream, stream: stream, replicas: configuration.replicas)
    guard let snapshot = try registry.snapshotSequence() else {
      throw ReplicationError.noSnapshot(stream: stream)
    }
    let replicas = try registry.replicas()
    let position = min(replicas.map(\.sequence).min() ?? snapshot, snapshot, state.lastSequence)
    // A commit of several messages is kept whole, so that a store at its end can still check it.
    let floor = try StreamGate.firstSequence(ofCommitEndingAt: position, in: stream, jetStream)
    let purging = floor > max(state.firstSequence, 1)
    if purging { try jetStream.purge(stream, below: floor) }
    return PurgeOutcome(
      firstSequence: try jetStream.streamState(stream)?.firstSequence ?? state.firstSequence, purged: purging,
      snapshotSequence: snapshot, replicas: replicas, streamHead: state.lastSequence)
  }

  /// The stores registered as replicas of the stream, and where each last said it stands.
  public static func registeredReplicas(_ configuration: ReplicationConfiguration) throws
    -> [RegisteredReplica]
  {
    let jetStream = try JetStream(configuration)
    return try ReplicaRegistry(jetStream, stream: configuration.stream, replicas: configuration.replicas)
      .replicas()
  }

  /// Removes a replica that is gone for good from the registry, so that it holds purges back
  /// no more. Should the store replicate again, it registers again (and, if the stream was
  /// purged past it, fails with `ReplicationError.purged`).
  public static func forgetReplica(_ id: String, _ configuration: ReplicationConfiguration) throws {
    let jetStream = try JetStream(configuration)
    try ReplicaRegistry(jetStream, stream: configuration.stream, replicas: configuration.replicas).forget(id)
  }

  /// This store's replica id in the stream's registry.
  public var replicaID: String { gate.registration.id }
}
