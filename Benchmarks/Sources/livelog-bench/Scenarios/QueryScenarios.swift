import Foundation
import LiveLog

extension Scenario {
  /// The seed's query and its neighbours over generated repositories, beside SQLite on the same
  /// rows: a `LIKE '%term%'` scan and an FTS5 `trigram` index. Also indexed ingest throughput,
  /// bytes per record and the time to open a full store. The same cases then run on the 23,291
  /// real records of `repos-2022.csv`, so that the generated data are not the only evidence.
  static let query = Scenario(
    name: "query",
    summary:
      "CONTAINS[c] ± language at three selectivities, BEGINSWITH, range, top-k; vs SQLite LIKE and FTS5;"
      + " generated data, then the real repos-2022.csv"
  ) { context in
    let generator = try RepositoryGenerator()
    for size in context.sizes {
      try QueryBenchmark(context: context, repositories: generator.generate(count: size, seed: 42)).run()
    }
    try QueryBenchmark(context: context, repositories: generator.base, dataset: "repos-2022").run()
  }
}

/// One data set of the query scenario.
private struct QueryBenchmark {
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
      let mutations = repositories[start..<min(start + batch, size)].map(Mutation.upsert)
      let began = now()
      try store?.write(mutations)
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
    let stats = try store?.statistics()
    let ourBytes = Double(stats?.mapUsed ?? 0) / Double(size)
    let peerBytes = Double(sqlite.database.fileSize) / Double(size)
    let perBatch = Double(min(batch, size))
    context.report.add(
      Comparison(
        scenario: "query", name: caseName("indexed ingest, batch \(batch), no-sync"), size: size,
        ours: Figure(engine: "LiveLog", stats: Statistics(ourTimes), itemsPerOperation: perBatch),
        peer: Figure(
          engine: "SQLite + FTS5 trigram", stats: Statistics(peerTimes), itemsPerOperation: perBatch),
        notes: [
          "LiveLog rows/s": perBatch / Statistics(ourTimes).median,
          "SQLite rows/s": perBatch / Statistics(peerTimes).median,
          "LiveLog bytes/record": ourBytes, "SQLite bytes/record": peerBytes,
        ]))

    guard let liveStore = store else { return }
    let terms = pickTerms(repositories)
    for (label, term) in terms {
      for swiftOnly in [false, true] {
        let suffix = swiftOnly ? " AND language == 'Swift'" : ""
        let query = try Query(parsing: "full_name CONTAINS[c] %@" + suffix, for: Repository.self, term)
        let like = try sqlite.database.prepare(
          "SELECT id FROM repos WHERE full_name LIKE ?1" + (swiftOnly ? " AND language = 'Swift'" : ""))
        like.bind(1, "%\(term)%")
        let fts = try sqlite.database.prepare(
          swiftOnly
            ? "SELECT id FROM repos WHERE language = 'Swift' AND id IN (SELECT rowid FROM repos_text WHERE repos_text MATCH ?1)"
            : "SELECT rowid FROM repos_text WHERE repos_text MATCH ?1")
        fts.bind(1, "full_name : \"\(term)\"")
        var count = 0
        let ours = try measure(context.repetitions) {
          count = try liveStore.results(Repository.self, query).ids().count
        }
        let likeCount = try like.integers().count
        let likeStats = try measure(context.repetitions) { _ = try like.integers() }
        let ftsCount = try fts.integers().count
        let ftsStats = try measure(context.repetitions) { _ = try fts.integers() }
        let name = "CONTAINS[c] '\(term)' (\(label))" + (swiftOnly ? " + Swift" : "")
        let notes: [String: Double] = [
          "rows": Double(count), "rows (LIKE)": Double(likeCount), "rows (FTS5)": Double(ftsCount),
        ]
        if count != likeCount || count != ftsCount {
          print("  note: result counts differ: LiveLog \(count), LIKE \(likeCount), FTS5 \(ftsCount)")
        }
        context.report.add(
          Comparison(
            scenario: "query", name: caseName(name + " vs LIKE"), size: size,
            ours: Figure(engine: "LiveLog", stats: ours, itemsPerOperation: 1),
            peer: Figure(engine: "SQLite LIKE scan", stats: likeStats, itemsPerOperation: 1), notes: notes))
        context.report.add(
          Comparison(
            scenario: "query", name: caseName(name + " vs FTS5"), size: size,
            ours: Figure(engine: "LiveLog", stats: ours, itemsPerOperation: 1),
            peer: Figure(engine: "SQLite FTS5 trigram", stats: ftsStats, itemsPerOperation: 1), notes: notes))
      }
    }

    try compare(
      "BEGINSWITH[c] 'react' (name)", liveStore, "name BEGINSWITH[c] 'react'",
      sqlite, "SELECT id FROM repos WHERE name LIKE 'react%'", peer: "SQLite LIKE scan")
    try compare(
      "stargazers_count BETWEEN {1000, 2000}", liveStore, "stargazers_count BETWEEN {1000, 2000}",
      sqlite, "SELECT id FROM repos WHERE stargazers_count BETWEEN 1000 AND 2000", peer: "SQLite B-tree index"
    )
    try compare(
      "Swift by stars, top 20", liveStore, "language == 'Swift' SORT(stargazers_count DESC) LIMIT(20)",
      sqlite, "SELECT id FROM repos WHERE language = 'Swift' ORDER BY stargazers_count DESC, id LIMIT 20",
      peer: "SQLite B-tree index")
    // Issue 15's forms: a list literal answered from the equality index, a comparison of two
    // fields (a scan on both sides).
    try compare(
      "language == {'Go', 'Rust', 'Swift'}", liveStore, "language == {'Go', 'Rust', 'Swift'}",
      sqlite, "SELECT id FROM repos WHERE language IN ('Go', 'Rust', 'Swift')", peer: "SQLite B-tree index")
    try compare(
      "forks_count > watchers_count (two fields)", liveStore, "forks_count > watchers_count",
      sqlite, "SELECT id FROM repos WHERE forks_count > watchers_count", peer: "SQLite scan")
    try longAndChain(liveStore)

    // Opening: a full store against an empty one; indexes are never rebuilt at open.
    store = nil
    let emptyDirectory = try context.freshDirectory("query-empty-\(size)")
    _ = try Store(directory: emptyDirectory.path)
    let fullOpen = try measure(context.repetitions) {
      let reopened = try Store(directory: storeDirectory.path, options: options)
      _ = try reopened.version()
    }
    let emptyOpen = try measure(context.repetitions) {
      let reopened = try Store(directory: emptyDirectory.path)
      _ = try reopened.version()
    }
    context.report.add(
      Comparison(
        scenario: "query", name: caseName("open store and read its version"), size: size,
        ours: Figure(engine: "LiveLog", stats: fullOpen, itemsPerOperation: 1),
        peer: Figure(engine: "LiveLog, empty store", stats: emptyOpen, itemsPerOperation: 1)))
  }

  private func compare(
    _ name: String, _ store: Store, _ text: String, _ sqlite: SQLiteRepositoryStore, _ sql: String,
    peer: String
  ) throws {
    let query = try Query(parsing: text, for: Repository.self)
    let statement = try sqlite.database.prepare(sql)
    var ours: [Int64] = []
    let ourStats = try measure(context.repetitions) { ours = try store.results(Repository.self, query).ids() }
    let theirs = try statement.integers()
    let peerStats = try measure(context.repetitions) { _ = try statement.integers() }
    if ours.count != theirs.count {
      print("  note: result counts differ: LiveLog \(ours.count), SQLite \(theirs.count)")
    }
    context.report.add(
      Comparison(
        scenario: "query", name: caseName(name), size: size,
        ours: Figure(engine: "LiveLog", stats: ourStats, itemsPerOperation: 1),
        peer: Figure(engine: peer, stats: peerStats, itemsPerOperation: 1),
        notes: ["rows": Double(ours.count)]))
  }

  /// Parsing, planning and answering an AND of 8,000 `id > N` terms, beside the one term it
  /// comes to (SQLite refuses an expression this deep, so the peer is LiveLog's own short form).
  private func longAndChain(_ store: Store) throws {
    let terms = 8_000
    let text = (0..<terms).map { "id > \($0)" }.joined(separator: " AND ")
    let short = "id > \(terms - 1)"
    var rows = 0
    let long = try measure(context.repetitions) {
      rows = try store.results(Repository.self, Query(parsing: text, for: Repository.self)).ids().count
    }
    var shortRows = 0
    let one = try measure(context.repetitions) {
      shortRows = try store.results(Repository.self, Query(parsing: short, for: Repository.self)).ids().count
    }
    if rows != shortRows { print("  note: result counts differ: \(rows) and \(shortRows)") }
    context.report.add(
      Comparison(
        scenario: "query", name: caseName("AND of 8,000 id > N terms, parsed and answered"), size: size,
        ours: Figure(engine: "LiveLog", stats: long, itemsPerOperation: 1),
        peer: Figure(engine: "LiveLog, the one term \(short)", stats: one, itemsPerOperation: 1),
        notes: ["rows": Double(rows)]))
  }

  /// Terms of `full_name` matched by about 5%, 0.5% and 0.02% of the rows.
  private func pickTerms(_ repositories: [Repository]) -> [(String, String)] {
    let sample = repositories.prefix(20_000).map { $0.fullName.lowercased() }
    var candidates: Set<String> = []
    for name in sample.prefix(3_000) {
      for word in name.split(whereSeparator: { !$0.isLetter }) where word.count >= 4 && word.count <= 8 {
        candidates.insert(String(word))
      }
    }
    var frequencies: [(String, Double)] = []
    for word in candidates.sorted() {
      let hits = sample.reduce(0) { $0 + ($1.contains(word) ? 1 : 0) }
      frequencies.append((word, Double(hits) / Double(sample.count)))
    }
    func closest(_ target: Double) -> String {
      frequencies.min { abs(log($0.1 + 1e-6) - log(target)) < abs(log($1.1 + 1e-6) - log(target)) }?.0
        ?? "anim"
    }
    return [
      ("common, ~5%", closest(0.05)), ("medium, ~0.5%", closest(0.005)), ("rare, ~0.02%", closest(0.0002)),
    ]
  }
}
