import Foundation
import Testing

@testable import LiveLog

/// Small commits write their rows to the recent rows; folds write them into segments, edit the
/// rows already folded in place and merge segments. None of it may show in an answer, a digest
/// or a comparison with a replay.
@Suite struct RecentRowsTests {
  static func recentCount(_ store: Store) throws -> Int {
    let collection = try store.repositoriesCollection()
    return try store.environment.read { try $0.statistics(collection.databases.recent).entries }
  }

  static func segments(_ store: Store) throws -> SegmentDirectory {
    let collection = try store.repositoriesCollection()
    return try store.environment.read { try collection.directory($0) }
  }

  /// Commits of 1–20 mutations (inserts, edits of text and numbers, deletes, re-inserts) and now
  /// and then a large one, into a store whose recent rows hold 24 rows: every few commits, random
  /// queries of every form are checked against the reference evaluator over the test's own model;
  /// the final state equals its replay's. With room for 300 recent rows and commits of up to 120
  /// mutations, many of a commit's recent entries are encoded on another thread.
  @Test(arguments: [(UInt64(3), 24, 20), (4, 24, 20), (5, 300, 120)])
  func randomQueriesOverSmallCommitsAndFoldsEqualTheModel(seed: UInt64, capacity: Int, largestSmall: Int)
    throws
  {
    let directory = try TemporaryDirectory()
    var options = StoreOptions()
    options.durability = .noSync
    options.recentCapacity = capacity
    let store = try Store(directory: directory.child("store"), options: options)
    var random = SplitMix64(seed: seed)
    let all = QueryFixture.shared.repositories.shuffled(using: &random)
    var pool = all[...]
    var model = StateReadTests.Model()
    var generator = PredicateGenerator(repositories: Array(all.prefix(3_000)))
    let suffixes = ["-kit", "-swift", "learning", "-ui", "Ünïcode", "straße", "Café"]
    var largest = 0
    var folds = 0
    var previous = 0
    var maximumSegments = 0
    var largestFiled = 0
    for commit in 0..<140 {
      var batch: [Mutation] = []
      var touched = Set<Int64>()
      let size = commit % 37 == 20 ? 400 : Int.random(in: 1...largestSmall, using: &random)
      for _ in 0..<size {
        let roll = Int.random(in: 0..<12, using: &random)
        if roll < 5 || model.order.isEmpty, let fresh = pool.popFirst() {
          guard touched.insert(fresh.id).inserted else { continue }
          batch.append(.upsert(fresh))
          model.apply(fresh, deleting: fresh.id)
        } else if let id = model.order.randomElement(using: &random), touched.insert(id).inserted,
          var edited = all.first(where: { $0.id == id })
        {
          switch roll {
          case 5, 6:
            edited.fullName += suffixes.randomElement(using: &random) ?? ""
            edited.description = Bool.random(using: &random) ? nil : "edited \(commit) \(edited.fullName)"
          case 7, 8:
            edited.stargazersCount = Int64.random(in: 0...5_000, using: &random)
            edited.language = ["Swift", "Go", nil, "Rust"].randomElement(using: &random) ?? nil
          case 9, 10:
            edited.topics = Bool.random(using: &random) ? nil : ["swift", "edited-\(commit % 3)"]
            edited.pushedAt = Timestamp(secondsSince1970: Int64.random(in: 0...1_700_000_000, using: &random))
          default:
            batch.append(.delete(id: id))
            model.apply(nil, deleting: id)
            continue
          }
          batch.append(.upsert(edited))
          model.apply(edited, deleting: id)
        }
      }
      try store.write(batch)
      let count = try Self.recentCount(store)
      #expect(count <= options.recentCapacity)
      if count < previous { folds += 1 } else { largestFiled = max(largestFiled, count - previous) }
      previous = count
      largest = max(largest, count)
      maximumSegments = max(maximumSegments, try Self.segments(store).count)
      guard commit % 7 == 0 else { continue }
      for _ in 0..<12 {
        let query = generator.query(using: &random)
        #expect(try store.results(query).ids() == model.answer(query), "\(query.text) after \(commit)")
      }
      for pattern in ["swift", "kit", "learn", "ünï", "STRASSE", "-ui", "café", "edi"] {
        for text in [
          "full_name CONTAINS[c] %@", "name BEGINSWITH[c] %@",
          "description CONTAINS[cd] %@ OR name CONTAINS %@",
          "full_name CONTAINS %@ AND NOT description CONTAINS[c] %@",
        ] {
          let arguments = Array(repeating: pattern, count: text.components(separatedBy: "%@").count - 1)
          let query = try Query(parsing: text, for: Repository.self, arguments: arguments)
          #expect(try store.results(query).ids() == model.answer(query), "\(text) \(pattern) after \(commit)")
        }
      }
    }
    // The premise: the recent rows filled and folded, and segments came and merged.
    #expect(largest > capacity / 2)
    #expect(folds >= 10)
    #expect(largestFiled > largestSmall * 3 / 5, "\(largestFiled)")
    #expect(maximumSegments >= 2)
    let rebuilt = try store.replay(into: directory.child("rebuilt"))
    #expect(try Self.recentCount(rebuilt) == 0)
    #expect(try store.firstDifference(from: rebuilt) == nil)
    #expect(try store.digest() == rebuilt.digest())
  }

  /// An index added to a field, and dropped again, is built from the records, the recent rows'
  /// included.
  @Test func anIndexChangeRebuildsTheIndexesFromEveryRecord() throws {
    let directory = try TemporaryDirectory()
    let store = try Store.scratch(in: directory)
    for repository in QueryFixture.shared.repositories.prefix(40) { try store.write([.upsert(repository)]) }
    #expect(try Self.recentCount(store) == 40)
    let collection = try store.repositoriesCollection()
    try store.environment.write { txn in try collection.rebuildIndexes(txn) }
    #expect(try Self.recentCount(store) == 0)
    let stored = QueryFixture.shared.repositories.prefix(40)
    let pattern = String(stored[stored.startIndex].fullName.lowercased().suffix(3))
    let query = try Query(parsing: "full_name CONTAINS[c] %@", for: Repository.self, arguments: [pattern])
    let expected = stored.filter { $0.fullName.lowercased().contains(pattern) }
    #expect(!expected.isEmpty)
    #expect(try store.results(query).ids() == expected.map(\.id))
    let rebuilt = try store.replay(into: directory.child("rebuilt"))
    #expect(try store.firstDifference(from: rebuilt) == nil)
  }
}
