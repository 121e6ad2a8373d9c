import Foundation
import LiveLog
import Synchronization
import TestSupport
import Testing

@testable import LiveLogReplication

/// Writers and replicas of one store through a `nats-server -js` the tests start.
@Suite(.serialized) struct ReplicationTests {
  /// Commits of every kind: a collection made, inserts, updates, deletes, unchanged upserts.
  static func writeHistory(_ store: Store, commits: Int, seed: UInt64) throws {
    var random = SplitMix64(seed: seed)
    for commit in 0..<commits {
      var mutations: [Mutation] = []
      for _ in 0..<(1 + Int(random.next() % 4)) {
        let id = Int64(random.next() % 40)
        if random.next() % 5 == 0 {
          mutations.append(.delete(Note.self, id: id))
        } else {
          mutations.append(
            .upsert(Note(id: id, text: "note \(id) of \(commit)", score: Int(random.next() % 100))))
        }
      }
      try store.write(mutations)
    }
  }

  @Test func aReplicaConvergesToTheWritersStateAndItsOwnReplay() throws {
    let server = try NATSServer()
    let pair = try StorePair(server)
    let (directory, writer, replica, writing, following) = (
      pair.directory, pair.writer, pair.replica, pair.writing, pair.following
    )
    let follower = BackgroundFollower(following)
    try Self.writeHistory(writer, commits: 60, seed: 1)
    let version = try writer.version()
    try Fixtures.wait("the replica to reach \(version)") { try replica.version() == version }
    let applied = try follower.stop()
    let head = try writing.status().sequence
    #expect(applied == head, "applied \(applied) of \(head)")
    #expect(try replica.digest() == writer.digest())
    #expect(try replica.count(Note.self) == writer.count(Note.self))
    let rebuilt = try replica.replay(into: directory.child("replay"))
    #expect(try rebuilt.digest() == replica.digest())
    let status = try following.status()
    #expect(status.sequence == status.streamHead)
    #expect(status.version == version)
  }

  @Test func racingWritersCommitEachAcknowledgedWriteOnceInOneOrder() throws {
    let server = try NATSServer()
    let directory = try TemporaryDirectory()
    let stores = try [Fixtures.store(directory.child("a")), Fixtures.store(directory.child("b"))]
    let replications = try stores.map { try Fixtures.replication($0, server) }
    let failures = Mutex<[String]>([])
    DispatchQueue.concurrentPerform(iterations: 2) { writer in
      let store = stores[writer]
      for step in 0..<25 {
        do {
          // A read-modify-write: the closure runs again whenever the other writer got there first.
          try store.write { txn in
            let counter = try txn.record(Note.self, id: 1000) ?? Note(id: 1000, text: "counter", score: 0)
            txn.upsert(Note(id: counter.id, text: counter.text, score: counter.score + 1))
            txn.upsert(Note(id: Int64(writer * 100 + step), text: "by \(writer)", score: step))
          }
        } catch {
          failures.withLock { $0.append("\(error)") }
        }
      }
    }
    #expect(failures.withLock { $0 } == [])
    for replication in replications { try replication.catchUp() }
    // Every increment counted once: no write was lost or applied twice.
    for store in stores { #expect(try store.record(Note.self, id: 1000)?.score == 50) }
    #expect(try stores[0].digest() == stores[1].digest())
    #expect(try stores[0].count(Note.self) == 51)
    let status = try replications[0].status()
    // One collection made, then 50 commits; one message each.
    #expect(status.streamHead == 51)
    #expect(try stores[0].version() == 1 + 50 * 2)
  }

  @Test func aCommitWhoseAcknowledgementWasLostIsStoredOnceAndIsOurs() throws {
    let server = try NATSServer()
    let directory = try TemporaryDirectory()
    let writer = try Fixtures.store(directory.child("writer"))
    var configuration = ReplicationConfiguration(servers: [server.url], stream: "notes")
    configuration.timeoutMilliseconds = 250
    configuration.attempts = 20
    let writing = try Replication(store: writer, configuration: configuration)
    try writer.write([.upsert(Note(id: 1, text: "one", score: 1))])
    let before = try writing.status().sequence
    // The server pauses before the commit is sent: the first attempts get no answer, and once it
    // resumes it reads every attempt, all with the same message id.
    server.pause()
    DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(800)) { server.send(SIGCONT) }
    let started = Date()
    let summary = try writer.write([.upsert(Note(id: 2, text: "two", score: 2))])
    #expect(Date().timeIntervalSince(started) > 0.5)
    let status = try writing.status()
    #expect(status.streamHead == before + 1)
    #expect(status.sequence == before + 1)
    #expect(summary.lastLSN == (try writer.version()))
    let replica = try Fixtures.store(directory.child("replica"))
    try Fixtures.replication(replica, server).catchUp()
    #expect(try replica.digest() == writer.digest())
  }

  @Test func aConditionalWriteFailsWhenAnotherWriterWasFirst() throws {
    let server = try NATSServer()
    let pair = try StorePair(server)
    let (a, b, ra, rb) = (pair.writer, pair.replica, pair.writing, pair.following)
    try a.write([.upsert(Note(id: 1, text: "one", score: 1))])
    try rb.catchUp()
    let seen = try a.version()
    try b.write([.upsert(Note(id: 2, text: "two", score: 2))])
    #expect(throws: StoreError.versionConflict(expected: seen, found: seen + 1)) {
      try a.write([.upsert(Note(id: 3, text: "three", score: 3))], expecting: seen)
    }
    #expect(try a.record(Note.self, id: 3) == nil)
    #expect(try a.record(Note.self, id: 2) != nil)
    #expect(try ra.status().streamHead == 3)
  }

  @Test func aStreamRewoundUnderAReplicaIsDetected() throws {
    let server = try NATSServer()
    let directory = try TemporaryDirectory()
    let writer = try Fixtures.store(directory.child("writer"))
    let replica = try Fixtures.store(directory.child("replica"))
    do {
      let writing = try Fixtures.replication(writer, server)
      let following = try Fixtures.replication(replica, server)
      try Self.writeHistory(writer, commits: 10, seed: 2)
      try following.catchUp()
      #expect(try replica.digest() == writer.digest())
      let follower = BackgroundFollower(following)
      // Delete the stream and make it again with another history, longer than the old one.
      try writing.jetStream.deleteStream("notes")
      let other = try Fixtures.store(directory.child("other"))
      let rewriting = try Fixtures.replication(other, server)
      try Self.writeHistory(other, commits: 20, seed: 3)
      try Fixtures.wait("the follower to halt") { follower.failure != nil }
      #expect(throws: ReplicationError.self) { try follower.stop() }
      // Found by the head below the store's position while the stream was gone, or by the other
      // commit at the position once it was back.
      if case .diverged(let stream, _, _, let version, _)? = follower.failure as? ReplicationError {
        #expect(stream == "notes")
        #expect(version == (try replica.version()))
      } else {
        Issue.record("not a divergence: \(String(describing: follower.failure))")
      }
      withExtendedLifetime(rewriting) {}
    }
    // Opening the replica again finds the divergence at once, and so does a stream shorter than it.
    #expect {
      _ = try Fixtures.replication(replica, server)
    } throws: { error in
      guard case .diverged(_, 11, _, _, let reason) = error as? ReplicationError else { return false }
      return reason.contains("not the commit the store applied")
    }
    let short = try NATSServer()
    #expect {
      _ = try Fixtures.replication(replica, short)
    } throws: { error in
      guard case .diverged(_, _, _, _, let reason) = error as? ReplicationError else { return false }
      return reason.contains("below what the store has applied")
    }
    #expect(try replica.version() > 0)
  }

  /// Publishes a message straight to the stream, as a faulty or foreign writer would.
  static func forge(_ replication: Replication, payload: [UInt8], headers: [String: String]) throws {
    let head = try #require(try replication.jetStream.streamState("notes")?.lastSequence)
    let outcome = try replication.jetStream.publish(
      subject: CommitMessage.subject(stream: "notes"), payload: payload,
      headers: headers.filter { $0.key != CommitMessage.messageIDHeader }.map { ($0.key, $0.value) },
      messageID: "forged-\(head)", expectedLastSequence: head)
    #expect(outcome == .stored(sequence: head + 1, duplicate: false))
  }

  @Test(arguments: [true, false])
  func aReplicaHaltsOnADamagedOrDiscontinuousCommit(damaged: Bool) throws {
    let server = try NATSServer()
    let pair = try StorePair(server)
    try Self.writeHistory(pair.writer, commits: 5, seed: 4)
    try pair.following.catchUp()
    let version = try pair.replica.version()
    let position = try pair.following.status().sequence
    let last = try #require(try pair.writing.jetStream.message("notes", at: position))
    let expected: String
    if damaged {
      // The last commit again, one payload byte flipped: a checksum fails.
      var payload = last.payload
      payload[payload.count / 2] ^= 0x40
      try Self.forge(pair.writing, payload: payload, headers: last.headers)
      expected = "checksum mismatch"
    } else {
      // A sound commit of another store's history, whose first LSN is past the version + 1.
      let other = try Fixtures.store(pair.directory.child("other"))
      let otherReplication = try Fixtures.replication(other, server, stream: "other")
      try Self.writeHistory(other, commits: 20, seed: 5)
      let foreign = try #require(
        try (1...21).lazy.compactMap { try otherReplication.jetStream.message("other", at: $0) }.first {
          ($0.headers[CommitMessage.firstLSNHeader].flatMap(UInt64.init) ?? 0) > version + 1
        })
      try Self.forge(pair.writing, payload: foreign.payload, headers: foreign.headers)
      expected = "its first LSN is not the store's version + 1"
    }
    #expect {
      try pair.following.catchUp()
    } throws: { error in
      guard case .diverged("notes", position + 1, _, version, let reason) = error as? ReplicationError else {
        return false
      }
      return reason.contains(expected)
    }
    #expect(try pair.replica.version() == version)
  }

  @Test func aLiveQueryOnAReplicaSeesACommitWrittenElsewhere() async throws {
    let server = try NATSServer()
    let pair = try StorePair(server)
    let (writer, replica, following) = (pair.writer, pair.replica, pair.following)
    try writer.write([.upsert(Note(id: 1, text: "first", score: 10))])
    try following.catchUp()
    let follower = BackgroundFollower(following)
    let results = try replica.objects(Note.self).filter("score >= 10").sorted(by: "score")
    let changes = try results.changes()
    let deliveries = Mutex<[(initial: Bool, ids: [Int64])]>([])
    let listening = Task {
      for try await change in changes {
        switch change {
        case .initial(let results): deliveries.withLock { $0.append((true, (try? results.ids()) ?? [])) }
        case .update(let results, _): deliveries.withLock { $0.append((false, (try? results.ids()) ?? [])) }
        }
      }
    }
    try await Fixtures.waitAsync("the first delivery") { deliveries.withLock { !$0.isEmpty } }
    try writer.write([
      .upsert(Note(id: 2, text: "second", score: 20)), .upsert(Note(id: 3, text: "low", score: 1)),
    ])
    try await Fixtures.waitAsync("an update on the replica") {
      if let failure = follower.failure { throw failure }
      return deliveries.withLock { $0.contains { !$0.initial } }
    }
    listening.cancel()
    let seen = deliveries.withLock { $0 }
    #expect(seen.map(\.initial) == [true, false])
    #expect(seen.map(\.ids) == [[1], [1, 2]])
    try follower.stop()
    withExtendedLifetime(pair) {}
  }
}
