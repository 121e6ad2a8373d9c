import Foundation
import LiveLog
import Synchronization
import TestSupport
import Testing

@testable import LiveLogReplication

/// `livelog follow` as a process of its own: killed with SIGKILL in the middle of a stream, it
/// resumes exactly where its last transaction left it.
@Suite(.serialized) struct FollowCommandTests {
  static var executable: String { FollowProcess.executable }

  @Test func aFollowerKilledMidStreamResumesExactly() throws {
    let server = try NATSServer()
    let directory = try TemporaryDirectory()
    let writer = try Fixtures.store(directory.child("writer"))
    let writing = try Fixtures.replication(writer, server)
    let replicaPath = directory.child("replica")
    let first = try FollowProcess(store: replicaPath, server: server)
    let done = DispatchSemaphore(value: 0)
    let failure = Mutex<String?>(nil)
    DispatchQueue.global().async {
      do {
        for commit in 0..<300 {
          try writer.write(
            (0..<20).map {
              .upsert(Note(id: Int64(commit * 7 + $0) % 500, text: "\(commit) \($0)", score: $0))
            })
        }
      } catch {
        failure.withLock { $0 = "\(error)" }
      }
      done.signal()
    }
    try Fixtures.wait("the first follower to apply 40 commits") { first.applied.count >= 40 }
    #expect(first.end(SIGKILL) == SIGKILL)
    let before = first.applied
    done.wait()
    #expect(failure.withLock { $0 } == nil)
    let head = try writing.status().sequence
    let second = try FollowProcess(store: replicaPath, server: server)
    try Fixtures.wait("the second follower to reach \(head)") { second.applied.last == head }
    #expect(second.end(SIGTERM) == 0, "\(second.standardError)")
    let after = second.applied
    // Nothing applied twice: the second run starts past the last commit the first printed (one
    // more may have committed between its commit and its line), and runs without a gap.
    let resumed = try #require(after.first)
    let last = before.last ?? 0
    #expect(resumed == last + 1 || resumed == last + 2)
    #expect(after == Array(resumed...head))
    #expect(before == Array(1...last))
    let replica = try Fixtures.store(replicaPath)
    #expect(try replica.digest() == writer.digest())
    #expect(try Replication.storedStatus(of: replica)?.sequence == head)
  }

  @Test func followExitsWithAMessageOnDivergence() throws {
    let server = try NATSServer()
    let directory = try TemporaryDirectory()
    let replicaPath = directory.child("replica")
    do {
      let writer = try Fixtures.store(directory.child("writer"))
      let writing = try Fixtures.replication(writer, server)
      try writer.write([.upsert(Note(id: 1, text: "one", score: 1))])
      let replica = try Fixtures.store(replicaPath)
      try Fixtures.replication(replica, server).catchUp()
      try writing.jetStream.deleteStream("notes")
    }
    let follower = try FollowProcess(store: replicaPath, server: server)
    follower.process.waitUntilExit()
    #expect(follower.process.terminationStatus == 1)
    #expect(follower.standardError.contains("diverged from stream notes"))
    #expect(follower.standardError.contains("below what the store has applied (2)"))
  }
}

extension FollowCommandTests {
  /// Runs `livelog` to its end.
  static func livelog(_ arguments: [String], input: String) throws -> (status: Int32, output: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    let stdin = Pipe()
    let stdout = Pipe()
    process.standardInput = stdin
    process.standardOutput = stdout
    process.standardError = stdout
    try process.run()
    stdin.fileHandleForWriting.write(Data(input.utf8))
    try stdin.fileHandleForWriting.close()
    let output = stdout.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: output, as: UTF8.self))
  }

  @Test func aStoreThatFollowsAndIsWrittenByAnotherProcessAppliesEachCommitOnce() throws {
    let server = try NATSServer()
    let directory = try TemporaryDirectory()
    let writer = try Fixtures.store(directory.child("writer"))
    let writing = try Fixtures.replication(writer, server)
    try writer.write([.upsert(Note(id: 0, text: "first", score: 0))])
    let replicaPath = directory.child("replica")
    let follower = try FollowProcess(store: replicaPath, server: server)
    try Fixtures.wait("the follower to apply the first commits") { follower.applied.count >= 2 }
    let global = ["--store", replicaPath, "--nats", server.url, "--stream", "notes"]
    for round in 1...5 {
      try writer.write([.upsert(Note(id: Int64(round), text: "by the library", score: round))])
      let ingest = try Self.livelog(
        global + ["ingest", "--collection", "notes", "-"],
        input: "{\"id\":\(100 + round),\"text\":\"by the command\",\"score\":\(round)}\n")
      #expect(ingest.status == 0, "\(ingest.output)")
    }
    let head = try writing.status().streamHead ?? 0
    #expect(head == 12)
    try writing.catchUp()
    #expect(try writer.version() == 12)
    try Fixtures.wait("the replica to reach \(head)") {
      try Self.livelog(["--store", replicaPath, "stats", "--format", "json"], input: "").output.contains(
        "\"replication\":{\"stream\":\"notes\",\"sequence\":\(head),")
    }
    #expect(follower.end(SIGINT) == 0, "\(follower.standardError)")
    // Each commit applied once, by whichever process saw it first: the follower never applied
    // the command's own commits (even sequences from 4 on) and applied none twice.
    let applied = follower.applied
    #expect(Set(applied).count == applied.count)
    #expect(applied.allSatisfy { $0 <= 2 || $0 % 2 == 1 })
    let replica = try Fixtures.store(replicaPath)
    #expect(try replica.digest() == writer.digest())
    #expect(try replica.count(Note.self) == 11)
  }
}
