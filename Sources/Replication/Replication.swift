import Foundation
@_spi(Replication) public import LiveLog

/// Where a store's log is replicated: the NATS servers and the store's stream.
public struct ReplicationConfiguration: Sendable, Hashable {
  /// NATS server URLs (`nats://host:port`); the client connects to one and fails over to others.
  public var servers: [String]
  /// The store's stream; its subject is `livelog.<stream>.commits`. Letters, digits, `-` and `_`.
  public var stream: String
  /// How many servers keep a copy of the stream, when this creates it (1, or up to 5 in a cluster).
  public var replicas: Int = 1
  /// How long a request to the server (a publish's acknowledgement) may take, in milliseconds.
  public var timeoutMilliseconds: Int64 = 2000
  /// How many times a commit is sent (with the same message id) before its write fails.
  public var attempts: Int = 5

  public init(servers: [String], stream: String) {
    self.servers = servers
    self.stream = stream
  }
}

/// Where a replicated store stands in its stream.
public struct ReplicationStatus: Sendable, Hashable {
  /// The stream.
  public var stream: String
  /// The stream sequence of the last commit the store applied (0: none yet).
  public var sequence: UInt64
  /// The store's version after that commit.
  public var version: UInt64
  /// The stream's last sequence, when it was asked.
  public var streamHead: UInt64?

  public init(stream: String, sequence: UInt64, version: UInt64, streamHead: UInt64? = nil) {
    self.stream = stream
    self.sequence = sequence
    self.version = version
    self.streamHead = streamHead
  }

  /// Commits of the stream the store has not applied yet.
  public var lag: UInt64? { streamHead.map { $0 > sequence ? $0 - sequence : 0 } }
}

/// A store whose log is a NATS JetStream stream, shared with other stores (in this or other
/// processes and machines) that replicate the same stream.
///
/// While a `Replication` is open, every write of its store — `write`, `createCollection`,
/// `importEvents` — is published to the stream, on the condition that the stream holds nothing
/// the store has not applied, and is applied locally once the stream acknowledged it. When
/// another writer was first, the store catches up and runs the write again against the new
/// state; a conditional write (`write(expecting:)`) then fails with
/// `StoreError.versionConflict`. `follow` applies the commits of other writers as they come.
///
/// ```swift
/// let store = try Store(directory: "replica.store")
/// let replication = try Replication(
///   store: store, configuration: .init(servers: ["nats://10.0.0.1:4222"], stream: "github"))
/// try store.write([.upsert(repository)])   // through the stream
/// ```
public final class Replication: Sendable {
  public let store: Store
  public let configuration: ReplicationConfiguration
  let jetStream: JetStream
  let gate: StreamGate
  let registry: ReplicaRegistry

  /// Connects, creates the stream when there is none, and makes the store's writes go through
  /// it. The store must be empty or have replicated through this stream before; its position is
  /// checked against the stream (`ReplicationError.diverged` when the stream does not hold the
  /// store's last commit where the store applied it, `ReplicationError.purged` when the stream
  /// no longer holds it). The store is registered as a replica of the stream (see `purge`).
  public init(store: Store, configuration: ReplicationConfiguration) throws {
    let stream = configuration.stream
    guard !stream.isEmpty, stream.utf8.count <= 200,
      stream.unicodeScalars.allSatisfy({
        $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-" || $0 == "_")
      })
    else {
      throw ReplicationError.nats(
        operation: "the stream name '\(stream)'", detail: "use 1 to 200 letters, digits, '-' and '_'")
    }
    guard !store.options.readOnly else { throw StoreError.readOnly(path: store.directory) }
    self.store = store
    self.configuration = configuration
    jetStream = try JetStream(configuration)
    try jetStream.addStream(
      stream, subject: CommitMessage.subject(stream: stream), replicas: max(1, configuration.replicas))
    registry = try ReplicaRegistry(jetStream, stream: stream, replicas: configuration.replicas)
    gate = StreamGate(
      store: store, jetStream: jetStream, configuration: configuration,
      registration: Registration(registry: registry, id: try store.replicaID()))
    let (position, version) = try store.attachReplication(gate)
    do {
      if let position, position.stream != stream {
        throw ReplicationError.otherStream(path: store.directory, stored: position.stream, asked: stream)
      }
      guard (position?.lsn ?? 0) == version else {
        throw ReplicationError.notInStream(
          path: store.directory, version: version, streamPosition: position?.lsn ?? 0)
      }
      try gate.verifyPosition()
      try gate.registration.register(position?.sequence ?? 0)
    } catch {
      store.detachReplication()
      throw error
    }
  }

  deinit { store.detachReplication() }

  /// Applies every commit the stream holds beyond the store's position; returns how many.
  @discardableResult
  public func catchUp() throws -> Int {
    let applied = try gate.catchUpCounting()
    try gate.registration.register(try store.streamPosition()?.sequence ?? 0)
    return applied
  }

  /// The store's position, and the stream's head.
  public func status() throws -> ReplicationStatus {
    let position = try store.streamPosition()
    return ReplicationStatus(
      stream: configuration.stream, sequence: position?.sequence ?? 0, version: position?.lsn ?? 0,
      streamHead: try jetStream.streamState(configuration.stream)?.lastSequence)
  }

  /// The last sequence of the configured stream (0 when there is none yet), without a store.
  public static func streamHead(_ configuration: ReplicationConfiguration) throws -> UInt64 {
    let jetStream = try JetStream(configuration)
    return try jetStream.streamState(configuration.stream)?.lastSequence ?? 0
  }

  /// The position a store recorded the last time it replicated, without connecting; `nil` when
  /// it never did.
  public static func storedStatus(of store: Store) throws -> ReplicationStatus? {
    try store.streamPosition().map {
      ReplicationStatus(stream: $0.stream, sequence: $0.sequence, version: $0.lsn, streamHead: nil)
    }
  }
}
