import Foundation
import LMDB
import LiveLog

/// Ingest throughput per batch size and durability, beside raw LMDB appends of the very bytes
/// LiveLog's log stores (the ceiling: one put per record, no state, no lookups).
///
/// Each case runs with `Repository`'s own indexes, and the durable batches of 100 and 10,000 also
/// into a collection that declares the same fields without indexes: issue 2's goal (within 3x of
/// the raw append) was set for the log and the state before indexes existed.
extension Scenario {
  static let ingest = Scenario(
    name: "ingest",
    summary: "commit throughput for batches of 1, 100 and 10,000 repositories, durable and fast"
  ) { context in
    let generator = try RepositoryGenerator()
    let cases: [(batch: Int, commits: Int)] =
      context.quick ? [(1, 100), (100, 50), (10_000, 3)] : [(1, 300), (100, 200), (10_000, 10)]
    let withIndexes = [Durability.durable, .noSync].flatMap { durability in
      cases.map { IngestCase(batch: $0.batch, commits: $0.commits, durability: durability, indexed: true) }
    }
    let withoutIndexes = cases.filter { $0.batch > 1 }.map {
      IngestCase(batch: $0.batch, commits: $0.commits, durability: .durable, indexed: false)
    }
    for ingestCase in withIndexes + withoutIndexes {
      try ingestCase.run(generator: generator, context: context)
    }
  }
}

/// One case of the ingest scenario: a batch size, a number of commits, a durability, and whether
/// the collection keeps `Repository`'s indexes.
private struct IngestCase {
  let batchSize: Int
  let commits: Int
  let durability: Durability
  /// `Repository`'s declaration, or the same fields with no index.
  let declaration: CollectionSchema
  let indexed: Bool

  init(batch: Int, commits: Int, durability: Durability, indexed: Bool) {
    (self.batchSize, self.commits, self.durability, self.indexed) = (batch, commits, durability, indexed)
    let declared = Repository.schema.declaration
    declaration =
      indexed
      ? declared
      : CollectionSchema(
        name: declared.name, primaryKey: declared.primaryKey.name,
        fields: declared.fields.map {
          Field(position: $0.position, name: $0.name, type: $0.type, indexes: [], isOptional: $0.isOptional)
        })
  }

  var name: String { "batch \(batchSize), \(durability)" + (indexed ? "" : ", no indexes") }

  /// The mutation that upserts `repository`: typed, or its values under `declaration`.
  func upsert(_ repository: Repository) -> Mutation {
    let typed = Mutation.upsert(repository)
    guard !indexed, case .upsert(let values) = typed.change else { return typed }
    return .upsert(RecordValues(schema: declaration, values: values))
  }

  func run(generator: RepositoryGenerator, context: BenchmarkContext) throws {
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
        // Timed from the typed records: a write's time includes reading their fields (and,
        // without indexes, putting them under the other declaration).
        let start = now()
        try store.write(batch.map(upsert))
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
        name: name,
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
