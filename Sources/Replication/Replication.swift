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

  /// Connects, creates the stream when there is none, and makes the store's writes go through
  /// it. The store must be empty or have replicated through this stream before; its position is
  /// checked against the stream (`ReplicationError.diverged` when the stream does not hold the
  /// store's last commit where the store applied it).
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
    self.store = store
    self.configuration = configuration
    jetStream = try JetStream(servers: configuration.servers, timeout: configuration.timeoutMilliseconds)
    try jetStream.addStream(
      stream, subject: CommitMessage.subject(stream: stream), replicas: max(1, configuration.replicas))
    gate = StreamGate(store: store, jetStream: jetStream, configuration: configuration)
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
    } catch {
      store.detachReplication()
      throw error
    }
  }

  deinit { store.detachReplication() }

  /// Applies every commit the stream holds beyond the store's position; returns how many.
  @discardableResult
  public func catchUp() throws -> Int { try gate.catchUpCounting() }

  /// The store's position, and the stream's head.
  public func status() throws -> ReplicationStatus {
    let position = try store.streamPosition()
    return ReplicationStatus(
      stream: configuration.stream, sequence: position?.sequence ?? 0, version: position?.lsn ?? 0,
      streamHead: try jetStream.streamState(configuration.stream)?.lastSequence)
  }

  /// The last sequence of the configured stream (0 when there is none yet), without a store.
  public static func streamHead(_ configuration: ReplicationConfiguration) throws -> UInt64 {
    let jetStream = try JetStream(servers: configuration.servers, timeout: configuration.timeoutMilliseconds)
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

/// The gate every commit of a replicating store passes, and what applies the stream's commits.
final class StreamGate: CommitGate {
  let store: Store
  let jetStream: JetStream
  let stream: String
  let subject: String
  let attempts: Int

  init(store: Store, jetStream: JetStream, configuration: ReplicationConfiguration) {
    self.store = store
    self.jetStream = jetStream
    stream = configuration.stream
    subject = CommitMessage.subject(stream: configuration.stream)
    attempts = max(1, configuration.attempts)
  }

  func admit(_ commit: EncodedCommit, after position: StreamPosition?) throws -> StreamPosition {
    let sequence = position?.sequence ?? 0
    let version = position?.lsn ?? 0
    guard commit.firstLSN == version + 1 else {
      throw ReplicationError.notInStream(
        path: store.directory, version: commit.firstLSN - 1, streamPosition: version)
    }
    let payload = CommitMessage.payload(commit)
    let id = CommitMessage.messageID(stream: stream, firstLSN: commit.firstLSN)
    let taken = StreamPosition(stream: stream, sequence: sequence + 1, lsn: commit.lastLSN)
    var problem = ""
    for _ in 1...attempts {
      switch try jetStream.publish(
        subject: subject, payload: payload, headers: CommitMessage.headers(commit), messageID: id,
        expectedLastSequence: sequence)
      {
      case .stored(let stored, let duplicate):
        // The id names a first LSN, which two racing writers share: a duplicate is ours only
        // when the stored message is this commit.
        if duplicate {
          guard stored == sequence + 1, try holds(payload, at: stored) else { throw StoreIsBehind() }
        }
        guard stored == sequence + 1 else {
          throw ReplicationError.diverged(
            stream: stream, sequence: stored, firstLSN: commit.firstLSN, version: version,
            reason:
              "the stream stored the commit at \(stored), though it expected its last sequence to be \(sequence)"
          )
        }
        return taken
      case .wrongLastSequence:
        // An earlier attempt whose acknowledgement was lost (or this commit's transaction, run
        // again after the map grew) may be what moved the stream on.
        if try holds(payload, at: sequence + 1) { return taken }
        throw StoreIsBehind()
      case .tooLarge(let detail):
        throw ReplicationError.commitTooLarge(bytes: payload.count, detail: detail)
      case .noAnswer(let detail):
        // "No responders" comes at once while the stream elects a leader: give it a moment.
        problem = detail
        usleep(200_000)
      }
    }
    throw ReplicationError.unacknowledged(stream: stream, messageID: id, attempts: attempts, detail: problem)
  }

  func catchUp() throws { _ = try catchUpCounting() }

  /// Applies the stream's messages from the store's position to the stream's head as it is now.
  func catchUpCounting() throws -> Int {
    let head = try currentHead()
    var applied = 0
    while true {
      let position = try store.streamPosition()
      let sequence = position?.sequence ?? 0
      try checkHead(head, position)
      guard sequence < head else { return applied }
      guard let message = try jetStream.message(stream, at: sequence + 1) else {
        throw ReplicationError.diverged(
          stream: stream, sequence: sequence + 1, firstLSN: nil, version: position?.lsn ?? 0,
          reason: "the stream has no message there, though its head is \(head)")
      }
      if try apply(message) { applied += 1 }
    }
  }

  /// Applies one message of the stream; false when the store had applied it already (it
  /// checks then that the store holds the same events).
  func apply(_ message: StreamMessage) throws -> Bool {
    let (decoded, firstLSN, reason) = CommitMessage.commit(message)
    guard let commit = decoded else {
      throw ReplicationError.diverged(
        stream: stream, sequence: message.sequence, firstLSN: firstLSN, version: try store.version(),
        reason: "the message cannot be applied: \(reason)")
    }
    let position = StreamPosition(stream: stream, sequence: message.sequence, lsn: commit.lastLSN)
    switch try store.applyReplicated(commit, at: position) {
    case .applied:
      return true
    case .alreadyApplied(let current):
      guard commit.lastLSN <= current.lsn,
        try store.loggedCommit(from: commit.firstLSN, through: commit.lastLSN) == commit,
        message.sequence != current.sequence || commit.lastLSN == current.lsn
      else {
        throw ReplicationError.diverged(
          stream: stream, sequence: message.sequence, firstLSN: commit.firstLSN, version: current.lsn,
          reason: "the store applied another commit at this position")
      }
      return false
    case .notNext(let current, let version):
      let applied = current?.sequence ?? 0
      let why =
        applied + 1 != message.sequence
        ? "the store's position is \(applied), so the next commit it can apply is at \(applied + 1)"
        : "its first LSN is not the store's version + 1"
      throw ReplicationError.diverged(
        stream: stream, sequence: message.sequence, firstLSN: commit.firstLSN, version: version, reason: why)
    case .otherHistory(let version):
      throw ReplicationError.diverged(
        stream: stream, sequence: message.sequence, firstLSN: commit.firstLSN, version: version,
        reason: "the commit was made after another event \(version) than the store's (its previous checksum "
          + "differs): the stream holds another history")
    }
  }

  /// Checks that the stream still holds, at the store's position, the commit the store applied
  /// there: a stream deleted and made again, or rewound by a server that lost acknowledged
  /// messages, shows here.
  /// Returns the stream's head.
  @discardableResult
  func verifyPosition() throws -> UInt64 {
    let head = try currentHead()
    guard let position = try store.streamPosition(), position.sequence > 0 else { return head }
    try checkHead(head, position)
    let mismatch = { (reason: String, first: UInt64?) in
      ReplicationError.diverged(
        stream: self.stream, sequence: position.sequence, firstLSN: first, version: position.lsn,
        reason: reason)
    }
    guard let message = try jetStream.message(stream, at: position.sequence) else {
      throw mismatch("the stream no longer holds the message the store applied last", nil)
    }
    let (decoded, firstLSN, reason) = CommitMessage.commit(message)
    guard let commit = decoded else {
      throw mismatch("the message there cannot be read: \(reason)", firstLSN)
    }
    guard commit.lastLSN == position.lsn,
      try store.loggedCommit(from: commit.firstLSN, through: commit.lastLSN) == commit
    else { throw mismatch("the stream's message there is not the commit the store applied", commit.firstLSN) }
    return head
  }

  /// The stream's last sequence; 0 when the stream is gone (deleted under the store).
  private func currentHead() throws -> UInt64 {
    try jetStream.streamState(stream)?.lastSequence ?? 0
  }

  private func checkHead(_ head: UInt64, _ position: StreamPosition?) throws {
    guard let position, head < position.sequence else { return }
    // While a clustered stream has no leader, nats-server 2.9 lets any of its copies answer for
    // it, a lagging one too: the head counts as below the store only when the stream does not
    // hold the store's last message either.
    if try jetStream.message(stream, at: position.sequence) != nil { return }
    throw ReplicationError.diverged(
      stream: stream, sequence: head, firstLSN: nil, version: position.lsn,
      reason: "the stream's head (\(head)) is below what the store has applied (\(position.sequence)): "
        + "the stream lost acknowledged commits, or was deleted and made again")
  }

  /// Whether the stream's message at `sequence` carries exactly `payload`.
  private func holds(_ payload: [UInt8], at sequence: UInt64) throws -> Bool {
    try jetStream.message(stream, at: sequence)?.payload == payload
  }
}
