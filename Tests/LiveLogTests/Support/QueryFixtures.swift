import Foundation

@testable import LiveLog

/// Real repositories (repos-2022.csv and the API fixtures) plus generated ones with non-ASCII
/// text, ingested once into a store shared by the query tests.
final class QueryFixture: Sendable {
  static let shared: QueryFixture = {
    do {
      return try QueryFixture()
    } catch {
      preconditionFailure("cannot build the query fixture: \(error)")
    }
  }()

  let directory: TemporaryDirectory
  let store: Store
  /// Every stored repository in insertion order.
  let repositories: [Repository]

  private init() throws {
    directory = try TemporaryDirectory()
    var options = StoreOptions()
    options.durability = .noSync
    store = try Store(directory: directory.child("store"), options: options)
    var all: [Repository] = []
    for path in [Fixtures.path("repos-2022.csv")] + Fixtures.apiRepoFiles {
      all += try RecordFile(path: path).mutations().compactMap(\.repository)
    }
    all += QueryFixture.generated(count: 1_500, seed: 99)
    for start in stride(from: 0, to: all.count, by: 5_000) {
      try store.write(all[start..<min(start + 5_000, all.count)].map(Mutation.upsert))
    }
    repositories = try store.allRepositories()
  }

  /// Repositories whose names and descriptions mix ASCII with accents, case pairs that fold
  /// unusually (ß, ſ, Σ/ς, İ), combining marks, other scripts and emoji.
  static func generated(count: Int, seed: UInt64) -> [Repository] {
    var random = SplitMix64(seed: seed)
    let pieces = [
      "anim", "Anim", "ANIM", "ánim", "swift", "Swift", "SWİFT", "straße", "STRASSE", "ſtar", "ΣΟΦΙΑ",
      "σοφία",
      "e\u{301}cole", "école", "Ölçü", "日本語", "кот", "🙂", "a", "ab", "ka", "tetris", "nand2", "-", "_", " ",
      "zoë", "Zoe", "naïve", "NAIVE", "façade", "İstanbul", "istanbul",
    ]
    let languages: [String?] = ["Swift", "swift", "Objective-C", "C", "Ruby", nil, "Émoji", "C++"]
    let topics = ["swift", "ios", "Swift", "anim", "straße", "日本", "cli"]
    return (0..<count).map { index in
      func text(_ parts: Int) -> String {
        (0..<parts).map { _ in pieces.randomElement(using: &random) ?? "x" }.joined()
      }
      var repository = Repository(id: 9_000_000_000 + Int64(index), fullName: "\(text(2))/\(text(3))")
      repository.name = String(repository.fullName.split(separator: "/").last ?? "")
      repository.ownerLogin = String(repository.fullName.split(separator: "/").first ?? "")
      repository.description = Bool.random(using: &random) ? text(Int.random(in: 0...8, using: &random)) : nil
      repository.language = languages.randomElement(using: &random) ?? nil
      repository.stargazersCount =
        Bool.random(using: &random) ? Int64.random(in: -3...5_000, using: &random) : nil
      repository.forksCount = Int64.random(in: 0...100, using: &random)
      repository.topics =
        Bool.random(using: &random)
        ? Array(topics.shuffled(using: &random).prefix(Int.random(in: 0...3, using: &random))) : nil
      repository.isFork = [true, false, nil].randomElement(using: &random) ?? nil
      repository.createdAt = Timestamp(
        secondsSince1970: Int64.random(in: 1_200_000_000...1_700_000_000, using: &random))
      return repository
    }
  }
}
