import Foundation
import Testing

@testable import LiveLog

/// Small commits file their new rows' trigrams in the segment of recent rows; substring queries,
/// digests and replays must not see the difference.
@Suite struct RecentTrigramsTests {
  static func segmentCount(_ store: Store) throws -> Int {
    let trigrams = try store.repositoriesCollection().databases.trigrams
    return try store.environment.read { try RecentTrigrams.count(in: trigrams, $0) }
  }

  /// Commits of 1–40 inserts, text edits and deletes (and a large one), with substring
  /// queries checked against the reference evaluator over the test's own model after every
  /// few commits, through the segment's filling, its folds (by a large commit and by capacity)
  /// and the edits of rows inside it; the final state equals its replay's.
  @Test(arguments: [UInt64(3), 4])
  func substringQueriesOverSmallCommitsEqualTheModel(seed: UInt64) throws {
    let directory = try TemporaryDirectory()
    var options = StoreOptions()
    options.durability = .noSync
    let store = try Store(directory: directory.child("store"), options: options)
    var random = SplitMix64(seed: seed)
    var pool = QueryFixture.shared.repositories.shuffled(using: &random)[...]
    var model = StateReadTests.Model()
    let suffixes = ["-kit", "-swift", "learning", "-ui", "Ünïcode", "straße"]
    var largest = 0
    var folds = 0
    var previous = 0
    for commit in 0..<160 {
      var batch: [Mutation] = []
      var touched = Set<Int64>()
      let size = commit == 30 ? 300 : Int.random(in: 1...40, using: &random)
      for _ in 0..<size {
        let roll = Int.random(in: 0..<10, using: &random)
        if roll < 6 || model.order.isEmpty, let fresh = pool.popFirst() {
          guard touched.insert(fresh.id).inserted else { continue }
          batch.append(.upsert(fresh))
          model.apply(fresh, deleting: fresh.id)
        } else if let id = model.order.randomElement(using: &random), touched.insert(id).inserted {
          if roll < 9, var edited = QueryFixture.shared.repositories.first(where: { $0.id == id }) {
            edited.fullName += suffixes.randomElement(using: &random) ?? ""
            edited.description = Bool.random(using: &random) ? nil : "edited \(commit) \(edited.fullName)"
            batch.append(.upsert(edited))
            model.apply(edited, deleting: id)
          } else {
            batch.append(.delete(id: id))
            model.apply(nil, deleting: id)
          }
        }
      }
      try store.write(batch)
      let nameSlot = try #require(try store.repositoriesCollection().schema.field(named: "full_name"))
        .position
      let count = try Self.segmentCount(store)
      #expect(count <= RecentTrigrams.capacity)
      if count < previous { folds += 1 }
      previous = count
      largest = max(largest, count)
      guard commit % 10 == 0 else { continue }
      var patterns = ["swift", "kit", "learn", "ünï", "STRASSE", "-ui"]
      if let id = model.order.randomElement(using: &random),
        case .string(let name) = model.records[id]?[nameSlot]
      {
        let start = Int.random(in: 0..<max(1, name.count - 3), using: &random)
        patterns.append(String(name.dropFirst(start).prefix(4)))
      }
      for pattern in patterns {
        for text in ["full_name CONTAINS[c] %@", "description CONTAINS[cd] %@ OR name CONTAINS %@"] {
          let arguments = text.contains(" OR ") ? [pattern, pattern] : [pattern]
          let query = try Query(parsing: text, for: Repository.self, arguments: arguments)
          #expect(try store.results(query).ids() == model.answer(query), "\(text) \(pattern) after \(commit)")
        }
      }
    }
    // The premise: the segment filled, and was folded both ways.
    #expect(largest > 100)
    #expect(folds >= 2)
    let rebuilt = try store.replay(into: directory.child("rebuilt"))
    #expect(try Self.segmentCount(rebuilt) == 0)
    #expect(try store.firstDifference(from: rebuilt) == nil)
    #expect(try store.digest() == rebuilt.digest())
  }

  /// Dropping a substring index and adding it again goes through the posting lists alone.
  @Test func anIndexChangeFoldsTheSegment() throws {
    let directory = try TemporaryDirectory()
    var options = StoreOptions()
    options.durability = .noSync
    let store = try Store(directory: directory.child("store"), options: options)
    for repository in QueryFixture.shared.repositories.prefix(40) { try store.write([.upsert(repository)]) }
    #expect(try Self.segmentCount(store) == 40)
    let collection = try store.repositoriesCollection()
    let field = try #require(collection.schema.field(named: "description"))
    try store.environment.write { txn in try IndexMaintenance.drop([field], in: collection, txn) }
    #expect(try Self.segmentCount(store) == 0)
    let stored = QueryFixture.shared.repositories.prefix(40)
    let pattern = String(stored[stored.startIndex].fullName.lowercased().suffix(3))
    let query = try Query(parsing: "full_name CONTAINS[c] %@", for: Repository.self, arguments: [pattern])
    let expected = stored.filter { $0.fullName.lowercased().contains(pattern) }
    #expect(!expected.isEmpty)
    #expect(try store.results(query).ids() == expected.map(\.id))
  }
}
