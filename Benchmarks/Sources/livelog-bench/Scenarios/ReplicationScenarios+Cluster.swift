import Foundation
import LMDB
import LiveLog
import LiveLogReplication
import Synchronization

/// The replication scenario's cases on a 3-server loopback cluster (a stream of 3 copies): the
/// same commits as on one server, beside a local store; replica lag under load; the write gap
/// while the stream elects a new leader after a kill -9 of its leader.
extension Scenario {
  static func replicationCluster(
    _ context: BenchmarkContext, generator: RepositoryGenerator, single: BenchmarkNATSServer
  )
    throws
  {
    let cluster = try BenchmarkCluster(directory: try context.freshDirectory("nats-cluster"))
    defer { cluster.stop() }
    var options = StoreOptions()
    options.durability = .noSync
    let cases: [(batch: Int, commits: Int)] =
      context.quick ? [(1, 300), (100, 30)] : [(1, 2000), (100, 200)]
    for (batchSize, commits) in cases {
      try streamBesideLocalStore(
        context, name: "batch \(batchSize), \(Durability.noSync), 3 copies on 3 servers",
        engine: "LiveLog + JetStream R3",
        batches: replicationBatches(generator, batchSize: batchSize, commits: commits), options: options
      ) { try cluster.replication($0, stream: "cluster-\(batchSize)") }
    }
    let lagCommits = context.quick ? 300 : 2000
    let batches = replicationBatches(generator, batchSize: 1, commits: lagCommits)
    let runs = [
      (
        "3 copies on 3 servers",
        try replicaLag(context, batches, options: options, name: "lag-3") {
          try cluster.replication($0, stream: "lag-3")
        }
      ),
      (
        "1 copy",
        try replicaLag(context, batches, options: options, name: "lag-1") {
          try single.replication($0, stream: "lag-1")
        }
      ),
    ]
    // The rows have no peer: the local store's figures for the same commits are the commit rows'.
    for (copies, lag) in runs {
      context.report.add(
        Comparison(
          scenario: "replication",
          name: "replica lag under load, batch 1, \(Durability.noSync), \(copies)",
          size: lagCommits,
          ours: Figure(engine: "LiveLog follower", stats: Statistics(lag.seconds), itemsPerOperation: 1),
          peer: nil,
          notes: [
            "lag p50 commits": Statistics(lag.commits).median,
            "lag p99 commits": Statistics(lag.commits).p99,
            "writer commits/s": lag.writerRate,
          ]))
    }
    try failoverGap(context, cluster, options: options, generator: generator)
  }
}

/// `count` commits of `batchSize` generated repositories each.
func replicationBatches(_ generator: RepositoryGenerator, batchSize: Int, commits: Int) -> [[Mutation]] {
  let repositories = generator.generate(count: batchSize * commits, seed: 3)
  return stride(from: 0, to: repositories.count, by: batchSize).map {
    repositories[$0..<min($0 + batchSize, repositories.count)].map(Mutation.upsert)
  }
}

/// Each batch written as one commit, each timed on its own.
func timedWrites(_ store: Store, _ batches: [[Mutation]]) throws -> [Double] {
  try batches.map { batch in
    let start = now()
    try store.write(batch)
    return now() - start
  }
}

/// A writer writes `batches` as fast as it can while a follower (another store, in this process)
/// follows: for each commit, the time from the writer's acknowledgement to the follower having
/// applied it (0 when the follower was first), and how many later commits the writer had had
/// acknowledged by then (the follower's lag in commits).
private func replicaLag(
  _ context: BenchmarkContext, _ batches: [[Mutation]], options: StoreOptions, name: String,
  replication: (Store) throws -> Replication
) throws -> (seconds: [Double], commits: [Double], writerRate: Double) {
  let writer = try Store(directory: try context.freshDirectory("\(name)-writer").path, options: options)
  let writing = try replication(writer)
  let follower = try Store(directory: try context.freshDirectory("\(name)-follower").path, options: options)
  let following = try replication(follower)
  let appliedAt = Mutex<[UInt64: Double]>([:])
  let stopping = Atomic<Bool>(false)
  let done = DispatchSemaphore(value: 0)
  let failure = Mutex<(any Error)?>(nil)
  let thread = Thread {
    do {
      try following.follow(
        pollMilliseconds: 20, shouldStop: { stopping.load(ordering: .relaxed) },
        applied: { commit in
          let time = now()
          appliedAt.withLock { $0[commit.lastLSN] = time }
        })
    } catch {
      failure.withLock { $0 = error }
    }
    done.signal()
  }
  thread.start()
  var acknowledged: [UInt64: Double] = [:]
  let writeStart = now()
  for batch in batches {
    let summary = try writer.write(batch)
    if let lsn = summary.lastLSN { acknowledged[lsn] = now() }
  }
  let writerRate = Double(batches.count) / (now() - writeStart)
  let version = try writer.version()
  let deadline = Date().addingTimeInterval(60)
  while try follower.version() < version, Date() < deadline, failure.withLock({ $0 == nil }) {
    usleep(10_000)
  }
  stopping.store(true, ordering: .relaxed)
  done.wait()
  if let error = failure.withLock({ $0 }) { throw error }
  let applied = appliedAt.withLock { $0 }
  let seconds = acknowledged.compactMap { lsn, ack in applied[lsn].map { max(0, $0 - ack) } }
  guard seconds.count == acknowledged.count else {
    throw BenchmarkFailure("the follower applied \(seconds.count) of \(acknowledged.count) commits (\(name))")
  }
  // One writer, one commit after another: acknowledgements come in LSN order.
  let acknowledgements = acknowledged.sorted { $0.key < $1.key }.map(\.value)
  var commits: [Double] = []
  var acknowledgedByThen = 0
  for (index, lsn) in acknowledged.keys.sorted().enumerated() {
    let time = applied[lsn] ?? 0
    while acknowledgedByThen < acknowledgements.count && acknowledgements[acknowledgedByThen] <= time {
      acknowledgedByThen += 1
    }
    commits.append(Double(max(0, acknowledgedByThen - (index + 1))))
  }
  withExtendedLifetime(writing) {}
  return (seconds, commits, writerRate)
}

/// A writer writes one repository per commit without pause while the stream's leader is killed
/// (SIGKILL), `rounds` times, the killed server started again and caught up between rounds: the
/// time from each kill until the first write begun after it is acknowledged.
private func failoverGap(
  _ context: BenchmarkContext, _ cluster: BenchmarkCluster, options: StoreOptions,
  generator: RepositoryGenerator
) throws {
  let rounds = context.quick ? 2 : 5
  let stream = "failover"
  let writer = try Store(directory: try context.freshDirectory("failover-writer").path, options: options)
  let writing = try cluster.replication(writer, stream: stream)
  let repositories = generator.generate(count: 100_000, seed: 5)
  // (started, acknowledged) of every write, in order.
  let writes = Mutex<[(Double, Double)]>([])
  let failures = Mutex<Int>(0)
  let stopping = Atomic<Bool>(false)
  let done = DispatchSemaphore(value: 0)
  let problem = Mutex<(any Error)?>(nil)
  let thread = Thread {
    var index = 0
    while !stopping.load(ordering: .relaxed) {
      let started = now()
      do {
        try writer.write([.upsert(repositories[index % repositories.count])])
        writes.withLock { $0.append((started, now())) }
        index += 1
      } catch let error as ReplicationError {
        if case .diverged = error {
          problem.withLock { $0 = error }
          break
        }
        failures.withLock { $0 += 1 }
        usleep(20_000)
      } catch {
        problem.withLock { $0 = error }
        break
      }
    }
    done.signal()
  }
  thread.start()
  func waitFor(_ what: String, seconds: Double = 60, _ condition: () throws -> Bool) throws {
    let deadline = Date().addingTimeInterval(seconds)
    while try !condition() {
      if let error = problem.withLock({ $0 }) { throw error }
      guard Date() < deadline else { throw BenchmarkFailure("failover: timed out waiting for \(what)") }
      usleep(10_000)
    }
  }
  var gaps: [Double] = []
  do {
    defer {
      stopping.store(true, ordering: .relaxed)
      done.wait()
    }
    for _ in 1...rounds {
      let before = writes.withLock { $0.count }
      try waitFor("100 writes") { writes.withLock { $0.count } >= before + 100 }
      var leader: Int?
      try waitFor("the stream's leader") {
        leader = cluster.leader(of: stream)
        return leader != nil
      }
      guard let leader else { break }
      let killed = now()
      cluster.nodes[leader].kill()
      var resumed: Double?
      try waitFor("a write acknowledged after the kill") {
        resumed = writes.withLock { $0.first { $0.0 > killed }?.1 }
        return resumed != nil
      }
      gaps.append((resumed ?? killed) - killed)
      try cluster.nodes[leader].start()
      let head = try writing.status().streamHead ?? 0
      try waitFor("the restarted server to catch up") {
        cluster.copies(of: stream).allSatisfy { ($0 ?? 0) >= head }
      }
    }
  }
  context.report.add(
    Comparison(
      scenario: "replication",
      name: "failover write gap, kill -9 of the stream leader",
      size: writes.withLock { $0.count },
      ours: Figure(engine: "LiveLog + JetStream R3", stats: Statistics(gaps), itemsPerOperation: 1),
      peer: nil,
      notes: ["kills": Double(gaps.count), "failed write attempts": Double(failures.withLock { $0 })]))
}
