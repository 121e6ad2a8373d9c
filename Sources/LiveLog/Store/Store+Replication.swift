import LMDB
import Synchronization

// The hook a replication library (LiveLogReplication) needs, and nothing of replication itself:
// every local commit passes a gate inside its write transaction, and commits that arrive from
// elsewhere are applied through `EventApplier` with the stream position in the same transaction.

/// Where a store stands in the stream its log is replicated through: the stream sequence of the
/// last commit it applied, and its version after that commit.
@_spi(Replication) public struct StreamPosition: Sendable, Hashable {
  public var stream: String
  public var sequence: UInt64
  public var lsn: UInt64

  public init(stream: String, sequence: UInt64, lsn: UInt64) {
    self.stream = stream
    self.sequence = sequence
    self.lsn = lsn
  }
}

/// One commit's events, each in the log's own encoding (sealed, with its checksum), and the
/// checksum of the event before them: a commit applies only after the event it was made after,
/// so a replica tells a foreign history that reached its position from its own.
@_spi(Replication) public struct EncodedCommit: Sendable, Hashable {
  public var firstLSN: UInt64
  public var events: [[UInt8]]
  /// The stored checksum of event `firstLSN - 1`; 0 for a commit at the start of the log.
  public var previousChecksum: UInt32

  public init(firstLSN: UInt64, events: [[UInt8]], previousChecksum: UInt32) {
    self.firstLSN = firstLSN
    self.events = events
    self.previousChecksum = previousChecksum
  }

  public var lastLSN: UInt64 { firstLSN + UInt64(events.count) - 1 }

  /// Checks every event's checksum (which covers its LSN) and that only the last ends the commit.
  public func validate() throws {
    for (offset, bytes) in events.enumerated() {
      let lsn = firstLSN + UInt64(offset)
      let ends = try bytes.withUnsafeBytes { try EventCodec.header($0, lsn: lsn).endsCommit }
      guard ends == (offset == events.count - 1) else {
        throw StoreError.corruptEvent(
          lsn: lsn,
          reason: ends ? "it ends a commit before the commit's last event" : "the commit does not end")
      }
    }
  }
}

/// What every local commit of a replicated store passes before it commits.
@_spi(Replication) public protocol CommitGate: Sendable {
  /// Publishes `commit`, made by a write transaction that is still open on this thread, and
  /// returns the position it took, which is written in the same transaction. Throwing aborts the
  /// transaction: `StoreIsBehind` to catch up (`catchUp`) and run the write again, anything else
  /// to fail the write.
  func admit(_ commit: EncodedCommit, after position: StreamPosition?) throws -> StreamPosition
  /// Applies the commits the stream has beyond the store's position; called outside any
  /// transaction, after `admit` threw `StoreIsBehind`.
  func catchUp() throws
}

/// Thrown by a `CommitGate` when another writer's commit took the position the commit wanted.
@_spi(Replication) public struct StoreIsBehind: Error, Sendable {
  public init() {}
}

/// A commit to apply from the stream: its last message took `position`, and the store must
/// stand at sequence `previous` before it.
@_spi(Replication) public struct ReplicatedCommit: Sendable, Hashable {
  public var commit: EncodedCommit
  public var position: StreamPosition
  public var previous: UInt64

  public init(commit: EncodedCommit, position: StreamPosition, previous: UInt64) {
    self.commit = commit
    self.position = position
    self.previous = previous
  }
}

/// What `applyReplicated` did.
@_spi(Replication) public enum ReplicatedApply: Sendable, Hashable {
  case applied
  /// The store had applied the commit (or a later one) already: through its own write, or
  /// another follower of the same store.
  case alreadyApplied(StreamPosition)
  /// The commit does not continue the store: its position or its first LSN is not the next.
  case notNext(position: StreamPosition?, version: UInt64)
  /// The commit was made after another event than the store's last.
  case otherHistory(version: UInt64)
}

/// A store's gate and the database of its stream position.
struct ReplicationLink: Sendable {
  let gate: any CommitGate
  let database: Database

  static let positionKey = Array("position".utf8)
  /// The store's name among its stream's replicas (`Store.replicaID`).
  static let replicaIDKey = Array("replica-id".utf8)

  func position(_ txn: some ReadableTransaction) throws -> StreamPosition? {
    try Self.position(in: database, txn)
  }

  static func position(in database: Database, _ txn: some ReadableTransaction) throws -> StreamPosition? {
    guard let bytes = try txn.get(database, positionKey) else { return nil }
    guard bytes.count > 16 else {
      throw StoreError.corruptState(reason: "the stream position has \(bytes.count) bytes")
    }
    return StreamPosition(
      stream: String(decoding: bytes[16...], as: UTF8.self),
      sequence: UInt64(littleEndian: bytes.loadUnaligned(as: UInt64.self)),
      lsn: UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self)))
  }

  func write(_ position: StreamPosition, _ txn: WriteTransaction) throws {
    var bytes: [UInt8] = []
    withUnsafeBytes(of: position.sequence.littleEndian) { bytes.append(contentsOf: $0) }
    withUnsafeBytes(of: position.lsn.littleEndian) { bytes.append(contentsOf: $0) }
    bytes.append(contentsOf: position.stream.utf8)
    try txn.put(database, Self.positionKey, bytes)
  }
}

extension Store {
  /// Makes every later commit of this store pass `gate`, and returns where the store stands:
  /// its stream position (`nil` when it never replicated) and its version. Opens (creating)
  /// the store's `replication` database, which no digest or replay includes: where a store
  /// stands in a stream is not part of its contents (a repair copies it, `copyReplication`).
  @_spi(Replication) public func attachReplication(_ gate: any CommitGate) throws -> (
    position: StreamPosition?, version: UInt64
  ) {
    guard !options.readOnly else { throw StoreError.readOnly(path: directory) }
    let database = try environment.write { txn in
      try environment.openDatabase(StoreLayout.replication, create: true, in: txn)
    }
    let link = ReplicationLink(gate: gate, database: database)
    replicationLink.withLock { $0 = link }
    return try environment.read { txn in (try link.position(txn), try log.lastLSN(txn)) }
  }

  /// Ends what `attachReplication` began: later commits are local only.
  @_spi(Replication) public func detachReplication() {
    replicationLink.withLock { $0 = nil }
  }

  /// The store's stream position, or `nil` when it never replicated.
  @_spi(Replication) public func streamPosition() throws -> StreamPosition? {
    if let link = replicationLink.withLock({ $0 }) { return try environment.read { try link.position($0) } }
    do {
      return try environment.readOpeningDatabases { txn in
        let database = try environment.openDatabase(StoreLayout.replication, create: false, in: txn)
        return try ReplicationLink.position(in: database, txn)
      }
    } catch let error as LMDBError where error.isNotFound {
      return nil
    }
  }

  /// The events `first...last` of the log, as one commit.
  @_spi(Replication) public func loggedCommit(from first: UInt64, through last: UInt64) throws
    -> EncodedCommit
  {
    try environment.read { txn in
      var events: [[UInt8]] = []
      try log.forEachRaw(from: first, through: last, txn) { _, bytes in
        events.append(Array(bytes))
        return true
      }
      return EncodedCommit(
        firstLSN: first, events: events, previousChecksum: try checksum(of: first - 1, txn))
    }
  }

  /// This store's name among the replicas of its stream: 16 hex digits made at random the first
  /// time it is asked, kept in the `replication` database. A store restored from a snapshot
  /// (a copy of another store) drops the copied one first, with `forgetReplicaID`.
  @_spi(Replication) public func replicaID() throws -> String {
    try environment.write { txn in
      let database = try environment.openDatabase(StoreLayout.replication, create: true, in: txn)
      if let bytes = try txn.get(database, ReplicationLink.replicaIDKey) {
        return String(decoding: bytes, as: UTF8.self)
      }
      var random = SystemRandomNumberGenerator()
      let hex = String(random.next() as UInt64, radix: 16)
      let id = String(repeating: "0", count: 16 - hex.count) + hex
      try txn.put(database, ReplicationLink.replicaIDKey, Array(id.utf8))
      return id
    }
  }

  /// Copies the `replication` database, if the store has one, into `target`, a rebuild of this
  /// store's whole log (`InPlaceRepair`): the stream position describes the log, which the
  /// rebuild keeps, and the replica id names the store, which the rebuild replaces. A replay
  /// into another directory or to an earlier version does not copy it: that store is another
  /// one, at a version the position may not describe.
  func copyReplication(to target: Store) throws {
    let entries: [([UInt8], [UInt8])]
    do {
      entries = try environment.readOpeningDatabases { txn in
        let database = try environment.openDatabase(StoreLayout.replication, create: false, in: txn)
        return try txn.withCursor(database) { cursor in
          var entries: [([UInt8], [UInt8])] = []
          var entry = try cursor.first()
          while let current = entry {
            entries.append((Array(current.key), Array(current.value)))
            entry = try cursor.next()
          }
          return entries
        }
      }
    } catch let error as LMDBError where error.isNotFound {
      return
    }
    try target.environment.write { txn in
      let database = try target.environment.openDatabase(StoreLayout.replication, create: true, in: txn)
      for (key, value) in entries { try txn.put(database, key, value) }
    }
  }

  /// Drops the store's replica id, so that the next `replicaID` makes a new one.
  @_spi(Replication) public func forgetReplicaID() throws {
    try environment.write { txn in
      let database = try environment.openDatabase(StoreLayout.replication, create: true, in: txn)
      _ = try txn.delete(database, ReplicationLink.replicaIDKey)
    }
  }

  /// The stored checksum of the event at `lsn`; 0 for LSN 0.
  func checksum(of lsn: UInt64, _ txn: some ReadableTransaction) throws -> UInt32 {
    guard lsn > 0 else { return 0 }
    guard let bytes = try txn.get(log.database, lsn), let checksum = Self.storedChecksum(bytes) else {
      throw StoreError.corruptEvent(lsn: lsn, reason: "missing from the log")
    }
    return checksum
  }

  /// The checksum a stored event's bytes end with; `nil` when they are shorter than one.
  static func storedChecksum(_ bytes: UnsafeRawBufferPointer) -> UInt32? {
    guard bytes.count >= EventCodec.checksumSize else { return nil }
    return UInt32(
      littleEndian: bytes.loadUnaligned(
        fromByteOffset: bytes.count - EventCodec.checksumSize, as: UInt32.self))
  }

  /// Appends and materializes a commit whose last message took `position` in the stream, and
  /// records the position, in one write transaction — unless the store has applied it already,
  /// or it does not continue the store: the store must stand at stream sequence `previous`
  /// (the messages between it and the commit were parts of commits never completed). Live
  /// queries hear of it as of any commit.
  @_spi(Replication) public func applyReplicated(
    _ commit: EncodedCommit, at position: StreamPosition, after previous: UInt64
  ) throws -> ReplicatedApply {
    let (_, stopped) = try applyReplicated([
      ReplicatedCommit(commit: commit, position: position, previous: previous)
    ])
    return stopped ?? .applied
  }

  /// `applyReplicated(_:at:after:)` for consecutive commits, in one write transaction (one sync
  /// for all, which is what makes a catch-up fast): applies them in order up to the first that
  /// is not the next, and returns how many it applied and, if it stopped, why (of the first
  /// commit not applied). Live queries hear of them as of one commit.
  @_spi(Replication) public func applyReplicated(_ commits: [ReplicatedCommit]) throws -> (
    applied: Int, stopped: ReplicatedApply?
  ) {
    guard let link = replicationLink.withLock({ $0 }) else {
      throw StoreError.corruptState(reason: "applyReplicated needs attachReplication first")
    }
    for item in commits { try item.commit.validate() }
    let (applied, stopped) = try environment.write { txn -> (Int, ReplicatedApply?) in
      var current = try link.position(txn)
      var version = try log.lastLSN(txn)
      // The stored checksum of the store's last event: read for the first commit, then the
      // last event of each commit taken (each event's stored bytes end with their checksum).
      var lastChecksum = try checksum(of: version, txn)
      var events: [(lsn: UInt64, bytes: [UInt8])] = []
      var stopped: ReplicatedApply?
      var taken = 0
      for item in commits {
        if let current, current.sequence >= item.position.sequence {
          stopped = .alreadyApplied(current)
          break
        }
        let commit = item.commit
        guard (current?.sequence ?? 0) == item.previous, item.previous < item.position.sequence,
          version + 1 == commit.firstLSN, item.position.lsn == commit.lastLSN
        else {
          stopped = .notNext(position: current, version: version)
          break
        }
        guard lastChecksum == commit.previousChecksum else {
          stopped = .otherHistory(version: version)
          break
        }
        events += commit.events.enumerated().map { (commit.firstLSN + UInt64($0.offset), $0.element) }
        guard let checksum = commit.events.last?.withUnsafeBytes({ Self.storedChecksum($0) }) else {
          throw StoreError.corruptEvent(lsn: commit.lastLSN, reason: "it is shorter than its checksum")
        }
        lastChecksum = checksum
        current = item.position
        version = commit.lastLSN
        taken += 1
      }
      if taken > 0, let current {
        try EventApplier(target: self).apply(events, in: txn)
        try link.write(current, txn)
      }
      return (taken, stopped)
    }
    if applied > 0 { try catalog.refresh() }
    return (applied, stopped)
  }

  /// `environment.write` for transactions that may append events: when the store replicates,
  /// each commit they append passes the gate before the transaction commits, and the stream
  /// position it took is written with it. When another writer got there first, the store catches
  /// up and runs `body` again — with the state it now reads. `grouped` lets a store that does not
  /// replicate share the transaction with other threads' commits (`write(grouped:_:)`); a
  /// replicating store commits alone, as its transaction waits for the stream's acknowledgement
  /// of exactly its own commits.
  func writeCommit<R>(grouped: Bool = false, _ body: (WriteTransaction) throws -> R) throws -> R {
    guard let link = replicationLink.withLock({ $0 }) else { return try write(grouped: grouped, body) }
    while true {
      do {
        return try environment.write { txn in
          let before = try log.lastLSN(txn)
          let value = try body(txn)
          let after = try log.lastLSN(txn)
          guard after > before else { return value }
          var position = try link.position(txn)
          for commit in try commits(from: before + 1, through: after, txn) {
            position = try link.gate.admit(commit, after: position)
          }
          if let position { try link.write(position, txn) }
          return value
        }
      } catch is StoreIsBehind {
        try link.gate.catchUp()
      }
    }
  }

  /// The events `first...last`, split into commits at each commit's last event.
  private func commits(from first: UInt64, through last: UInt64, _ txn: some ReadableTransaction) throws
    -> [EncodedCommit]
  {
    var commits: [EncodedCommit] = []
    var current = EncodedCommit(
      firstLSN: first, events: [], previousChecksum: try checksum(of: first - 1, txn))
    try log.forEachRaw(from: first, through: last, txn) { lsn, bytes in
      current.events.append(Array(bytes))
      let header = try EventCodec.header(bytes, lsn: lsn)
      if header.endsCommit {
        commits.append(current)
        current = EncodedCommit(firstLSN: lsn + 1, events: [], previousChecksum: try checksum(of: lsn, txn))
      }
      return true
    }
    if !current.events.isEmpty { commits.append(current) }
    return commits
  }
}
