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
      try Self.expectAnswers(
        of: store, as: model, &generator, &random, "after \(commit)", generated: 12,
        patterns: ["swift", "kit", "learn", "ünï", "STRASSE", "-ui", "café", "edi"])
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

  /// Queries of every form over `store`, against `model`: generated ones, and substring
  /// patterns through `CONTAINS` (whose positions decide, and `[c]`, which checks rows a `[d]`
  /// fold changes), `BEGINSWITH`, `LIKE` (trigrams only), `OR` and `AND NOT`.
  static func expectAnswers(
    of store: Store, as model: StateReadTests.Model, _ generator: inout PredicateGenerator,
    _ random: inout SplitMix64, _ when: String, generated: Int = 30,
    patterns: [String] = ["kit", "-kit", "swift", "learn", "ui", "Edit", "anim"]
  ) throws {
    for _ in 0..<generated {
      let query = generator.query(using: &random)
      #expect(try store.results(query).ids() == model.answer(query), "\(query.text) \(when)")
    }
    for pattern in patterns {
      for text in [
        "full_name CONTAINS %@", "full_name CONTAINS[c] %@", "name BEGINSWITH[c] %@", "full_name LIKE[c] %@",
        "description CONTAINS[cd] %@ OR name CONTAINS %@",
        "full_name CONTAINS %@ AND NOT description CONTAINS[c] %@",
      ] {
        let arguments = Array(
          repeating: text.contains("LIKE") ? "*\(pattern)*" : pattern,
          count: text.components(separatedBy: "%@").count - 1)
        let query = try Query(parsing: text, for: Repository.self, arguments: arguments)
        #expect(try store.results(query).ids() == model.answer(query), "\(text) \(pattern) \(when)")
      }
    }
  }

  /// Replaces every recent entry of a row not deleted with `rewrite(entry, its record's codes)`.
  static func rewriteRecentEntries(
    of store: Store, _ rewrite: ([UInt8], Set<UInt32>) throws -> [UInt8]
  ) throws {
    let collection = try store.repositoriesCollection()
    try store.environment.write { txn in
      var entries: [(UInt64, [UInt8])] = []
      try txn.withCursor(collection.databases.recent) { cursor in
        var entry = try cursor.first()
        while let current = entry {
          entries.append((try #require(current.integerKey), Array(current.value)))
          entry = try cursor.next()
        }
      }
      for (row, bytes) in entries where bytes[0] & 1 == 0 {
        let lsn = try bytes.withUnsafeBytes { try RecentEntry.View($0).lsn }
        let record = try collection.entries(of: try collection.record(at: row, lsn: lsn, txn), row: row)
        let codes = Set(record.trigrams.map { UInt32(truncatingIfNeeded: $0 >> 32) })
        try txn.put(collection.databases.recent, row, try rewrite(bytes, codes))
      }
    }
  }

  /// A store with 500 folded rows, 200 new recent rows and 40 recent edits of folded rows (their
  /// names ending in "-kit"), and its model.
  static func storeWithRecentRows(at path: String, _ options: StoreOptions, _ all: [Repository]) throws
    -> (Store, StateReadTests.Model)
  {
    var model = StateReadTests.Model()
    let store = try Store(directory: path, options: options)
    func write(_ repositories: [Repository]) throws {
      try store.write(repositories.map(Mutation.upsert))
      for repository in repositories { model.apply(repository, deleting: repository.id) }
    }
    try write(Array(all[0..<500]))
    for start in stride(from: 500, to: 700, by: 20) { try write(Array(all[start..<(start + 20)])) }
    try write(edited(all[0..<40], "-kit"))
    return (store, model)
  }

  static func edited(_ repositories: ArraySlice<Repository>, _ mark: String) -> [Repository] {
    repositories.map { repository in
      var edited = repository
      edited.fullName += mark
      edited.description = "\(mark) \(repository.fullName)"
      return edited
    }
  }

  /// Recent rows whose filters let every code through (every bit set) are candidates of every
  /// substring lookup: each is checked against its record, so every answer still equals the
  /// model's (a lookup that took a filter's word as final would add them all).
  @Test func recentRowsPassingEveryCodeAreCheckedAgainstTheirRecords() throws {
    let directory = try TemporaryDirectory()
    var options = StoreOptions()
    options.durability = .noSync
    options.recentCapacity = 300
    var random = SplitMix64(seed: 14)
    let all = QueryFixture.shared.repositories.shuffled(using: &random)
    let (store, model) = try Self.storeWithRecentRows(at: directory.child("store"), options, all)
    try Self.rewriteRecentEntries(of: store) { entry, _ in
      var saturated = entry
      for index in try RecentEntryTests.filterRange(in: entry) { saturated[index] = 0xFF }
      return saturated
    }
    let recent = try store.environment.read { txn in
      try RecentRows.load(try store.repositoriesCollection(), txn)
    }
    #expect(recent.entries.count == 240 && recent.entries.allSatisfy { $0.mayHave(0x0123_4567) })
    var generator = PredicateGenerator(repositories: Array(all.prefix(1_000)))
    try Self.expectAnswers(of: store, as: model, &generator, &random, "with saturated filters")
  }

  /// A store of format 8, whose recent entries list their trigram codes, reads as it is: opened
  /// read-only it keeps its marker and answers as the model does, and meanwhile no writable open
  /// marks it up; its first writable open rewrites the marker alone (no rebuild, so no old data
  /// file is kept); entries of both layouts then answer together, through small commits (edits of
  /// rows whose entry is of format 8 among them) and a fold; and it verifies. (The open refused
  /// is one of this process; another process's is refused by the same exclusive lock a rebuild
  /// takes, `ExclusiveAccess`.)
  @Test func aStoreOfFormat8ReadsItsRecentEntriesAsTheyAre() throws {
    let directory = try TemporaryDirectory()
    let path = directory.child("store")
    var options = StoreOptions()
    options.durability = .noSync
    options.recentCapacity = 300
    var random = SplitMix64(seed: 12)
    let all = QueryFixture.shared.repositories.shuffled(using: &random)
    var generator = PredicateGenerator(repositories: Array(all.prefix(1_000)))
    func format8Entries(_ store: Store) throws -> Int {
      let collection = try store.repositoriesCollection()
      return try store.environment.read { txn in
        try RecentRows.load(collection, txn).entries.filter { !$0.isDeleted && $0.trigramFilter == nil }.count
      }
    }
    func format() throws -> Int { try StoreDirectory(path: path).prepare(readOnly: true) }

    var model: StateReadTests.Model
    do {
      let created = try Self.storeWithRecentRows(at: path, options, all)
      let store = created.0
      model = created.1
      // Every recent entry as format 8 wrote it, its codes those of its record.
      try Self.rewriteRecentEntries(of: store) { try RecentEntryTests.format8Entry($0, codes: $1) }
      #expect(try format8Entries(store) == 240)
    }
    try StoreDirectory(path: path).writeMarker(format: 8)
    #expect(Store.formatAwaitingUpgrade(directory: path) == nil)

    do {
      var readOnly = options
      readOnly.readOnly = true
      let store = try Store(directory: path, options: readOnly)
      try Self.expectAnswers(of: store, as: model, &generator, &random, "read-only, format 8")
      #expect(try format8Entries(store) == 240)
      // Not marked up while it is open (here, by this process).
      let error = try #require(throws: StoreError.self) { try Store(directory: path, options: options) }
      #expect(error == .inUse(path: path, holders: "this process"), "\(error)")
    }
    #expect(try format() == 8)

    let store = try Store(directory: path, options: options)
    func write(_ repositories: [Repository]) throws {
      try store.write(repositories.map(Mutation.upsert))
      for repository in repositories { model.apply(repository, deleting: repository.id) }
    }
    #expect(try format() == StoreDirectory.currentFormat)
    #expect(!FileManager.default.fileExists(atPath: path + "/data.mdb.before-repair"))
    try Self.expectAnswers(of: store, as: model, &generator, &random, "marked up")
    try write(Self.edited(all[500..<520], "-ui"))
    try write(Array(all[700..<730]))
    #expect(try format8Entries(store) == 220)
    #expect(try Self.recentCount(store) == 270)
    try Self.expectAnswers(of: store, as: model, &generator, &random, "with entries of both formats")
    #expect(try store.verify(scratchParent: directory.path).passed)
    for start in stride(from: 730, to: 830, by: 25) { try write(Array(all[start..<(start + 25)])) }
    // The commit that would pass 300 recent rows folded them all.
    #expect(try Self.recentCount(store) < 270)
    #expect(try format8Entries(store) == 0)
    try Self.expectAnswers(of: store, as: model, &generator, &random, "after a fold")
    let rebuilt = try store.replay(into: directory.child("rebuilt"))
    #expect(try store.digest() == rebuilt.digest())
  }
}
