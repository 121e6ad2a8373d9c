import Dispatch
import Foundation
import LMDB
import LiveLog

extension Scenario {
  /// Durable commits of one record each from 1 and 4 threads at once. LiveLog's commits that
  /// arrive while another is being flushed share the next commit and its fsyncs (group commit);
  /// the peer is raw LMDB, where each durable append pays its own.
  static let group = Scenario(
    name: "group",
    summary: "durable 1-record commits from 1 and 4 writers at once, vs raw LMDB durable appends"
  ) { context in
    let generator = try RepositoryGenerator()
    let perWriter = context.quick ? 40 : 150
    for writers in [1, 4] {
      let repositories = generator.generate(count: writers * perWriter, seed: 31)
      let storeDirectory = try context.freshDirectory("group-store")
      let ours = Timings()
      let ourStart = now()
      var shared: (transactions: Int, requests: Int) = (0, 0)
      do {
        let store = try Store(directory: storeDirectory.path)
        try store.write([.upsert(repositories[0])])
        // The store's own environment (one per directory and process): how many commits shared.
        let environment = try Environment.open(path: storeDirectory.path)
        let before = environment.groupCommitCounts
        try concurrently(writers) { writer in
          for index in 0..<perWriter where writer * perWriter + index > 0 {
            let start = now()
            try store.write([Mutation.upsert(repositories[writer * perWriter + index])])
            ours.add(now() - start)
          }
        }
        let after = environment.groupCommitCounts
        shared = (after.transactions - before.transactions, after.requests - before.requests)
      }
      let ourWall = now() - ourStart

      let rawDirectory = try context.freshDirectory("group-raw")
      let peer = Timings()
      let event = [UInt8](repeating: 0x5A, count: 277)
      let peerStart = now()
      do {
        let environment = try Environment.open(path: rawDirectory.path)
        let log = try environment.write {
          try environment.openDatabase("log", flags: .integerKey, create: true, in: $0)
        }
        try concurrently(writers) { writer in
          for index in 0..<perWriter where writer * perWriter + index > 0 {
            let key = UInt64(writer * perWriter + index)
            let start = now()
            try environment.write { txn in try txn.put(log, key, event) }
            peer.add(now() - start)
          }
        }
      }
      let peerWall = now() - peerStart
      let commits = Double(writers * perWriter - 1)
      context.report.add(
        Comparison(
          scenario: "group", name: "durable commit of 1 record, \(writers) writer\(writers == 1 ? "" : "s")",
          size: writers * perWriter,
          ours: Figure(engine: "LiveLog", stats: Statistics(ours.all), itemsPerOperation: 1),
          peer: Figure(engine: "raw LMDB durable append", stats: Statistics(peer.all), itemsPerOperation: 1),
          notes: [
            "commits/s": commits / ourWall, "peer commits/s": commits / peerWall,
            "commits per transaction": shared.transactions > 0
              ? Double(shared.requests) / Double(shared.transactions) : 0,
          ]))
    }
  }
}

/// Runs `body` on `count` threads at once and rethrows the first error any of them threw.
private func concurrently(_ count: Int, _ body: @Sendable (Int) throws -> Void) throws {
  let failure = Timings()
  DispatchQueue.concurrentPerform(iterations: count) { writer in
    do { try body(writer) } catch { failure.fail(error) }
  }
  if let error = failure.error { throw error }
}

/// Timings (and a first error) gathered from several threads.
private final class Timings: @unchecked Sendable {
  private let lock = NSLock()
  private var timings: [Double] = []
  private var firstError: (any Error)?

  func add(_ seconds: Double) { lock.withLock { timings.append(seconds) } }
  func fail(_ error: any Error) { lock.withLock { firstError = firstError ?? error } }
  var all: [Double] { lock.withLock { timings } }
  var error: (any Error)? { lock.withLock { firstError } }
}
