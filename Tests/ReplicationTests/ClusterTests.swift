import Foundation
import LiveLog
import TestSupport
import Testing

@testable import LiveLogReplication

/// A stream of three copies on a cluster of three servers.
@Suite(.serialized) struct ClusterTests {
  /// Opens the replication once the cluster has elected its JetStream leader (at most 20 s).
  static func replication(_ store: Store, _ servers: [NATSServer]) throws -> Replication {
    var configuration = ReplicationConfiguration(servers: servers.map(\.url), stream: "notes")
    configuration.replicas = 3
    configuration.timeoutMilliseconds = 1000
    configuration.attempts = 3
    let deadline = Date().addingTimeInterval(20)
    while true {
      do {
        return try Replication(store: store, configuration: configuration)
      } catch is ReplicationError where Date() < deadline {
        usleep(200_000)
      }
    }
  }

  /// Writes `note`, again while the stream does not acknowledge it (an election; at most 30
  /// times): an unacknowledged commit may be in the stream, and the next attempt catches up first.
  static func write(_ note: Note, to store: Store) throws {
    var failures = 0
    while true {
      do {
        try store.write([.upsert(note)])
        return
      } catch is ReplicationError where failures < 30 {
        failures += 1
        usleep(200_000)
      }
    }
  }

  @Test func everyAcknowledgedCommitSurvivesAKillOfTheStreamLeader() throws {
    let servers = try NATSServer.cluster()
    let directory = try TemporaryDirectory()
    let writer = try Fixtures.store(directory.child("writer"))
    let replica = try Fixtures.store(directory.child("replica"))
    let writing = try Self.replication(writer, servers)
    let follower = BackgroundFollower(try Self.replication(replica, servers))
    for id in 0..<20 { try Self.write(Note(id: Int64(id), text: "before", score: id), to: writer) }
    var leaderName: String?
    try Fixtures.wait("the stream's leader") {
      leaderName = try? writing.jetStream.streamState("notes")?.leader
      return leaderName != nil
    }
    let leader = try #require(servers.first { $0.name == leaderName })
    leader.stop(SIGKILL)
    for id in 20..<40 { try Self.write(Note(id: Int64(id), text: "after", score: id), to: writer) }
    // The cluster may still be electing its JetStream leader, which answers stream lookups.
    try Fixtures.wait("the writer to catch up") { (try? writing.catchUp()) != nil }
    let version = try writer.version()
    try Fixtures.wait("the replica to reach \(version)") {
      if let failure = follower.failure { throw failure }
      return try replica.version() == version
    }
    try follower.stop()
    #expect(try writer.count(Note.self) == 40)
    #expect(try replica.digest() == writer.digest())
    var found: StreamState?
    try Fixtures.wait("the stream's state") {
      found = try? writing.jetStream.streamState("notes")
      return found != nil
    }
    let state = try #require(found)
    // One message per commit: the collection, 40 notes; none lost, none twice.
    #expect(state.lastSequence == 41)
    #expect(state.leader != leaderName)
    withExtendedLifetime(servers) {}
  }
}
