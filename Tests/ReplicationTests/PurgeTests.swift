import Foundation
import LiveLog
import TestSupport
import Testing

@testable import LiveLogReplication

/// Purging a stream below what every registered replica and the newest snapshot have passed.
@Suite(.serialized) struct PurgeTests {
  @Test func aPurgeKeepsWhatEveryRegisteredReplicaAndTheSnapshotNeed() throws {
    let server = try NATSServer()
    let pair = try StorePair(server)
    let configuration = SnapshotTests.configuration(server)
    #expect(throws: ReplicationError.noSnapshot(stream: "notes")) { _ = try Replication.purge(configuration) }
    try ReplicationTests.writeHistory(pair.writer, commits: 19, seed: 21)
    try pair.following.catchUp()
    let replicaAt = try pair.following.status().sequence
    try ReplicationTests.writeHistory(pair.writer, commits: 10, seed: 22)
    try pair.writing.catchUp()
    let file = pair.directory.child("notes.snapshot")
    let stamp = try pair.writing.writeSnapshot(to: file)
    let head = try pair.writing.status().sequence
    #expect(stamp.sequence == head && head > replicaAt + 5 && replicaAt > 5)
    // The replica holds the purge at its position; the message there itself stays.
    let first = try Replication.purge(configuration)
    #expect(first.purged && first.firstSequence == replicaAt)
    #expect(first.snapshotSequence == head && first.streamHead == head)
    #expect(
      Set(first.replicas) == [
        RegisteredReplica(id: pair.writing.replicaID, sequence: head),
        RegisteredReplica(id: pair.following.replicaID, sequence: replicaAt),
      ])
    #expect(try pair.writing.jetStream.streamState("notes")?.firstSequence == replicaAt)
    // The replica goes on from the stream, and once it says so the purge reaches the snapshot.
    #expect(try pair.following.catchUp() == Int(head - replicaAt))
    #expect(try pair.replica.digest() == pair.writer.digest())
    let second = try Replication.purge(configuration)
    #expect(second.purged && second.firstSequence == head)
    #expect(try !Replication.purge(configuration).purged)
    // A new, empty replica is told to bootstrap; bootstrapped, it follows.
    let empty = try Fixtures.store(pair.directory.child("empty"))
    #expect(throws: ReplicationError.purged(stream: "notes", sequence: 0, firstSequence: head)) {
      _ = try Fixtures.replication(empty, server)
    }
    try pair.writer.write([.upsert(Note(id: 900, text: "after the purge", score: 9))])
    let bootstrapped = try Replication.bootstrap(
      from: file, into: pair.directory.child("new"), configuration: configuration)
    #expect(try bootstrapped.catchUp() == 1)
    #expect(try bootstrapped.store.digest() == pair.writer.digest())
  }

  @Test func aReplicaBelowThePurgedStreamFailsClearly() throws {
    let server = try NATSServer()
    let pair = try StorePair(server)
    let configuration = SnapshotTests.configuration(server)
    try ReplicationTests.writeHistory(pair.writer, commits: 9, seed: 23)
    try pair.following.catchUp()
    let replicaAt = try pair.following.status().sequence
    try ReplicationTests.writeHistory(pair.writer, commits: 10, seed: 24)
    try pair.writing.catchUp()
    let stamp = try pair.writing.writeSnapshot(to: pair.directory.child("notes.snapshot"))
    #expect(stamp.sequence > replicaAt)
    // The replica is forgotten (as one gone for good would be), so the purge passes it.
    try Replication.forgetReplica(pair.following.replicaID, configuration)
    #expect(try Replication.registeredReplicas(configuration).map(\.id) == [pair.writing.replicaID])
    #expect(try Replication.purge(configuration).firstSequence == stamp.sequence)
    let purged = ReplicationError.purged(stream: "notes", sequence: replicaAt, firstSequence: stamp.sequence)
    #expect(throws: purged) { try pair.following.catchUp() }
    // A follower stops at once with the same error, rather than report a divergence or wait.
    let version = try pair.replica.version()
    let follower = BackgroundFollower(pair.following)
    try Fixtures.wait("the follower to stop") { follower.failure != nil }
    #expect(throws: purged) { try follower.stop() }
    #expect(try pair.replica.version() == version)
    #expect(throws: purged) { _ = try Fixtures.replication(pair.replica, server) }
    #expect("\(purged)".contains("Bootstrap this replica from a snapshot"))
  }
}
