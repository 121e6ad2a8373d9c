import Foundation
import LMDB
import Testing

@testable import LiveLog

/// An `AND` of a selective part and a common value reads the value's list among the selective
/// part's rows instead of checking their records: the answer must be the same as a brute-force
/// filter of the store's records, across segments, over recent rows (small commits whose entries
/// replace the segments'), updates that move a row in or out of the list, and deletions.
@Suite struct SelectiveAndTests {
  static let languages = ["Python", "Python", "Python", "JavaScript", "Go", "Rust"]

  static func repository(_ id: Int64, _ random: inout SplitMix64) -> Repository {
    // About one name in 150 holds "zeta", one in 1,000 "qzx"; the rest of the name varies.
    let mark = random.next() % 1_000 == 0 ? "QzxKit" : random.next() % 150 == 0 ? "ZetaKit" : "kit"
    var repository = Repository(
      id: id, fullName: "owner\(random.next() % 300)/\(mark)-\(random.next() % 10_000)")
    repository.language = Self.languages[Int(random.next() % UInt64(Self.languages.count))]
    return repository
  }

  @Test(arguments: [11, 12])
  func aCommonValueReadAmongTheCandidatesAgreesWithBruteForce(seed: UInt64) throws {
    let directory = try TemporaryDirectory()
    let modelled = try ModelledStore(in: directory)
    let store = modelled.store
    var random = SplitMix64(seed: seed)
    // Large commits: segments (the first four merge into one, the fifth stays apart).
    for batch in 0..<5 {
      try modelled.upsert((0..<3_000).map { Self.repository(Int64(batch * 3_000 + $0 + 1), &random) })
    }
    let queries = [
      "full_name CONTAINS[c] 'zeta' AND language == 'Python'",
      "language == 'Python' AND full_name CONTAINS[c] 'zeta'",
      "full_name CONTAINS[c] 'zeta' AND language IN {'Go', 'Rust'}",
      "full_name BEGINSWITH[c] 'owner177' AND language == 'Python'",
      // About 15 candidates against about 7,500 rows of Python: more than 256 times as many,
      // fewer than 1,024.
      "full_name CONTAINS[c] 'qzx' AND language == 'Python'",
    ]
    func check(_ stage: String) throws {
      for text in queries {
        let query = try Query(parsing: text)
        let expected = modelled.expectedIDs(query)
        #expect(try store.results(query).ids().sorted() == expected, "\(stage): \(text)")
        // The language's list was read, exactly: no record needed checking for it.
        let explanation = try store.explain(query)
        let language = explanation.steps.first { $0.description.hasPrefix("equality index of language") }
        #expect(language?.skipped == nil && language?.exact == true, "\(stage): \(text)")
        // (`IN` is a union of lists, each read whole, before the other parts.)
        if stage == "segments" && !text.contains(" IN ") {
          // Every other part is exact without recent rows: the list kept just the answer, and
          // no record was read.
          #expect(language?.actual == expected.count, "\(text)")
          #expect(explanation.checked == 0, "\(text)")
        }
      }
    }
    let segments = try store.read { txn, state in
      try #require(state.collection(named: "repositories")).directory(txn).count
    }
    #expect(segments >= 2)
    try check("segments")
    // Small commits: rows in the recent rows, some moved in or out of the lists, some deleted.
    for round in 0..<60 {
      let id = Int64(1 + random.next() % 12_000)
      switch round % 3 {
      case 0:
        var repository = Self.repository(id, &random)
        repository.fullName = "owner1/zeta-\(round)"
        try modelled.upsert([repository])
      case 1:
        try modelled.delete(id)
      default:
        try modelled.upsert([Self.repository(Int64(20_000 + round), &random)])
      }
    }
    try check("recent rows")
  }

  /// The intersection reads first the part that costs less to read first: a substring costs
  /// `positionalReadCost` times its smallest trigram list (every row's positions decoded), so a
  /// term with fewer rows than an equality list, but not that many times fewer, goes after it and
  /// is looked for among its rows, while a rare term still goes first. Either way the answer is
  /// the brute-force one.
  @Test func aTermNotFarShorterThanAListIsReadAmongItsRows() throws {
    let directory = try TemporaryDirectory()
    let store = try Store.scratch(in: directory)
    var random = SplitMix64(seed: 5)
    var model: [Int64: Repository] = [:]
    for batch in 0..<3 {
      let repositories = (0..<4_000).map { offset -> Repository in
        var repository = Self.repository(Int64(batch * 4_000 + offset + 1), &random)
        // One row in 12 is Swift: about 1,000 rows, against about 80 holding "zeta" and 12 "qzx".
        repository.language = random.next() % 12 == 0 ? "Swift" : "Python"
        return repository
      }
      for repository in repositories { model[repository.id] = repository }
      try store.write(repositories.map(Mutation.upsert))
    }
    let swift = model.values.filter { $0.language == "Swift" }.count
    let cost = QueryExecutor<Transaction>.positionalReadCost
    for (term, equalityFirst) in [("zeta", true), ("qzx", false)] {
      // Each trigram of the term is in its rows alone: its smallest list is those rows. "zeta" has
      // fewer rows than Swift, but not `cost` times fewer.
      let holding = model.values.filter { $0.fullName.lowercased().contains(term) }.count
      #expect(holding < swift && (holding * cost > swift) == equalityFirst, "\(term): \(holding), \(swift)")
      let text = "full_name CONTAINS[c] '\(term)' AND language == 'Swift'"
      let query = try Query(parsing: text)
      let expected = model.values.filter {
        $0.language == "Swift" && $0.fullName.lowercased().contains(term)
      }.map(\.id).sorted()
      #expect(try store.results(query).ids().sorted() == expected, "\(text)")
      let reads = try store.explain(query).steps.filter { $0.depth == 1 && $0.skipped == nil }
      #expect(reads.count == 2, "\(reads)")
      #expect(
        reads.first?.description.hasPrefix(equalityFirst ? "equality index" : "substring index") == true,
        "\(text): \(reads)")
      // The second read, among the first one's rows, kept just the answer.
      #expect(reads.last?.actual == expected.count, "\(text): \(reads)")
    }
  }

  /// A list past the estimates' limit (`estimateLimit`, 50,000) is counted on as far as the
  /// substring's cost (`positionalReadCost` times its list), so that the two rank by what they
  /// are: here the term's cost passes 50,000 and is less than the language's list, which a count
  /// stopped at the limit would have put first.
  @Test func aListPastTheEstimateLimitIsCountedOnToRankBesideATerm() throws {
    let directory = try TemporaryDirectory()
    let store = try Store.scratch(in: directory)
    var random = SplitMix64(seed: 9)
    var model: [Int64: (name: String, python: Bool)] = [:]
    for batch in 0..<12 {
      let repositories = (0..<10_000).map { offset -> Repository in
        let id = Int64(batch * 10_000 + offset + 1)
        // One name in 36 holds "zeta" (about 3,300), five rows in six are Python (100,000).
        let mark = random.next() % 36 == 0 ? "ZetaKit" : "kit"
        var repository = Repository(id: id, fullName: "owner\(random.next() % 300)/\(mark)-\(id)")
        repository.language = random.next() % 6 == 0 ? "Go" : "Python"
        model[id] = (repository.fullName.lowercased(), repository.language == "Python")
        return repository
      }
      try store.write(repositories.map(Mutation.upsert))
    }
    let cost = QueryExecutor<Transaction>.positionalReadCost
    let estimateLimit = QueryExecutor<Transaction>.estimateLimit
    let holding = model.values.filter { $0.name.contains("zeta") }.count
    let python = model.values.filter(\.python).count
    #expect(holding * cost > estimateLimit && holding * cost < python, "\(holding), \(python)")
    let query = try Query(parsing: "full_name CONTAINS[c] 'zeta' AND language == 'Python'")
    let expected = model.filter { $0.value.python && $0.value.name.contains("zeta") }.map(\.key).sorted()
    let explanation = try store.explain(query)
    let reads = explanation.steps.filter { $0.depth == 1 && $0.skipped == nil }
    #expect(reads.first?.description.hasPrefix("substring index") == true, "\(reads)")
    #expect(explanation.results == expected.count)
    #expect(try store.results(query).ids().sorted() == expected)
  }

  /// The recent rows every estimate counts are checked alike whichever part goes first, so a
  /// substring's cost counts them once, its list rows `positionalReadCost` times: here 18 × 50 +
  /// 100 = 1,000 rows against Python's 1,666 + 100, where 18 times the whole estimate (2,700)
  /// would put Python first.
  @Test func recentRowsCountOnceInATermsCost() throws {
    let directory = try TemporaryDirectory()
    let store = try Store.scratch(in: directory)
    func repository(_ id: Int64) -> Repository {
      var repository = Repository(
        id: id, fullName: "owner\(id % 97)/\(id % 200 == 0 ? "zetakit" : "kit")-\(id)")
      repository.language = id % 6 == 0 ? "Python" : "Go"
      return repository
    }
    // Folded into segments: more rows than a small commit.
    try store.write((1...10_000).map { Mutation.upsert(repository($0)) })
    // Kept as recent rows: a small commit, none of them Python or holding the term.
    try store.write(
      (10_001...10_100).map { id in
        var repository = repository(Int64(id))
        repository.fullName = "owner/kit-\(id)"
        repository.language = "Go"
        return Mutation.upsert(repository)
      })
    let cost = QueryExecutor<Transaction>.positionalReadCost
    let python = (1...10_000).filter { repository(Int64($0)).language == "Python" }.count
    #expect(50 * cost + 100 < python + 100 && 150 * cost > python + 100, "\(python)")
    let query = try Query(parsing: "full_name CONTAINS[c] 'zeta' AND language == 'Python'")
    let expected = (1...10_000).filter { $0 % 200 == 0 && $0 % 6 == 0 }.map(Int64.init)
    let explanation = try store.explain(query)
    let reads = explanation.steps.filter { $0.depth == 1 && $0.skipped == nil }
    #expect(reads.first?.description.hasPrefix("substring index") == true, "\(reads)")
    #expect(reads.first?.estimated == 150, "\(reads)")
    #expect(try store.results(query).ids().sorted() == expected)
  }
}
