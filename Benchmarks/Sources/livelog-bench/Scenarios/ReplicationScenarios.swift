import Foundation
import LMDB
import LiveLog
import LiveLogReplication

/// Commits through a NATS JetStream stream (one `nats-server -js` on loopback, started here)
/// beside the same commits on a local store, and the catch-up of a new replica.
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
        let repositories = generator.generate(count: batchSize * commits, seed: 3)
        let batches = stride(from: 0, to: repositories.count, by: batchSize).map {
          repositories[$0..<min($0 + batchSize, repositories.count)].map(Mutation.upsert)
        }
        var options = StoreOptions()
        options.durability = durability
        let stream = "bench-\(batchSize)-\(durability)".replacingOccurrences(of: ".", with: "")
        func timedWrites(_ store: Store) throws -> [Double] {
          try batches.map { batch in
            let start = now()
            try store.write(batch)
            return now() - start
          }
        }
        let streamTimes: [Double]
        let head: UInt64
        do {
          let store = try Store(directory: try context.freshDirectory("replicated").path, options: options)
          let replication = try server.replication(store, stream: stream)
          streamTimes = try timedWrites(store)
          head = try replication.status().sequence
        }
        let localTimes = try timedWrites(
          try Store(directory: try context.freshDirectory("local").path, options: options))
        // A new replica applies the whole stream.
        let replica = try Store(directory: try context.freshDirectory("replica").path, options: options)
        let catchUpStart = now()
        let applied = try server.replication(replica, stream: stream).catchUp()
        let catchUp = now() - catchUpStart
        let total = { (times: [Double]) in times.reduce(0, +) }
        context.report.add(
          Comparison(
            scenario: "replication",
            name: "batch \(batchSize), \(durability), through the stream",
            size: repositories.count,
            ours: Figure(engine: "LiveLog + JetStream", stats: Statistics(streamTimes), itemsPerOperation: 1),
            peer: Figure(engine: "LiveLog local store", stats: Statistics(localTimes), itemsPerOperation: 1),
            notes: [
              "commits/s": Double(commits) / total(streamTimes),
              "local commits/s": Double(commits) / total(localTimes),
              "catch-up commits/s": Double(applied) / catchUp,
              "stream messages": Double(head),
            ]))
      }
    }
  }
}

/// The benchmark's own `nats-server -js` on a loopback port.
final class BenchmarkNATSServer {
  private let process = Process()
  let url: String

  init(directory: URL) throws {
    let candidates = ["/usr/sbin/nats-server", "/usr/bin/nats-server", "/usr/local/bin/nats-server"]
    guard let executable = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) })
    else {
      throw MissingServer()
    }
    let port = 20_000 + Int(ProcessInfo.processInfo.processIdentifier % 20_000)
    url = "nats://127.0.0.1:\(port)"
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = ["-js", "-a", "127.0.0.1", "-p", String(port), "-sd", directory.path]
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
  }

  /// The store's replication through this server, once the server answers (at most 10 s).
  func replication(_ store: Store, stream: String) throws -> Replication {
    let deadline = Date().addingTimeInterval(10)
    while true {
      do {
        return try Replication(
          store: store, configuration: ReplicationConfiguration(servers: [url], stream: stream))
      } catch ReplicationError.unreachable where Date() < deadline {
        usleep(50_000)
      }
    }
  }

  func stop() {
    process.terminate()
    process.waitUntilExit()
  }
}

private struct MissingServer: Error, CustomStringConvertible {
  var description: String {
    "nats-server is not installed: `make bench` installs it (apt-get install nats-server)"
  }
}
