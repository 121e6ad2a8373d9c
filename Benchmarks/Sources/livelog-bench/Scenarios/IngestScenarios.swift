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
            // Timed from the typed records: a write's time includes reading their fields.
            let start = now()
            try store.write(batch.map(Mutation.upsert))
            ourTimes.append(now() - start)
          }
        }

        // The ceiling: the very event bytes LiveLog's log stored, read back from it, appended to
        // one LMDB database in the same batches.
        let encoded: [[(UInt64, [UInt8])]] = try {
          let environment = try Environment.open(path: storeDirectory.path)
          let stored: [(UInt64, [UInt8])] = try environment.write { txn in
            let log = try environment.openDatabase("log", flags: .integerKey, create: false, in: txn)
            return try txn.withCursor(log) { cursor in
              var events: [(UInt64, [UInt8])] = []
              var entry = try cursor.first()
              while let current = entry {
                if let lsn = current.integerKey { events.append((lsn, Array(current.value))) }
                entry = try cursor.next()
              }
              return events
            }
          }
          // The collection's schema event comes first; the records follow, one event each.
          let records = Array(stored.suffix(repositories.count))
          return stride(from: 0, to: records.count, by: batchSize).map {
            Array(records[$0..<min($0 + batchSize, records.count)])
          }
        }()
        let rawDirectory = try context.freshDirectory("ingest-raw")
        var rawTimes: [Double] = []
        do {
          var environmentOptions = EnvironmentOptions()
          environmentOptions.durability = durability
          let environment = try Environment.open(path: rawDirectory.path, options: environmentOptions)
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
