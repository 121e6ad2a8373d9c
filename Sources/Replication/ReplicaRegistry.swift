import Synchronization

/// A replica of a stream, as it last said where it stands.
public struct RegisteredReplica: Sendable, Hashable {
  /// The store's replica id (16 hex digits, made at random when it first replicated).
  public var id: String
  /// The stream sequence it had applied when it last said so; it may be further by now.
  public var sequence: UInt64

  public init(id: String, sequence: UInt64) {
    self.id = id
    self.sequence = sequence
  }
}

/// Where the replicas of a stream stand, and the position of its newest snapshot: what a purge
/// may not pass. Kept in the JetStream key-value bucket `livelog-<stream>` — key
/// `replica.<id>` → the replica's sequence, key `snapshot` → the newest snapshot's — so that
/// it lives and fails over with the servers, as the stream does.
///
/// A replica's entry only ever lags its store (it is written after the position it names was
/// committed), so a purge below the smallest entry never removes a message a registered replica
/// still needs.
struct ReplicaRegistry: Sendable {
  let bucket: KeyValueBucket

  static let replicaPrefix = "replica."
  static let snapshotKey = "snapshot"

  init(_ jetStream: JetStream, stream: String, replicas: Int) throws(ReplicationError) {
    bucket = try jetStream.bucket("livelog-\(stream)", replicas: max(1, replicas))
  }

  func register(_ id: String, at sequence: UInt64) throws(ReplicationError) {
    try bucket.put(Self.replicaPrefix + id, String(sequence))
  }

  func forget(_ id: String) throws(ReplicationError) {
    try bucket.delete(Self.replicaPrefix + id)
  }

  /// Every registered replica, by id.
  func replicas() throws(ReplicationError) -> [RegisteredReplica] {
    var found: [RegisteredReplica] = []
    for key in try bucket.keys() where key.hasPrefix(Self.replicaPrefix) {
      guard let sequence = try bucket.get(key).flatMap(UInt64.init) else { continue }
      found.append(RegisteredReplica(id: String(key.dropFirst(Self.replicaPrefix.count)), sequence: sequence))
    }
    return found.sorted { $0.id < $1.id }
  }

  /// The stream sequence of the newest snapshot written, if any.
  func snapshotSequence() throws(ReplicationError) -> UInt64? {
    try bucket.get(Self.snapshotKey).flatMap(UInt64.init)
  }

  /// Records a snapshot's position, unless a newer snapshot was recorded.
  func recordSnapshot(at sequence: UInt64) throws(ReplicationError) {
    if let newest = try snapshotSequence(), newest >= sequence { return }
    try bucket.put(Self.snapshotKey, String(sequence))
  }
}

/// A store's entry in its stream's registry, and when it was last written.
final class Registration: Sendable {
  let registry: ReplicaRegistry
  /// The store's replica id.
  let id: String
  private let last = Mutex<(sequence: UInt64, at: ContinuousClock.Instant)?>(nil)

  init(registry: ReplicaRegistry, id: String) {
    self.registry = registry
    self.id = id
  }

  /// Says that the store has applied the stream up to `sequence` (committed already).
  func register(_ sequence: UInt64) throws(ReplicationError) {
    try registry.register(id, at: sequence)
    last.withLock { $0 = (sequence, .now) }
  }

  /// `register`, when the entry says less and was written more than a second ago: for the
  /// paths that run per commit. A failure leaves the entry lower than the store, which only
  /// holds purges back, so it is not reported here.
  func registerIfDue(_ sequence: UInt64) {
    let due = last.withLock { last in
      guard let last else { return true }
      return last.sequence < sequence && ContinuousClock.now - last.at > .seconds(1)
    }
    if due { try? register(sequence) }
  }
}
