import Foundation
import LiveLog
import TestSupport
import Testing

@testable import LiveLogReplication

/// Commits larger than the server's message limit, published in parts and applied whole.
@Suite(.serialized) struct LargeCommitTests {
  static let maximumPayload = 8192

  /// One commit of `count` notes of 1,000 characters: several times the server's limit.
  static func largeCommit(_ store: Store, count: Int, from id: Int64) throws {
    try store.write(
      (0..<Int64(count)).map {
        .upsert(Note(id: id + $0, text: String(repeating: "\($0 % 10)", count: 1000), score: Int($0)))
      })
  }

  @Test func aCommitLargerThanAMessageIsPublishedInPartsAndAppliedWhole() throws {
    let server = try NATSServer(maximumPayload: Self.maximumPayload)
    let pair = try StorePair(server)
    let follower = BackgroundFollower(pair.following)
    try ReplicationTests.writeHistory(pair.writer, commits: 5, seed: 41)
    let before = try pair.writing.status().sequence
    try Self.largeCommit(pair.writer, count: 30, from: 1000)
    let after = try pair.writing.status()
    let parts = after.sequence - before
    #expect(parts >= 4, "\(parts) messages")
    #expect(after.streamHead == after.sequence)
    let last = try #require(try pair.writing.jetStream.message("notes", at: after.sequence))
    #expect(last.headers[CommitMessage.partHeader] == "\(parts - 1)/\(parts)")
    #expect(last.payload.count <= Self.maximumPayload)
    let file = pair.directory.child("notes.snapshot")
    #expect(try pair.writing.writeSnapshot(to: file).sequence == after.sequence)
    try ReplicationTests.writeHistory(pair.writer, commits: 5, seed: 42)
    let version = try pair.writer.version()
    try Fixtures.wait("the follower to reach \(version)") {
      if let failure = follower.failure { throw failure }
      return try pair.replica.version() == version
    }
    try follower.stop()
    #expect(try pair.replica.digest() == pair.writer.digest())
    #expect(try pair.replica.count(Note.self) == pair.writer.count(Note.self))
    let late = try Fixtures.store(pair.directory.child("late"))
    try Fixtures.replication(late, server).catchUp()
    #expect(try late.digest() == pair.writer.digest())
    let rebuilt = try late.replay(into: pair.directory.child("replay"))
    #expect(try rebuilt.digest() == late.digest())
    // A purge to the snapshot, at the commit's last part, keeps the commit whole, so that a
    // replica bootstrapped from it can check it.
    try pair.following.catchUp()
    try pair.writing.catchUp()
    #expect(try Replication.purge(SnapshotTests.configuration(server)).firstSequence == before + 1)
    let bootstrapped = try Replication.bootstrap(
      from: file, into: pair.directory.child("new"), configuration: SnapshotTests.configuration(server))
    try bootstrapped.catchUp()
    #expect(try bootstrapped.store.digest() == pair.writer.digest())
  }

  @Test func aReplicaStoppedBetweenPartsResumesAndAnAbandonedCommitIsSkipped() throws {
    // The writer's stream on one server; a copy of it, message by message, on another, where
    // the copy can stop between the parts of a commit.
    let source = try NATSServer(maximumPayload: Self.maximumPayload)
    let directory = try TemporaryDirectory()
    let writer = try Fixtures.store(directory.child("writer"))
    let writing = try Fixtures.replication(writer, source)
    try ReplicationTests.writeHistory(writer, commits: 5, seed: 43)
    let history = try writing.status().sequence
    try Self.largeCommit(writer, count: 30, from: 1000)
    let whole = try writing.status().sequence
    let server = try NATSServer(maximumPayload: Self.maximumPayload)
    var configuration = ReplicationConfiguration(servers: [server.url], stream: "notes")
    configuration.timeoutMilliseconds = 500
    let replicaPath = directory.child("replica")
    var copied: UInt64 = 0
    func copy(through sequence: UInt64, _ replication: Replication) throws {
      while copied < sequence {
        copied += 1
        let message = try #require(try writing.jetStream.message("notes", at: copied))
        try ReplicationTests.forge(replication, payload: message.payload, headers: message.headers)
      }
    }
    do {
      let replica = try Fixtures.store(replicaPath)
      let replication = try Replication(store: replica, configuration: configuration)
      try copy(through: history + 2, replication)
      // Two parts of the commit are there: the replica applies what precedes them, and waits.
      try replication.catchUp()
      #expect(try replication.status().sequence == history)
    }
    // Stopped and opened again, it applies the commit once every part is there.
    let replica = try Fixtures.store(replicaPath)
    let replication = try Replication(store: replica, configuration: configuration)
    try copy(through: whole, replication)
    try replication.catchUp()
    #expect(try replica.digest() == writer.digest())
    #expect(try replication.status().sequence == whole)

    // The first parts of the writer's next large commit, whose writer never finishes it: a
    // write on the replica goes after them once they stayed incomplete for the request timeout.
    try Self.largeCommit(writer, count: 30, from: 2000)
    try copy(through: whole + 2, replication)
    let started = ContinuousClock.now
    try replica.write([.upsert(Note(id: 5, text: "after an abandoned commit", score: 5))])
    #expect(ContinuousClock.now - started >= .milliseconds(500))
    let status = try replication.status()
    #expect(status.sequence == whole + 3 && status.streamHead == whole + 3)
    #expect(try replica.record(Note.self, id: 2000) == nil)
    // Another replica skips the abandoned parts and reaches the same state.
    let other = try Fixtures.store(directory.child("other"))
    try Replication(store: other, configuration: configuration).catchUp()
    #expect(try other.digest() == replica.digest())
    #expect(try other.record(Note.self, id: 5)?.text == "after an abandoned commit")
  }

  @Test func aReplicaAtTheEndOfACommitInPartsDetectsAnotherLastPart() throws {
    let source = try NATSServer(maximumPayload: Self.maximumPayload)
    let pair = try StorePair(source)
    try ReplicationTests.writeHistory(pair.writer, commits: 3, seed: 44)
    try Self.largeCommit(pair.writer, count: 30, from: 1000)
    try pair.following.catchUp()
    let position = try pair.following.status().sequence
    // Another server's stream of the same name: the same messages, but for one byte of the last
    // part at the replica's position.
    let server = try NATSServer(maximumPayload: Self.maximumPayload)
    let copy = try Fixtures.store(pair.directory.child("copy"))
    let copying = try Fixtures.replication(copy, server)
    for sequence in 1...position {
      let message = try #require(try pair.writing.jetStream.message("notes", at: sequence))
      var payload = message.payload
      if sequence == position { payload[payload.count / 2] ^= 0x01 }
      try ReplicationTests.forge(copying, payload: payload, headers: message.headers)
    }
    #expect {
      _ = try Fixtures.replication(pair.replica, server)
    } throws: { error in
      guard case .diverged("notes", position, _, _, let reason) = error as? ReplicationError else {
        return false
      }
      return reason.contains("not the commit the store applied")
    }
  }
}
