import Foundation
import LiveLog
import TestSupport
import Testing

@testable import LiveLogReplication

/// A stream of three copies on a `Cluster`, and three LiveLog replicas of it: two stores in this
/// process that write at once and follow (A and B), and a `livelog follow` process (C), which a
/// test may kill and start again.
final class ClusterRun {
  let cluster: Cluster
  let stream: String
  let directory: TemporaryDirectory
  let stores: [Store]
  let replications: [Replication]
  let followers: [BackgroundFollower]
  let replicaPath: String
  private(set) var replica: FollowProcess
  /// What each earlier run of C printed as applied, in order.
  private(set) var replicaRuns: [[UInt64]] = []
  private(set) var writers: ConcurrentWriters?

  init(_ cluster: Cluster, stream: String = "notes") throws {
    self.cluster = cluster
    self.stream = stream
    directory = try TemporaryDirectory()
    let directory = self.directory
    let stores = try ["a", "b"].map { try Fixtures.store(directory.child($0)) }
    let replications = try stores.map { try Self.replication($0, cluster, stream: stream) }
    self.stores = stores
    self.replications = replications
    followers = replications.map { BackgroundFollower($0) }
    // The stream's first commits (the collection, the counter), so that C shows it has started.
    // A stream just made has no leader for a moment: "no responders" until it has.
    try Self.retrying("the first commit") {
      _ = try stores[0].write([.upsert(Note(id: ConcurrentWriters.counterID, text: "counter", score: 0))])
    }
    replicaPath = directory.child("c")
    replica = try Self.startReplica(replicaPath, cluster, stream: stream)
  }

  /// Starts `livelog follow` and waits (at most 60 s) until it applies a commit. It exits when
  /// no server answers as it opens the stream (an election under way): it is started again then,
  /// as a supervisor would.
  static func startReplica(_ path: String, _ cluster: Cluster, stream: String) throws -> FollowProcess {
    let deadline = Date().addingTimeInterval(60)
    while true {
      let replica = try FollowProcess(store: path, servers: cluster.urls, stream: stream, replicas: 3)
      try Fixtures.wait("livelog follow to apply a commit", seconds: 60) {
        !replica.applied.isEmpty || !replica.process.isRunning
      }
      if replica.process.isRunning { return replica }
      let ended = FollowerEnded(
        status: replica.process.terminationStatus, standardError: replica.standardError)
      guard Date() < deadline, !ended.standardError.contains("diverged") else { throw ended }
      print("ClusterTests: livelog follow exited as it started, started again: \(ended)")
      usleep(500_000)
    }
  }

  /// Opens the replication once the cluster has elected its JetStream leader (at most 60 s).
  static func replication(_ store: Store, _ cluster: Cluster, stream: String) throws -> Replication {
    var configuration = ReplicationConfiguration(servers: cluster.urls, stream: stream)
    configuration.replicas = 3
    configuration.timeoutMilliseconds = 1000
    configuration.attempts = 3
    let deadline = Date().addingTimeInterval(60)
    while true {
      do {
        return try Replication(store: store, configuration: configuration)
      } catch let error as ReplicationError where Date() < deadline {
        if case .diverged = error { throw error }
        usleep(200_000)
      }
    }
  }

  /// Runs `body` again while it fails with a `ReplicationError` other than a divergence (the
  /// servers answer no request while they elect a leader, or too slowly under load), for at most
  /// 60 s.
  static func retrying(_ what: String, _ body: () throws -> Void) throws {
    let deadline = Date().addingTimeInterval(60)
    while true {
      do {
        return try body()
      } catch let error as ReplicationError where Date() < deadline {
        if case .diverged = error { throw error }
        print("ClusterTests: \(what) failed, tried again: \(error)")
        usleep(200_000)
      }
    }
  }

  /// A and B start writing at once.
  func startWriters() {
    writers = ConcurrentWriters(stores)
  }

  /// The running node that leads the stream (waits for an election, at most 60 s).
  func streamLeader() throws -> Int {
    var leader: Int?
    try Fixtures.wait("a running leader of \(stream)", seconds: 60) {
      let name = try? replications[0].jetStream.streamState(stream)?.leader
      leader = cluster.index(named: name).flatMap { cluster.servers[$0].isRunning ? $0 : nil }
      return leader != nil
    }
    return try #require(leader)
  }

  /// The stream's last sequence, once a leader answers (at most 60 s).
  func head() throws -> UInt64 {
    var head: UInt64?
    try Fixtures.wait("the head of \(stream)", seconds: 60) {
      head = try? replications[0].jetStream.streamState(stream)?.lastSequence
      return head != nil
    }
    return try #require(head)
  }

  /// Waits until every node's copy holds the stream's head as it is now.
  func waitUntilEveryCopyIsCurrent() throws {
    try cluster.waitUntilCurrent(stream, head: try head())
  }

  /// Ends C with `signal` and starts it again on the same store; returns how the first ended.
  @discardableResult
  func restartReplica(_ signal: Int32) throws -> Int32 {
    let status = replica.end(signal)
    replicaRuns.append(replica.applied)
    replica = try Self.startReplica(replicaPath, cluster, stream: stream)
    return status
  }

  /// C's stream position as `livelog stats` reports it.
  func replicaSequence() throws -> UInt64? {
    let stats = try FollowCommandTests.livelog(
      ["--store", replicaPath, "stats", "--format", "json"], input: "")
    let key = "\"replication\":{\"stream\":\"\(stream)\",\"sequence\":"
    guard let start = stats.output.range(of: key)?.upperBound else { return nil }
    return UInt64(stats.output[start...].prefix { $0.isNumber })
  }

  /// Waits (at most 60 s) until A, B and C have applied the stream up to `head`.
  func waitForReplicas(_ head: UInt64) throws {
    for (name, store) in zip(["A", "B"], stores) {
      try Fixtures.wait("replica \(name) to reach \(head)", seconds: 60) {
        if let failure = followers.first(where: { $0.failure != nil })?.failure { throw failure }
        return try Replication.storedStatus(of: store)?.sequence == head
      }
    }
    var lastAsked = Date.distantPast
    try Fixtures.wait("replica C to reach \(head)", seconds: 60) {
      guard replica.process.isRunning else {
        throw FollowerEnded(status: replica.process.terminationStatus, standardError: replica.standardError)
      }
      if replica.applied.last == head { return true }
      // C prints only what it applies: one started after its last commit prints nothing.
      guard Date().timeIntervalSince(lastAsked) > 0.5 else { return false }
      lastAsked = Date()
      return try replicaSequence() == head
    }
  }

  struct FollowerEnded: Error, CustomStringConvertible {
    var status: Int32
    var standardError: String
    var description: String { "livelog follow ended with status \(status): \(standardError)" }
  }

  /// Stops the writers, starts every node that is down, waits until A, B and C hold the whole
  /// stream, stops them, and checks the run: every acknowledged commit is on every replica,
  /// once; the stream holds one message per commit; every replica's digest equals the others'
  /// and its own replay's.
  func finish(sourceLocation: SourceLocation = #_sourceLocation) throws {
    try writers?.stop()
    for index in cluster.servers.indices where !cluster.servers[index].isRunning {
      try cluster.restart(index)
    }
    let head = try head()
    try waitForReplicas(head)
    for follower in followers { try follower.stop() }
    #expect(replica.end(SIGTERM) == 0, "\(replica.standardError)", sourceLocation: sourceLocation)
    replicaRuns.append(replica.applied)
    let storeC = try Fixtures.store(replicaPath)
    let acknowledged = (writers?.acknowledged ?? []).flatMap { $0 }
    let digest = try stores[0].digest()
    for (name, store) in zip(["A", "B", "C"], stores + [storeC]) {
      // One message for the collection, one for the counter (note 0), then one per commit, each
      // adding one note and counting it: a commit lost, or applied twice, breaks one of these.
      let notes = try store.count(Note.self)
      #expect(UInt64(notes) + 1 == head, "replica \(name)", sourceLocation: sourceLocation)
      let counter = try store.record(Note.self, id: ConcurrentWriters.counterID)?.score
      #expect(counter == notes - 1, "replica \(name)", sourceLocation: sourceLocation)
      let missing = try acknowledged.filter { try store.record(Note.self, id: $0) == nil }
      #expect(missing.isEmpty, "replica \(name) lacks acknowledged notes", sourceLocation: sourceLocation)
      #expect(try store.digest() == digest, "replica \(name)", sourceLocation: sourceLocation)
      let replay = try store.replay(into: directory.child("replay-\(name)"))
      #expect(
        try replay.digest() == store.digest(), "replica \(name)'s replay", sourceLocation: sourceLocation)
    }
    // C applied no commit twice across its runs, each run in stream order.
    let printed = replicaRuns.flatMap { $0 }
    #expect(
      printed == printed.sorted() && Set(printed).count == printed.count, sourceLocation: sourceLocation)
    #expect(try Replication.storedStatus(of: storeC)?.sequence == head, sourceLocation: sourceLocation)
  }
}
