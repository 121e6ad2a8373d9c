import Foundation
import LMDB
import LiveLog
import LiveLogReplication

/// Commits through a NATS JetStream stream (one `nats-server -js` on loopback, started here)
/// beside the same commits on a local store, and the catch-up of a new replica; then the same on
/// a 3-server cluster, with replica lag and the failover write gap (`replicationCluster`).
extension Scenario {
  static let replication = Scenario(
    name: "replication",
    summary: "commits through a JetStream stream beside the same commits on a local store; replica catch-up"
  ) { context in
    let server = try BenchmarkNATSServer(directory: try context.freshDirectory("nats"))
    defer { server.stop() }
    let generator = try RepositoryGenerator()
    let cases: [(batch: Int, commits: Int)] =
      context.quick ? [(1, 300), (100, 30)] : [(1, 2000), (100, 200)]
    for durability in [Durability.durable, .noSync] {
      for (batchSize, commits) in cases {
        var options = StoreOptions()
        options.durability = durability
        let stream = "bench-\(batchSize)-\(durability)".replacingOccurrences(of: ".", with: "")
        try streamBesideLocalStore(
          context, name: "batch \(batchSize), \(durability), through the stream",
          engine: "LiveLog + JetStream",
          batches: replicationBatches(generator, batchSize: batchSize, commits: commits), options: options
        ) { try server.replication($0, stream: stream) }
      }
    }
    try replicationCluster(context, generator: generator, single: server)
  }
}

/// `batches` written through a stream (`replication` opens it for a store) and on a local store
/// in the same run, each commit timed on its own; then a new replica applies the whole stream.
func streamBesideLocalStore(
  _ context: BenchmarkContext, name: String, engine: String, batches: [[Mutation]], options: StoreOptions,
  replication: (Store) throws -> Replication
) throws {
  let streamTimes: [Double]
  let head: UInt64
  do {
    let store = try Store(directory: try context.freshDirectory("replicated").path, options: options)
    let writing = try replication(store)
    streamTimes = try timedWrites(store, batches)
    head = try writing.status().sequence
  }
  let localTimes = try timedWrites(
    try Store(directory: try context.freshDirectory("local").path, options: options), batches)
  let replica = try Store(directory: try context.freshDirectory("replica").path, options: options)
  let following = try replication(replica)
  let catchUpStart = now()
  let applied = try following.catchUp()
  let catchUp = now() - catchUpStart
  let total = { (times: [Double]) in times.reduce(0, +) }
  context.report.add(
    Comparison(
      scenario: "replication", name: name, size: batches.reduce(0) { $0 + $1.count },
      ours: Figure(engine: engine, stats: Statistics(streamTimes), itemsPerOperation: 1),
      peer: Figure(engine: "LiveLog local store", stats: Statistics(localTimes), itemsPerOperation: 1),
      notes: [
        "commits/s": Double(batches.count) / total(streamTimes),
        "local commits/s": Double(batches.count) / total(localTimes),
        "catch-up commits/s": Double(applied) / catchUp,
        "stream messages": Double(head),
      ]))
}
