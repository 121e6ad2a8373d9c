import Foundation
import LiveLog

extension Scenario {
  /// The seed's query and its neighbours over generated repositories, beside SQLite on the same
  /// rows with the same indexes: a `LIKE` scan, an FTS5 `trigram` index and B-tree indexes. Also
  /// indexed ingest throughput, bytes per record and the time to open a full store. The same cases
  /// then run on the 23,291 real records of `repos-2022.csv`, so that the generated data are not
  /// the only evidence.
  static let query = Scenario(
    name: "query",
    summary:
      "CONTAINS[c] ± language at three selectivities, description, BEGINSWITH, range, top-k, AND, OR,"
      + " NOT; vs SQLite LIKE, FTS5 and B-trees; generated data, then the real repos-2022.csv"
  ) { context in
    let generator = try RepositoryGenerator()
    for size in context.sizes {
      try QueryBenchmark(context: context, repositories: generator.generate(count: size, seed: 42)).run()
    }
    try QueryBenchmark(context: context, repositories: generator.base, dataset: "repos-2022").run()
  }
}

/// One data set of the query scenario.
struct QueryBenchmark {
  let context: BenchmarkContext
  let repositories: [Repository]
  /// Names a data set other than the generated one; it prefixes every case name.
  var dataset: String? = nil

  var size: Int { repositories.count }

  /// A case name, prefixed with the data set's when it is not the generated one.
  func caseName(_ name: String) -> String {
    dataset.map { "\($0): \(name)" } ?? name
  }

  func run() throws {
    let batch = 10_000
    let storeDirectory = try context.freshDirectory("query-livelog-\(size)")
    let sqlitePath = try context.freshDirectory("query-sqlite-\(size)").appendingPathComponent("repos.db")
      .path

    // Indexed ingest, both in their no-fsync modes, batches of 10,000.
    var options = StoreOptions()
    options.durability = .noSync
    var store: Store? = try Store(directory: storeDirectory.path, options: options)
    var ourTimes: [Double] = []
    for start in stride(from: 0, to: size, by: batch) {
      // Timed from the typed records, as SQLite's insert binds each record's fields.
      let began = now()
      try store?.write(repositories[start..<min(start + batch, size)].map { Mutation.upsert($0) })
      ourTimes.append(now() - began)
    }
    let sqlite = try SQLiteRepositoryStore(path: sqlitePath, durable: false)
    var peerTimes: [Double] = []
    for start in stride(from: 0, to: size, by: batch) {
      let began = now()
      try sqlite.insert(repositories[start..<min(start + batch, size)])
      peerTimes.append(now() - began)
    }
    try sqlite.database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    let perBatch = Double(min(batch, size))
    // The median batch is one that merges no segments (about one batch in four merges); the
    // sustained rate, every record over every batch's time, counts the merges too.
    var notes: [String: Double] = [
      "LiveLog rows/s": perBatch / Statistics(ourTimes).median,
      "SQLite rows/s": perBatch / Statistics(peerTimes).median,
      "LiveLog sustained rows/s": Double(size) / ourTimes.reduce(0, +),
      "SQLite sustained rows/s": Double(size) / peerTimes.reduce(0, +),
    ]
    if let store { notes.merge(try sizeNotes(store, sqlite), uniquingKeysWith: { a, _ in a }) }
    context.report.add(
      Comparison(
        scenario: "query", name: caseName("indexed ingest, batch \(batch), no-sync"), size: size,
        ours: Figure(engine: "LiveLog", stats: Statistics(ourTimes), itemsPerOperation: perBatch),
        peer: Figure(
          engine: "SQLite + FTS5 trigram", stats: Statistics(peerTimes), itemsPerOperation: perBatch),
        notes: notes))

    guard let liveStore = store else { return }
    try QueryCases(benchmark: self, store: liveStore, sqlite: sqlite).run()

    // Opening: a full store against an empty one; indexes are never rebuilt at open.
    store = nil
    let emptyDirectory = try context.freshDirectory("query-empty-\(size)")
    _ = try Store(directory: emptyDirectory.path)
    // In turns, as the query cases: each store is closed before the other opens.
    let opens = try measureInTurns(
      context.repetitions,
      [
        { _ = try Store(directory: storeDirectory.path, options: options).version() },
        { _ = try Store(directory: emptyDirectory.path).version() },
      ])
    let (fullOpen, emptyOpen) = (opens[0], opens[1])
    context.report.add(
      Comparison(
        scenario: "query", name: caseName("open store and read its version"), size: size,
        ours: Figure(engine: "LiveLog", stats: fullOpen, itemsPerOperation: 1),
        peer: Figure(engine: "LiveLog, empty store", stats: emptyOpen, itemsPerOperation: 1)))
  }

  /// Bytes per record of both engines: whole files (what the disk holds), and the pages in use by
  /// kind — LiveLog's state, indexes, log and free pages; SQLite's table, B-tree indexes and FTS5
  /// index.
  private func sizeNotes(_ store: Store, _ sqlite: SQLiteRepositoryStore) throws -> [String: Double] {
    let stats = try store.statistics()
    var state = 0
    var indexes = 0
    var log = 0
    // Sorted by name pattern rather than by a fixed list, so that both storage layouts classify:
    // `NAME.records`, `NAME.rows`, `NAME.ids`, `NAME.index.trigrams`, … before format 5 and
    // `NAME.keys`, `NAME.rows`, `NAME.recent`, `NAME.index` (`NAME.indexes` from format 7) after it,
    // and `NAME.columns` (the ordered values by row) from format 8.
    for database in stats.databases {
      if database.name == "log" {
        log += database.bytes
      } else if database.name.contains(".index") || database.name.hasSuffix(".columns") {
        indexes += database.bytes
      } else {
        // A collection's other databases, and the store's small `meta` and `catalog` tables,
        // which describe the state rather than the history.
        state += database.bytes
      }
    }
    // Pages LMDB keeps for reuse after copy-on-write belong to no database but occupy the map, so
    // without them the parts would not add up to the whole.
    let free = stats.mapUsed - state - indexes - log
    let pages = try sqlite.pageBytes()
    let perRecord = { (bytes: Int) in Double(bytes) / Double(size) }
    return [
      "LiveLog bytes/record": perRecord(stats.mapUsed),
      "LiveLog state B/record": perRecord(state),
      "LiveLog indexes B/record": perRecord(indexes),
      "LiveLog log B/record": perRecord(log),
      "LiveLog free pages B/record": perRecord(free),
      "SQLite bytes/record": perRecord(sqlite.database.fileSize),
      "SQLite table B/record": perRecord(pages.table),
      "SQLite B-tree indexes B/record": perRecord(pages.indexes),
      "SQLite FTS5 B/record": perRecord(pages.text),
    ]
  }
}
