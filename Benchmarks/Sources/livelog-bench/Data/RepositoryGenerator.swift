import Foundation
import LiveLog

/// Deterministic benchmark data shaped like `repos-2022.csv` (23,291 real search results).
///
/// Each generated repository draws, from independent real records, its owner, its name, its
/// language, its stars, forks, topics and dates, and a real description from the API fixtures;
/// one name in four gets a second real name token joined with `-`. So the language mix, the
/// star distribution, the vocabulary and (close to) the name lengths are those of the real data,
/// while the combinations are new. The same seed always gives the same records.
struct RepositoryGenerator {
  let base: [Repository]
  /// The API fixtures' records (`api-repos`), whole.
  let api: [Repository]
  let descriptions: [String]

  /// Loads the real records from the repository's fixtures.
  init(fixtures: URL = RepositoryGenerator.defaultFixtures) throws {
    let csv = try RecordFile(path: fixtures.appendingPathComponent("repos-2022.csv").path)
    base = try csv.records(of: Repository.self)
    var descriptions: [String] = []
    var api: [Repository] = []
    for index in 0...4 {
      let file = try RecordFile(
        path: fixtures.appendingPathComponent("api-repos/repos-0\(index).ndjson").path)
      for repository in try file.records(of: Repository.self) {
        api.append(repository)
        if let text = repository.description, !text.isEmpty { descriptions.append(text) }
      }
    }
    self.api = api
    self.descriptions = descriptions
  }

  /// Every real record of the fixtures, once per id (the API's version where both files hold
  /// one): `repos-2022.csv` and `api-repos`, about 27,000 repositories.
  var realRepositories: [Repository] {
    let apiIDs = Set(api.map(\.id))
    var seen = Set<Int64>()
    return (base.filter { !apiIDs.contains($0.id) } + api).filter { seen.insert($0.id).inserted }
  }

  static var defaultFixtures: URL {
    URL(fileURLWithPath: #filePath)
      .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().deletingLastPathComponent()
      .appendingPathComponent("Tests/Fixtures/github")
  }

  /// `count` repositories with ids `firstID`, `firstID + 1`, …
  func generate(count: Int, seed: UInt64, firstID: Int64 = 1) -> [Repository] {
    var random = SplitMix64(seed: seed)
    var result: [Repository] = []
    result.reserveCapacity(count)
    for index in 0..<count {
      func pick() -> Repository { base[Int(random.next() % UInt64(base.count))] }
      let ownerSource = pick()
      let nameSource = pick()
      let owner = ownerSource.fullName.split(separator: "/").first.map(String.init) ?? "owner"
      var name = nameSource.name ?? String(nameSource.fullName.split(separator: "/").last ?? "repo")
      if random.next() % 4 == 0, let extra = pick().name?.split(separator: "-").first {
        name += "-" + extra
      }
      var repository = Repository(id: firstID + Int64(index), fullName: "\(owner)/\(name)")
      repository.name = name
      repository.ownerLogin = owner
      repository.htmlURL = "https://github.com/\(owner)/\(name)"
      let stats = pick()
      repository.language = pick().language
      repository.stargazersCount = stats.stargazersCount
      repository.forksCount = stats.forksCount
      repository.watchersCount = stats.stargazersCount
      repository.openIssuesCount = Int64(random.next() % 50)
      repository.topics = pick().topics
      repository.createdAt = stats.createdAt
      repository.updatedAt = stats.updatedAt
      repository.pushedAt = stats.updatedAt
      repository.description =
        descriptions.isEmpty ? nil : descriptions[Int(random.next() % UInt64(descriptions.count))]
      repository.isFork = random.next() % 10 == 0
      repository.isArchived = random.next() % 20 == 0
      repository.defaultBranch = "main"
      repository.size = Int64(random.next() % 100_000)
      result.append(repository)
    }
    return result
  }
}
