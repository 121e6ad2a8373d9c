import Foundation
import LMDB
import LiveLog

/// Ingest throughput per batch size and durability, beside raw LMDB appends of the very bytes
/// LiveLog's log stores (the ceiling: one put per record, no state, no lookups).
extension Scenario {
  static let ingest = Scenario(
    name: "ingest",
    summary: "commit throughput for batches of 1, 100 and 10,000 repositories, durable and fast"
  ) { context in
    let generator = try RepositoryGenerator()
    let cases: [(batch: Int, commits: Int)] =
      context.quick ? [(1, 100), (100, 50), (10_000, 3)] : [(1, 300), (100, 200), (10_000, 10)]
    for durability in [Durability.durable, .noSync] {
      for (batchSize, commits) in cases {
        let repositories = generator.generate(count: batchSize * commits, seed: 1)
        let batches = stride(from: 0, to: repositories.count, by: batchSize).map {
          Array(repositories[$0..<min($0 + batchSize, repositories.count)])
        }

        // LiveLog: every commit timed on its own.
        let storeDirectory = try context.freshDirectory("ingest-store")
        var options = StoreOptions()
        options.durability = durability
        var ourTimes: [Double] = []
        do {
          let store = try Store(directory: storeDirectory.path, options: options)
          for batch in batches {
            let mutations = batch.map(Mutation.upsert)
            let start = now()
            try store.write(mutations)
            ourTimes.append(now() - start)
          }
        }

        // The ceiling: about as many bytes per record appended to one LMDB database.
        let encoded: [[(UInt64, [UInt8])]] = {
          var lsn: UInt64 = 0
          return batches.map { batch in
            batch.map { repository in
              lsn += 1
              // The event codec is internal to LiveLog; the record's JSON is bytes of about the
              // size of an encoded event.
              return (lsn, repository.recordValues.jsonBytes)
            }
          }
        }()
        let rawDirectory = try context.freshDirectory("ingest-raw")
        var rawTimes: [Double] = []
        do {
          var environmentOptions = EnvironmentOptions()
          environmentOptions.durability = durability
          let environment = try Environment(path: rawDirectory.path, options: environmentOptions)
          let log = try environment.write {
            try environment.openDatabase("log", flags: .integerKey, create: true, in: $0)
          }
          for batch in encoded {
            let start = now()
            try environment.write { txn in
              for (lsn, bytes) in batch { try txn.put(log, lsn, bytes, flags: .append) }
            }
            rawTimes.append(now() - start)
          }
        }
        let bytesPerRecord =
          Double(encoded.joined().reduce(0) { $0 + $1.1.count }) / Double(repositories.count)
        context.report.add(
          Comparison(
            scenario: "ingest",
            name: "batch \(batchSize), \(durability)",
            size: repositories.count,
            ours: Figure(
              engine: "LiveLog", stats: Statistics(ourTimes), itemsPerOperation: Double(batchSize)),
            peer: Figure(
              engine: "raw LMDB append", stats: Statistics(rawTimes), itemsPerOperation: Double(batchSize)),
            notes: [
              "records/s": Double(batchSize) / Statistics(ourTimes).median,
              "ceiling records/s": Double(batchSize) / Statistics(rawTimes).median,
              "event bytes/record": bytesPerRecord,
            ]
          ))
      }
    }
  }
}
