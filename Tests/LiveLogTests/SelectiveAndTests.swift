import Foundation
import Testing

@testable import LiveLog

/// An `AND` of a selective part and a common value reads the value's list among the selective
/// part's rows instead of checking their records: the answer must be the same as a brute-force
/// filter of the store's records, across segments, over recent rows (small commits whose entries
/// replace the segments'), updates that move a row in or out of the list, and deletions.
@Suite struct SelectiveAndTests {
  static let languages = ["Python", "Python", "Python", "JavaScript", "Go", "Rust"]

  static func repository(_ id: Int64, _ random: inout SplitMix64) -> Repository {
    // About one name in fifty holds "zeta"; the rest of the name varies.
    let marked = random.next() % 50 == 0
    var repository = Repository(
      id: id, fullName: "owner\(random.next() % 300)/\(marked ? "ZetaKit" : "kit")-\(random.next() % 10_000)")
    repository.language = Self.languages[Int(random.next() % UInt64(Self.languages.count))]
    return repository
  }

  @Test(arguments: [11, 12])
  func aCommonValueReadAmongTheCandidatesAgreesWithBruteForce(seed: UInt64) throws {
    let directory = try TemporaryDirectory()
    var options = StoreOptions()
    options.durability = .noSync
    let store = try Store(directory: directory.child("store"), options: options)
    var random = SplitMix64(seed: seed)
    var model: [Int64: Repository] = [:]
    // Large commits: segments.
    for batch in 0..<4 {
      let repositories = (0..<3_000).map { Self.repository(Int64(batch * 3_000 + $0 + 1), &random) }
      for repository in repositories { model[repository.id] = repository }
      try store.write(repositories.map(Mutation.upsert))
    }
    let queries = [
      "full_name CONTAINS[c] 'zeta' AND language == 'Python'",
      "language == 'Python' AND full_name CONTAINS[c] 'zeta'",
      "full_name CONTAINS[c] 'zeta' AND language IN {'Go', 'Rust'}",
      "full_name BEGINSWITH[c] 'owner7' AND language == 'Python'",
    ]
    func check(_ stage: String) throws {
      for text in queries {
        let query = try Query(parsing: text)
        let predicate = try Query(parsing: text).predicate
        let expected = model.values.filter { ReferenceEvaluator.matches(predicate, $0.fieldValues) }
          .map(\.id).sorted()
        #expect(try store.results(query).ids().sorted() == expected, "\(stage): \(text)")
        // The language's list was read, exactly: no record needed checking for it.
        let explanation = try store.explain(query)
        let language = explanation.steps.first { $0.description.hasPrefix("equality index of language") }
        #expect(language?.skipped == nil && language?.exact == true, "\(stage): \(text)")
      }
    }
    try check("segments")
    // Small commits: rows in the recent rows, some moved in or out of the lists, some deleted.
    for round in 0..<60 {
      let id = Int64(1 + random.next() % 12_000)
      switch round % 3 {
      case 0:
        var repository = Self.repository(id, &random)
        repository.fullName = "owner1/zeta-\(round)"
        model[id] = repository
        try store.write([.upsert(repository)])
      case 1:
        model[id] = nil
        try store.write([.delete(Repository.self, id: id)])
      default:
        let repository = Self.repository(Int64(20_000 + round), &random)
        model[repository.id] = repository
        try store.write([.upsert(repository)])
      }
    }
    try check("recent rows")
  }
}
