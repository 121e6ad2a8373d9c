import TestSupport
import Testing

@testable import LiveLog

/// `BEGINSWITH` of a string field with an equality index is read from that index's keys (the
/// exact values whose fold begins with the prefix's fold, each checked from the key), so it
/// must agree with a brute-force filter for every option set, for lists, for prefixes of one
/// or two characters, and for text whose case and diacritic folds differ.
@Suite struct PrefixLookupTests {
  /// Logins that fold together in some option sets and apart in others: case, `ß`/`ss`,
  /// precomposed and decomposed `é`, a letter that does not decompose (`ø`), a non-BMP scalar.
  static let stems = [
    "React", "react", "REACTOR", "reälm", "Réact", "Re\u{301}act", "Straße", "strasse", "STRASSE",
    "øre", "Ørsted", "o\u{308}l", "Öl", "𝒳ray", "xray", "a", "A", "ab", "Ab", "Cafe\u{301}", "Caf\u{E9}",
    "cafe",
  ]

  static func repository(_ id: Int64, _ random: inout SplitMix64) -> Repository {
    let stem = stems[Int(random.next() % UInt64(stems.count))]
    var repository = Repository(id: id, fullName: "owner/r\(id)")
    if random.next() % 10 != 0 {
      repository.ownerLogin = random.next() % 3 == 0 ? stem : stem + "-\(random.next() % 50)"
    }
    if random.next() % 4 != 0 {
      repository.topics = (0..<Int(random.next() % 3)).map { _ in
        stems[Int(random.next() % UInt64(stems.count))].lowercased() + "\(random.next() % 3)"
      }
    }
    repository.stargazersCount = Int64(random.next() % 100)
    return repository
  }

  /// The prefixes asked: each stem's first one, two and four characters (the two also
  /// uppercased), and a few that begin no value.
  static let prefixes: [String] = {
    var prefixes: Set<String> = ["zzz", "q", "reactx"]
    for stem in stems {
      for length in [1, 2, 4] where length <= stem.count {
        prefixes.insert(String(stem.prefix(length)))
      }
      prefixes.insert(String(stem.prefix(2)).uppercased())
    }
    return prefixes.sorted()
  }()

  @Test(arguments: [5, 6])
  func prefixesFromTheEqualityIndexAgreeWithBruteForce(seed: UInt64) throws {
    let directory = try TemporaryDirectory()
    let modelled = try ModelledStore(in: directory)
    let store = modelled.store
    var random = SplitMix64(seed: seed)
    // Three commits large enough to be folded into segments (the brute force over every record
    // for every query is most of this test's time: keep the records few).
    for batch in 0..<3 {
      try modelled.upsert((0..<800).map { Self.repository(Int64(batch * 800 + $0 + 1), &random) })
    }
    var queries: [String] = []
    for options in ["", "[c]", "[d]", "[cd]"] {
      queries += ["owner.login BEGINSWITH\(options) %@", "ANY topics BEGINSWITH\(options) %@"]
    }
    queries.append("owner.login BEGINSWITH[c] %@ AND stargazers_count > 50")
    // Whole values through the same reader: a value that ends in a combining accent equals its
    // bare letters under `[d]`.
    let equalities = ["", "[c]", "[d]", "[cd]"].map { "owner.login ==\($0) %@" }
    func check(_ stage: String) throws {
      for text in queries + equalities {
        for prefix in text.contains("==") ? Self.stems : Self.prefixes {
          let query = try Query(parsing: text, for: Repository.self, prefix)
          let found = Set(try store.results(query).ids())
          let expected = Set(modelled.expectedIDs(query))
          #expect(
            found == expected,
            "\(stage): \(text) with '\(prefix)': missing \(expected.subtracting(found).sorted()), extra \(found.subtracting(expected).sorted())"
          )
          guard stage != "folded" else { continue }
          let explanation = try store.explain(query)
          let step = explanation.steps.first { $0.description.hasPrefix("equality index of") }
          #expect(step?.exact == true, "\(stage): \(text) with '\(prefix)': \(explanation.steps)")
          if !text.contains("AND") {
            #expect(explanation.checked == 0, "\(stage): \(text) with '\(prefix)': \(explanation)")
          }
        }
      }
    }
    try check("segments")
    for round in 0..<60 {
      let id = Int64(1 + random.next() % 2_400)
      if round % 4 == 3 {
        try modelled.delete(id)
      } else {
        try modelled.upsert([Self.repository(id, &random)])
      }
    }
    try check("recent rows")
    try modelled.upsert((0..<600).map { Self.repository(Int64(10_000 + $0), &random) })
    try check("folded")
  }

  /// The plan names the index and the prefix; a field with only a substring index keeps the
  /// trigram plan, and an empty prefix is no lookup.
  @Test func explainNamesThePrefixLookup() throws {
    let directory = try TemporaryDirectory()
    let store = try Store.scratch(in: directory)
    var random = SplitMix64(seed: 1)
    try store.write((1...200).map { .upsert(Self.repository(Int64($0), &random)) })
    let login = try store.explain(try Query(parsing: "owner.login BEGINSWITH[c] 're'", for: Repository.self))
    #expect(
      login.steps.map(\.description) == ["equality index of owner.login: values beginning with 're' [c]"])
    let name = try store.explain(try Query(parsing: "name BEGINSWITH[c] 'react'", for: Repository.self))
    #expect(name.steps.first?.description.hasPrefix("substring index of name") == true)
    let empty = try store.explain(try Query(parsing: "owner.login BEGINSWITH ''", for: Repository.self))
    #expect(!empty.steps.contains { $0.description.contains("beginning with") })
  }
}
