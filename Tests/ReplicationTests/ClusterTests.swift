import Foundation
import LiveLog
import TestSupport
import Testing

@testable import LiveLogReplication

/// Faults of a 3-server cluster under a stream of three copies, while two replicas write at once
/// and all three follow (`ClusterRun`). After each: every acknowledged commit is on every
/// replica once, and every replica's digest equals the others' and its own replay's.
///
/// Each test repeats its fault `LIVELOG_CLUSTER_ROUNDS` times (`make cluster` runs 10); by
/// default, twice for the leader kills, replica kills and divergences, once for the others.
@Suite(.serialized) struct ClusterTests {
  static func rounds(default count: Int) -> Int {
    ProcessInfo.processInfo.environment["LIVELOG_CLUSTER_ROUNDS"].flatMap(Int.init).map { max(1, $0) }
      ?? count
  }

  /// What the test saw, for Docs/Replication.md: the writers' longest pause between two
  /// acknowledged writes, and how many writes were sent again.
  static func observe(_ what: String, _ run: ClusterRun) {
    guard let writers = run.writers else { return }
    let gaps = writers.longestGaps.map { String(format: "%.2f s", $0) }.joined(separator: ", ")
    print("ClusterTests: \(what): longest write gap \(gaps); \(writers.retries) retries so far")
    writers.resetGaps()
  }

  /// Kills the server `pick` chooses (given the stream's leader and the round) with SIGKILL,
  /// `rounds` times, under load; writes must go on, and the server is started again and caught
  /// up before the next round.
  static func killServers(_ what: String, rounds: Int, _ pick: (_ leader: Int, _ round: Int) -> Int) throws {
    let run = try ClusterRun(try Cluster())
    run.startWriters()
    try run.writers?.waitForProgress(10)
    for round in 1...rounds {
      let victim = pick(try run.streamLeader(), round)
      run.writers?.resetGaps()
      run.cluster.servers[victim].stop(SIGKILL)
      try run.writers?.waitForProgress(10)
      Self.observe("\(what) kill \(round)", run)
      try run.cluster.restart(victim)
      try run.waitUntilEveryCopyIsCurrent()
    }
    try run.finish()
  }

  /// A server that does not lead the stream: each of the two in turn.
  static func follower(of leader: Int, round: Int) -> Int { (leader + 1 + round % 2) % 3 }

  @Test func everyAcknowledgedCommitSurvivesRepeatedKillsOfTheStreamLeader() throws {
    try Self.killServers("leader", rounds: Self.rounds(default: 2)) { leader, _ in leader }
  }

  @Test func everyAcknowledgedCommitSurvivesAKillOfAFollowerServer() throws {
    try Self.killServers("follower server", rounds: Self.rounds(default: 1), Self.follower)
  }

  @Test func aReplicaProcessKilledMidApplyResumesExactly() throws {
    let run = try ClusterRun(try Cluster())
    run.startWriters()
    for _ in 1...Self.rounds(default: 2) {
      let applied = run.replica.applied.count
      try Fixtures.wait("C to apply 10 more commits", seconds: 60) {
        if !run.replica.process.isRunning {
          throw ClusterRun.FollowerEnded(
            status: run.replica.process.terminationStatus, standardError: run.replica.standardError)
        }
        return run.replica.applied.count >= applied + 10
      }
      #expect(try run.restartReplica(SIGKILL) == SIGKILL)
    }
    try run.writers?.waitForProgress(10)
    try run.finish()
  }

  @Test func everyAcknowledgedCommitSurvivesPausedServers() throws {
    let run = try ClusterRun(try Cluster())
    run.startWriters()
    try run.writers?.waitForProgress(10)
    for round in 1...Self.rounds(default: 1) {
      for role in ["leader", "follower"] {
        let leader = try run.streamLeader()
        let paused = role == "leader" ? leader : Self.follower(of: leader, round: round)
        run.writers?.resetGaps()
        let before = run.writers?.acknowledged.map(\.count) ?? []
        run.cluster.servers[paused].pause()
        // Held paused long enough for the others to elect a leader of their own (a client
        // connected to the paused server hears nothing meanwhile).
        usleep(3_000_000)
        let during = zip(run.writers?.acknowledged.map(\.count) ?? [], before).map { $0 - $1 }
        run.cluster.servers[paused].send(SIGCONT)
        try run.writers?.waitForProgress(10)
        Self.observe("\(role) paused 3 s, round \(round) (writes acknowledged while paused: \(during))", run)
        try run.waitUntilEveryCopyIsCurrent()
      }
    }
    try run.finish()
  }

  /// The stream deleted under the replicas and made again, with a longer or a shorter history of
  /// another store: each of A, B and C halts with a divergence, every round, and writes nothing.
  @Test func aStreamRewoundUnderEveryReplicaIsDetectedEveryTime() throws {
    let cluster = try Cluster()
    for round in 1...Self.rounds(default: 2) {
      let stream = "rewound\(round)"
      let run = try ClusterRun(cluster, stream: stream)
      run.startWriters()
      try run.writers?.waitForProgress(5)
      try run.writers?.stop()
      try run.waitForReplicas(try run.head())
      let versions = try run.stores.map { try $0.version() }
      try ClusterRun.retrying("deleting \(stream)") {
        // A delete whose answer was lost may have been done: the stream is gone then.
        guard try run.replications[0].jetStream.streamState(stream) != nil else { return }
        try run.replications[0].jetStream.deleteStream(stream)
      }
      let other = try Fixtures.store(run.directory.child("other"))
      let rewriting = try ClusterRun.replication(other, cluster, stream: stream)
      // Odd rounds: a longer history than the replicas'; even rounds: a shorter one.
      let commits = round % 2 == 1 ? Int(versions[0]) + 10 : 2
      for id in 1...commits {
        try ClusterRun.retrying("writing the other history") {
          _ = try other.write([.upsert(Note(id: Int64(id), text: "other", score: id))])
        }
      }
      for (name, follower) in zip(["A", "B"], run.followers) {
        try Fixtures.wait("replica \(name) to halt in round \(round)", seconds: 60) {
          follower.failure != nil
        }
        guard case .diverged(stream, _, _, _, _)? = follower.failure as? ReplicationError else {
          Issue.record(
            "replica \(name), round \(round): not a divergence: \(String(describing: follower.failure))")
          continue
        }
      }
      #expect(try run.stores.map { try $0.version() } == versions)
      try Fixtures.wait("replica C to halt in round \(round)", seconds: 60) { !run.replica.process.isRunning }
      #expect(run.replica.process.terminationStatus == 1, "round \(round)")
      // The process's last words may still be in the pipe when it has exited.
      try Fixtures.wait("replica C's message in round \(round)") {
        run.replica.standardError.contains("diverged from stream \(stream)")
      }
      withExtendedLifetime(rewriting) {}
    }
  }
}
