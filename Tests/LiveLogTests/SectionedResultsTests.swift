import Changesets
import Foundation
import Testing

@testable import LiveLog

/// `results.sectioned(by:)` and its live changes, against a grouping of the plain results.
@Suite struct SectionedResultsTests {
  static let languages: [String?] = ["Swift", "Go", "Rust", nil]

  static func repository(_ id: Int, _ random: inout SplitMix64) -> Repository {
    var repository = Repository(id: Int64(id), fullName: "owner/repo-\(id)")
    repository.stargazersCount = Int64(random.next() % 50)
    repository.language = languages[Int(random.next() % 4)]
    return repository
  }

  /// The oracle: ids grouped by language in order of first appearance, from decoded records.
  static func grouped(_ results: Results<Repository>) throws -> [[Int64]] {
    var order: [String?] = []
    var groups: [String?: [Int64]] = [:]
    for index in results.indices {
      let repository = try results.record(at: index)
      if groups[repository.language] == nil { order.append(repository.language) }
      groups[repository.language, default: []].append(repository.id)
    }
    return order.map { groups[$0] ?? [] }
  }

  static func ids(_ sectioned: SectionedResults<Repository>) throws -> [[Int64]] {
    let ids = try sectioned.results.ids()
    return try sectioned.sections().map { $0.positions.map { ids[$0] } }
  }

  @Test(arguments: 0..<10)
  func sectionedChangesetsRebuildTheNewSections(seed: UInt64) async throws {
    let directory = try TemporaryDirectory()
    let store = try Store.scratch(in: directory)
    var random = SplitMix64(seed: seed)
    try store.write((0..<30).map { Mutation.upsert(Self.repository($0, &random)) })
    let sectioned = try store.objects(Repository.self).filter("stargazers_count >= 10")
      .sorted(by: "language").sorted(by: "stargazers_count", ascending: false).sectioned(by: "language")
    var iterator = try sectioned.changes(keyPaths: nil).makeAsyncIterator()
    guard case .initial(let initial)? = try await iterator.next() else {
      Issue.record("no initial delivery")
      return
    }
    var shown = try Self.ids(initial)
    var shownKeys = try initial.sections().map(\.key)
    #expect(shown == (try Self.grouped(initial.results)))
    var checked = 0
    for _ in 0..<8 {
      var mutations: [Mutation] = []
      for _ in 0..<Int(random.next() % 4 + 1) {
        let id = Int(random.next() % 34)
        mutations.append(
          random.next() % 6 == 0 ? .delete(id: Int64(id)) : .upsert(Self.repository(id, &random)))
      }
      try store.write(mutations)
      store.synchronizeLiveQueries()
      let truth = try Self.grouped(store.results(sectioned.results.query))
      // Nothing visible changed: there may be no delivery to wait for.
      guard truth != shown else { continue }
      guard case .update(let now, let changeset)? = try await iterator.next() else {
        Issue.record("no update, seed \(seed)")
        return
      }
      let ids = try now.results.ids()
      let rebuilt = try changeset.applied(
        to: shown,
        newSection: { index in
          (try? now.sections()[index].positions.map { ids[$0] }) ?? []
        }
      ) { path in
        (try? now.sections()[path.section].positions[path.row]).map { ids[$0] } ?? -1
      }
      #expect(rebuilt == truth, "seed \(seed)")
      #expect(try Self.ids(now) == truth)
      // Sections are matched by key: only keys new to the result are inserted sections.
      let keys = try now.sections().map(\.key)
      #expect(changeset.sections.insertionsExcludingMoves.count == Set(keys).subtracting(shownKeys).count)
      #expect(changeset.sections.deletionsExcludingMoves.count == Set(shownKeys).subtracting(keys).count)
      shownKeys = keys
      shown = truth
      checked += 1
    }
    #expect(checked > 0, "no visible change, seed \(seed)")
  }
}
