import Foundation
import LiveLog

/// The query cases of one data set: each LiveLog query beside the SQLite statements that answer
/// the same question with the same indexes, every side returning the ids of the matches.
struct QueryCases {
  let benchmark: QueryBenchmark
  let store: Store
  let sqlite: SQLiteRepositoryStore

  /// One way SQLite answers a case: `label` names it in the case name (`… vs LIKE`) and in the
  /// result-size notes.
  struct Peer {
    var label: String
    var engine: String
    var sql: String
    var bindings: [String] = []

    static func like(_ sql: String, _ bindings: String...) -> Peer {
      Peer(label: "LIKE", engine: "SQLite LIKE scan", sql: sql, bindings: bindings)
    }

    static func fts(_ sql: String, _ bindings: String...) -> Peer {
      Peer(label: "FTS5", engine: "SQLite FTS5 trigram", sql: sql, bindings: bindings)
    }

    static func btree(_ sql: String) -> Peer {
      Peer(label: "B-tree", engine: "SQLite B-tree index", sql: sql)
    }
  }

  func run() throws {
    let terms = Self.pickTerms(repositories.prefix(20_000).map { $0.fullName.lowercased() })
    for (label, term) in terms {
      for swiftOnly in [false, true] {
        let suffix = swiftOnly ? " AND language == 'Swift'" : ""
        try compare(
          "CONTAINS[c] '\(term)' (\(label))" + (swiftOnly ? " + Swift" : ""),
          "full_name CONTAINS[c] %@" + suffix, [term],
          peers: [
            .like(
              "SELECT id FROM repos WHERE full_name LIKE ?1" + (swiftOnly ? " AND language = 'Swift'" : ""),
              "%\(term)%"),
            .fts(
              swiftOnly
                ? "SELECT id FROM repos WHERE language = 'Swift' AND id IN (SELECT rowid FROM repos_text WHERE repos_text MATCH ?1)"
                : "SELECT rowid FROM repos_text WHERE repos_text MATCH ?1",
              "full_name : \"\(term)\""),
          ])
      }
    }

    // A longer text field: descriptions run to hundreds of bytes.
    let descriptions = repositories.prefix(20_000).compactMap { $0.description?.lowercased() }
    for (label, term) in descriptions.isEmpty ? [] : Self.pickTerms(descriptions).prefix(2) {
      try compare(
        "description CONTAINS[c] '\(term)' (\(label))", "description CONTAINS[c] %@", [term],
        peers: [
          .like("SELECT id FROM repos WHERE description LIKE ?1", "%\(term)%"),
          .fts("SELECT rowid FROM repos_text WHERE repos_text MATCH ?1", "description : \"\(term)\""),
        ])
    }

    let common = terms[0].1
    let medium = terms[1].1
    try compare(
      "AND: CONTAINS[c] '\(common)' + language + stars BETWEEN {10, 1000}",
      "full_name CONTAINS[c] %@ AND language == 'Python' AND stargazers_count BETWEEN {10, 1000}", [common],
      peers: [
        .like(
          "SELECT id FROM repos WHERE full_name LIKE ?1 AND language = 'Python' AND stargazers_count BETWEEN 10 AND 1000",
          "%\(common)%"),
        .fts(
          "SELECT id FROM repos WHERE language = 'Python' AND stargazers_count BETWEEN 10 AND 1000 AND id IN (SELECT rowid FROM repos_text WHERE repos_text MATCH ?1)",
          "full_name : \"\(common)\""),
      ])
    // A selective part ANDed with an unselective one should cost about the selective part alone
    // (its case above): the rare term with the data's most frequent language, and with a star
    // range nearly every record is in. The peer is FTS5 joined with the B-tree condition.
    let (rareLabel, rare) = terms[2]
    if let language = Self.mostFrequentLanguage(repositories.prefix(20_000)) {
      try compare(
        "AND: CONTAINS[c] '\(rare)' (\(rareLabel)) AND language == '\(language)'",
        "full_name CONTAINS[c] %@ AND language == %@", [rare, language],
        peers: [
          .fts(
            "SELECT id FROM repos WHERE language = ?2 AND id IN (SELECT rowid FROM repos_text WHERE repos_text MATCH ?1)",
            "full_name : \"\(rare)\"", language)
        ])
    }
    try compare(
      "AND: CONTAINS[c] '\(rare)' (\(rareLabel)) AND stargazers_count > 10",
      "full_name CONTAINS[c] %@ AND stargazers_count > 10", [rare],
      peers: [
        .fts(
          "SELECT id FROM repos WHERE stargazers_count > 10 AND id IN (SELECT rowid FROM repos_text WHERE repos_text MATCH ?1)",
          "full_name : \"\(rare)\"")
      ])
    try compare(
      "OR: CONTAINS[c] '\(common)' OR CONTAINS[c] '\(medium)'",
      "full_name CONTAINS[c] %@ OR full_name CONTAINS[c] %@", [common, medium],
      peers: [
        .like(
          "SELECT id FROM repos WHERE full_name LIKE ?1 OR full_name LIKE ?2", "%\(common)%", "%\(medium)%"),
        .fts(
          "SELECT rowid FROM repos_text WHERE repos_text MATCH ?1",
          "full_name : \"\(common)\" OR full_name : \"\(medium)\""),
      ])
    try compare(
      "NOT: NOT CONTAINS[c] '\(common)'", "NOT full_name CONTAINS[c] %@", [common],
      peers: [
        .like("SELECT id FROM repos WHERE full_name NOT LIKE ?1", "%\(common)%"),
        .fts(
          "SELECT id FROM repos WHERE id NOT IN (SELECT rowid FROM repos_text WHERE repos_text MATCH ?1)",
          "full_name : \"\(common)\""),
      ])
    try compare(
      "NOT: Swift AND NOT CONTAINS[c] '\(medium)'", "language == 'Swift' AND NOT full_name CONTAINS[c] %@",
      [medium],
      peers: [
        .like("SELECT id FROM repos WHERE language = 'Swift' AND full_name NOT LIKE ?1", "%\(medium)%"),
        .fts(
          "SELECT id FROM repos WHERE language = 'Swift' AND id NOT IN (SELECT rowid FROM repos_text WHERE repos_text MATCH ?1)",
          "full_name : \"\(medium)\""),
      ])

    try compare(
      "stargazers_count BETWEEN {1000, 2000}", "stargazers_count BETWEEN {1000, 2000}", [],
      peers: [.btree("SELECT id FROM repos WHERE stargazers_count BETWEEN 1000 AND 2000")], suffixed: false)
    try compare(
      "stargazers_count BETWEEN {1000, 2000}, by stars",
      "stargazers_count BETWEEN {1000, 2000} SORT(stargazers_count DESC)",
      [],
      peers: [
        .btree(
          "SELECT id FROM repos WHERE stargazers_count BETWEEN 1000 AND 2000 ORDER BY stargazers_count DESC, id"
        )
      ], suffixed: false)
    try compare(
      "stargazers_count BETWEEN {1000, 2000}, by stars, top 20",
      "stargazers_count BETWEEN {1000, 2000} SORT(stargazers_count DESC) LIMIT(20)", [],
      peers: [
        .btree(
          "SELECT id FROM repos WHERE stargazers_count BETWEEN 1000 AND 2000 ORDER BY stargazers_count DESC, id LIMIT 20"
        )
      ], suffixed: false)
    try compare(
      "Swift by stars, top 20", "language == 'Swift' SORT(stargazers_count DESC) LIMIT(20)", [],
      peers: [
        .btree("SELECT id FROM repos WHERE language = 'Swift' ORDER BY stargazers_count DESC, id LIMIT 20")
      ], suffixed: false)

    // Realm forms: a list literal, answered from the equality index; two fields compared, which
    // both engines answer by reading every row.
    try compare(
      "language == {'Go', 'Rust', 'Swift'}", "language == {'Go', 'Rust', 'Swift'}", [],
      peers: [.btree("SELECT id FROM repos WHERE language IN ('Go', 'Rust', 'Swift')")], suffixed: false)
    try compare(
      "forks_count > watchers_count (two fields)", "forks_count > watchers_count", [],
      peers: [
        Peer(
          label: "scan", engine: "SQLite scan", sql: "SELECT id FROM repos WHERE forks_count > watchers_count"
        )
      ], suffixed: false)

    // Prefixes of fields with an equality index, which LiveLog reads as a range of its keys: a
    // login's first three characters and a topic's first four, the most frequent of each, beside
    // SQLite's B-tree range for them (`GLOB`, case-sensitive as `BEGINSWITH` without `[c]` is, is
    // its indexed prefix plan on the same `BINARY` index).
    let sample = repositories.prefix(20_000)
    let prefixCases = [
      (
        "owner.login", Self.mostFrequentPrefix(of: sample.compactMap(\.ownerLogin), length: 3),
        "SELECT id FROM repos WHERE owner_login GLOB ?1"
      ),
      (
        "ANY topics", Self.mostFrequentPrefix(of: sample.flatMap { $0.topics ?? [] }, length: 4),
        "SELECT DISTINCT repo FROM repo_topics WHERE topic GLOB ?1"
      ),
    ]
    for case (let field, let prefix?, let sql) in prefixCases {
      try printPlan(sql, binding: prefix + "*")
      try compare(
        "\(field) BEGINSWITH '\(prefix)' vs B-tree", "\(field) BEGINSWITH %@", [prefix],
        peers: [Peer(label: "B-tree", engine: "SQLite B-tree index", sql: sql, bindings: [prefix + "*"])],
        suffixed: false)
    }

    // A prefix: first beside the LIKE scan SQLite uses without an index for it, then beside its
    // indexed prefix plan once a `COLLATE NOCASE` index on `name` exists (LiveLog answers from
    // its substring index either way). The index is made only now, so that the bytes per record
    // and every other case saw exactly LiveLog's indexes.
    let prefixSQL = "SELECT id FROM repos WHERE name LIKE 'react%'"
    try compare(
      "BEGINSWITH[c] 'react' (name)", "name BEGINSWITH[c] 'react'", [],
      peers: [.like(prefixSQL)], suffixed: false)
    try sqlite.database.execute("CREATE INDEX repos_name_nocase ON repos(name COLLATE NOCASE)")
    let plan = try sqlite.database.prepare("EXPLAIN QUERY PLAN " + prefixSQL).planDetails()
    print("  SQLite's plan for \(prefixSQL): \(plan)")
    try compare(
      "BEGINSWITH[c] 'react' (name) vs NOCASE index", "name BEGINSWITH[c] 'react'", [],
      peers: [Peer(label: "NOCASE index", engine: "SQLite NOCASE index", sql: prefixSQL)], suffixed: false)
    try sqlite.database.execute("DROP INDEX repos_name_nocase")
  }

  private var repositories: [Repository] { benchmark.repositories }
  private var context: BenchmarkContext { benchmark.context }

  /// Measures LiveLog's query (its results' ids) and each peer, in turns (`measureInTurns`), and
  /// reports one comparison per peer, named `name vs <label>` (or `name` alone for a single peer
  /// when `suffixed` is false), with every engine's result size.
  private func compare(
    _ name: String, _ text: String, _ arguments: [String], peers: [Peer], suffixed: Bool = true
  ) throws {
    let query = try Query(parsing: text, for: Repository.self, arguments: arguments)
    var count = 0
    var notes: [String: Double] = [:]
    var statements: [Statement] = []
    for peer in peers {
      let statement = try sqlite.database.prepare(peer.sql)
      for (index, value) in peer.bindings.enumerated() { statement.bind(Int32(index + 1), value) }
      statements.append(statement)
    }
    let ours: () throws -> Void = { count = try store.results(Repository.self, query).ids().count }
    let theirs = statements.map { statement in { () throws -> Void in _ = try statement.integers() } }
    let measured = try measureInTurns(queryRepetitions, [ours] + theirs)
    notes["rows"] = Double(count)
    for (peer, statement) in zip(peers, statements) {
      let rows = try statement.integers().count
      if peers.count > 1 || suffixed { notes["rows (\(peer.label))"] = Double(rows) }
      if rows != count {
        print("  note: \(name): result sizes differ: LiveLog \(count), \(peer.engine) \(rows)")
      }
    }
    for (peer, stats) in zip(peers, measured.dropFirst()) {
      context.report.add(
        Comparison(
          scenario: "query", name: benchmark.caseName(suffixed ? "\(name) vs \(peer.label)" : name),
          size: benchmark.size,
          ours: Figure(engine: "LiveLog", stats: measured[0], itemsPerOperation: 1),
          peer: Figure(engine: peer.engine, stats: stats, itemsPerOperation: 1), notes: notes))
    }
  }

  /// The run's repetitions, with enough samples of a fast query to outlast a burst of the
  /// machine's other work: at least a quarter of a second of timed runs (a twentieth in a quick
  /// run), up to 20,000 of them (a 12.5 µs query's quarter of a second).
  private var queryRepetitions: Repetitions {
    var repetitions = context.repetitions
    repetitions.minimumTime = context.quick ? 0.05 : 0.25
    repetitions.maximum = 20_000
    return repetitions
  }

  /// Prints SQLite's plan for `sql` with its one parameter bound, so that the log shows which
  /// index the peer used.
  private func printPlan(_ sql: String, binding: String) throws {
    let statement = try sqlite.database.prepare("EXPLAIN QUERY PLAN " + sql)
    statement.bind(1, binding)
    print("  SQLite's plan for \(sql) with '\(binding)': \(try statement.planDetails())")
  }

  /// The most frequent first `length` characters of `texts` (those at least that long); ties go
  /// to the first in order, so that every run picks the same.
  static func mostFrequentPrefix(of texts: [String], length: Int) -> String? {
    var counts: [String: Int] = [:]
    for text in texts where text.count >= length { counts[String(text.prefix(length)), default: 0] += 1 }
    return counts.min { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }?.key
  }

  /// The language most records have; ties go to the first in alphabetical order, so that every
  /// run picks the same.
  static func mostFrequentLanguage(_ repositories: some Sequence<Repository>) -> String? {
    var counts: [String: Int] = [:]
    for language in repositories.compactMap(\.language) where !language.isEmpty {
      counts[language, default: 0] += 1
    }
    return counts.min { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }?.key
  }

  /// Words of `texts` (lowercased) matched by about 5%, 0.5% and 0.02% of them.
  static func pickTerms(_ texts: [String]) -> [(String, String)] {
    let sample = texts
    var candidates: Set<String> = []
    for text in sample.prefix(3_000) {
      for word in text.split(whereSeparator: { !$0.isLetter }) where word.count >= 4 && word.count <= 8 {
        candidates.insert(String(word))
      }
    }
    var frequencies: [(String, Double)] = []
    for word in candidates.sorted() {
      let hits = sample.reduce(0) { $0 + ($1.contains(word) ? 1 : 0) }
      frequencies.append((word, Double(hits) / Double(max(sample.count, 1))))
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
