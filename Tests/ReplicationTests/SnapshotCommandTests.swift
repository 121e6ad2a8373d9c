import Foundation
import LiveLog
import TestSupport
import Testing

@testable import LiveLogReplication

/// `livelog snapshot`, `bootstrap` and `purge` as an operator runs them.
@Suite(.serialized) struct SnapshotCommandTests {
  @Test func aSnapshotBootstrapsANewReplicaAndLetsTheStreamBePurged() throws {
    let server = try NATSServer()
    let directory = try TemporaryDirectory()
    let writer = try Fixtures.store(directory.child("writer"))
    let writing = try Fixtures.replication(writer, server)
    try ReplicationTests.writeHistory(writer, commits: 12, seed: 31)
    let head = try writing.status().sequence
    let nats = ["--nats", server.url, "--stream", "notes"]
    let file = directory.child("notes.snapshot")
    let snapshot = try FollowCommandTests.livelog(
      ["--store", directory.child("writer")] + nats + ["snapshot", "--to", file], input: "")
    #expect(snapshot.status == 0, "\(snapshot.output)")
    #expect(snapshot.output.contains("wrote \(file): stream notes at sequence \(head)"))

    let other = try FollowCommandTests.livelog(
      [
        "--store", directory.child("refused"), "--nats", server.url, "--stream", "other", "bootstrap",
        "--from", file,
      ],
      input: "")
    #expect(other.status == 1)
    #expect(other.output.contains("is a snapshot of stream notes, not other"), "\(other.output)")

    let bootstrap = try FollowCommandTests.livelog(
      ["--store", directory.child("new")] + nats + ["bootstrap", "--from", file], input: "")
    #expect(bootstrap.status == 0, "\(bootstrap.output)")
    #expect(bootstrap.output.contains("at sequence \(head)"))

    let purge = try FollowCommandTests.livelog(nats + ["purge"], input: "")
    #expect(purge.status == 0, "\(purge.output)")
    #expect(purge.output.contains("purged stream notes below sequence \(head)"), "\(purge.output)")
    // Both stores registered: the writer (its position said by `snapshot`) and the new replica.
    #expect(purge.output.split(separator: "\n").filter { $0.hasPrefix("replica ") }.count == 2)

    let empty = try FollowCommandTests.livelog(
      ["--store", directory.child("empty")] + nats + ["follow"], input: "")
    #expect(empty.status == 1)
    #expect(empty.output.contains("Bootstrap this replica from a snapshot"), "\(empty.output)")

    try writer.write([.upsert(Note(id: 77, text: "after the purge", score: 7))])
    let replica = try Fixtures.store(directory.child("new"))
    try Fixtures.replication(replica, server).catchUp()
    #expect(try replica.digest() == writer.digest())
  }
}
