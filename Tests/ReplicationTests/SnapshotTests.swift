import Foundation
import LiveLog
import TestSupport
import Testing

@testable import LiveLogReplication

/// Snapshots of a replicated store, and new replicas bootstrapped from them.
@Suite(.serialized) struct SnapshotTests {
  @Test func aReplicaBootstrappedFromASnapshotFollowsToTheWritersState() throws {
    let server = try NATSServer()
    let pair = try StorePair(server)
    try ReplicationTests.writeHistory(pair.writer, commits: 30, seed: 11)
    try pair.following.catchUp()
    let file = pair.directory.child("notes.snapshot")
    // The snapshot is of the replica: any store of the stream will do.
    let stamp = try pair.following.writeSnapshot(to: file)
    let status = try pair.following.status()
    #expect(
      stamp
        == SnapshotStamp(
          stream: "notes", sequence: status.sequence, version: status.version,
          lastChecksum: stamp.lastChecksum))
    #expect(stamp.sequence > 1)
    let atSnapshot = try pair.replica.digest()
    try ReplicationTests.writeHistory(pair.writer, commits: 20, seed: 12)

    let bootstrapped = try Replication.bootstrap(
      from: file, into: pair.directory.child("new"), configuration: Self.configuration(server))
    let store = bootstrapped.store
    #expect(try store.version() == stamp.version)
    #expect(try store.digest() == atSnapshot)
    #expect(bootstrapped.replicaID != pair.following.replicaID)
    let head = try pair.writing.status().sequence
    #expect(try bootstrapped.catchUp() == Int(head - stamp.sequence))
    #expect(try store.digest() == pair.writer.digest())
    let rebuilt = try store.replay(into: pair.directory.child("replay"))
    #expect(try rebuilt.digest() == store.digest())
    // It writes through the stream too, from where it stands.
    try store.write([.upsert(Note(id: 500, text: "from the bootstrapped replica", score: 5))])
    try pair.writing.catchUp()
    #expect(try pair.writer.record(Note.self, id: 500)?.score == 5)
    #expect(try store.digest() == pair.writer.digest())
  }

  @Test func aSnapshotOfAnotherStreamOrBeyondTheStreamIsRefused() throws {
    let server = try NATSServer()
    let directory = try TemporaryDirectory()
    let writer = try Fixtures.store(directory.child("writer"))
    let writing = try Fixtures.replication(writer, server, stream: "a")
    try ReplicationTests.writeHistory(writer, commits: 5, seed: 13)
    let file = directory.child("a.snapshot")
    try writing.writeSnapshot(to: file)
    let target = directory.child("target")
    #expect(throws: ReplicationError.snapshotOfOtherStream(path: file, stream: "a", asked: "b")) {
      _ = try Replication.bootstrap(
        from: file, into: target, configuration: Self.configuration(server, stream: "b"))
    }
    #expect(!FileManager.default.fileExists(atPath: target))
    // Another server's stream "a", of two commits: the snapshot is beyond its head.
    let other = try NATSServer()
    let otherWriter = try Fixtures.store(directory.child("other"))
    let otherWriting = try Fixtures.replication(otherWriter, other, stream: "a")
    try otherWriter.write([.upsert(Note(id: 1, text: "another history", score: 1))])
    #expect {
      _ = try Replication.bootstrap(
        from: file, into: target, configuration: Self.configuration(other, stream: "a"))
    } throws: { error in
      guard case .snapshotNotInStream(file, "a", 6, let reason) = error as? ReplicationError else {
        return false
      }
      return reason.contains("the stream's head is 2")
    }
    // Once that stream is as long, its message at the snapshot's position is another commit.
    try ReplicationTests.writeHistory(otherWriter, commits: 6, seed: 14)
    try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: false)
    #expect {
      _ = try Replication.bootstrap(
        from: file, into: target, configuration: Self.configuration(other, stream: "a"))
    } throws: { error in
      guard case .diverged("a", 6, _, _, let reason) = error as? ReplicationError else { return false }
      return reason.contains("not the commit the store applied")
    }
    #expect(try FileManager.default.contentsOfDirectory(atPath: target) == [])
    withExtendedLifetime(otherWriting) {}
  }

  @Test(arguments: ["flipped", "truncated", "header"])
  func aDamagedSnapshotIsRefusedNamingTheFile(damage: String) throws {
    let server = try NATSServer()
    let directory = try TemporaryDirectory()
    let writer = try Fixtures.store(directory.child("writer"))
    let writing = try Fixtures.replication(writer, server)
    try ReplicationTests.writeHistory(writer, commits: 5, seed: 15)
    let file = directory.child("notes.snapshot")
    try writing.writeSnapshot(to: file)
    var bytes = try Array(Data(contentsOf: URL(fileURLWithPath: file)))
    switch damage {
    case "flipped": bytes[bytes.count / 2] ^= 0x10
    case "truncated": bytes.removeLast(bytes.count / 3)
    default: bytes[20] ^= 0x01  // inside the stream's name or the sequence
    }
    try Data(bytes).write(to: URL(fileURLWithPath: file))
    let target = directory.child("target")
    let expected = ["flipped": "data's checksum", "truncated": "truncated", "header": "header's checksum"][
      damage]
    #expect {
      _ = try Replication.bootstrap(from: file, into: target, configuration: Self.configuration(server))
    } throws: { error in
      guard case .badSnapshot(file, let reason) = error as? ReplicationError else { return false }
      return reason.contains(expected ?? "?") && "\(error)".contains(file)
    }
    #expect(!FileManager.default.fileExists(atPath: target))
  }

  static func configuration(_ server: NATSServer, stream: String = "notes") -> ReplicationConfiguration {
    var configuration = ReplicationConfiguration(servers: [server.url], stream: stream)
    configuration.timeoutMilliseconds = 3000
    return configuration
  }
}
