import Foundation
import LiveLog
import TestSupport
import Testing

@testable import LiveLogReplication

/// A stream of three copies on a cluster of three servers.
@Suite(.serialized) struct ClusterTests {
  /// Opens the replication through `server` once the cluster has elected its JetStream leader
  /// (at most 20 s).
  static func replication(_ store: Store, _ server: NATSServer) throws -> Replication {
    var configuration = ReplicationConfiguration(servers: [server.url], stream: "notes")
    configuration.replicas = 3
    let deadline = Date().addingTimeInterval(20)
    while true {
      do {
        return try Replication(store: store, configuration: configuration)
      } catch is ReplicationError where Date() < deadline {
        usleep(200_000)
      }
    }
  }

  @Test func aWriterOnOneServerAndAReplicaOnAnotherConverge() throws {
    let servers = try NATSServer.cluster()
    let directory = try TemporaryDirectory()
    let writer = try Fixtures.store(directory.child("writer"))
    let replica = try Fixtures.store(directory.child("replica"))
    let writing = try Self.replication(writer, servers[0])
    let following = try Self.replication(replica, servers[2])
    let follower = BackgroundFollower(following)
    try ReplicationTests.writeHistory(writer, commits: 40, seed: 9)
    let version = try writer.version()
    try Fixtures.wait("the replica to reach \(version)") {
      if let failure = follower.failure { throw failure }
      return try replica.version() == version
    }
    try follower.stop()
    #expect(try replica.digest() == writer.digest())
    let state = try #require(try writing.jetStream.streamState("notes"))
    #expect(state.lastSequence == (try writing.status().sequence))
    #expect(servers.contains { $0.name == state.leader })
  }
}
