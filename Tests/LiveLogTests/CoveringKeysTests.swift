import Foundation
import LMDB
import Testing

@testable import LiveLog

/// Covering ordered pages: an integer-keyed collection's ordered entries carry each row's key, so
/// that the ids of a range come from the pages it reads. Held to a model of the records that
/// shares no code with the store (a dictionary and insertion counters), through small commits
/// (recent rows), folds, merges, in-place edits, deletes and re-inserts; and a state without them
/// (format 5's layout, as a string-keyed collection's pages still are) must read, change and
/// digest alike.
@Suite struct CoveringKeysTests {
  /// What the test believes the collection holds: each id's stars and its place in insertion
  /// order (a re-insert after a delete goes last).
  struct Model {
    var stars: [Int64: Int64] = [:]
    var order = InsertionOrder()

    mutating func upsert(_ id: Int64, stars value: Int64) {
      order.insert(id)
      stars[id] = value
    }

    mutating func delete(_ id: Int64) {
      stars[id] = nil
      order.remove(id)
    }

    /// The ids whose stars lie in `low ... high` (and whose language is `language`, when given),
    /// in insertion order or by stars (`ascending`, ties in insertion order), the first `limit`.
    func ids(
      from low: Int64, to high: Int64, language: String? = nil, byStars ascending: Bool?, limit: Int?
    ) -> [Int64] {
      let found = stars.filter { id, value in
        value >= low && value <= high && (language.map { CoveringKeysTests.language(of: id) == $0 } ?? true)
      }.keys.sorted { a, b in
        if let ascending, let x = stars[a], let y = stars[b], x != y { return ascending ? x < y : x > y }
        return order.isBefore(a, b)
      }
      return limit.map { Array(found.prefix($0)) } ?? found
    }
  }

  static let languages = ["Swift", "Go", "C"]

  static func language(of id: Int64) -> String { languages[Int(id.magnitude % 3)] }

  static func repository(_ id: Int64, stars: Int64) -> Repository {
    var repository = Repository(id: id, fullName: "owner/r\(id)")
    repository.language = language(of: id)
    repository.stargazersCount = stars
    repository.forksCount = stars / 3
    return repository
  }

  /// Random commits of every size against the model, with range queries checked after each.
  static func exercise(
    _ store: Store, _ model: inout Model, rounds: Int, _ random: inout SplitMix64, fastPath: Bool
  ) throws {
    var usedFastPath = false
    for round in 0..<rounds {
      var batch: [Mutation] = []
      // Mostly small commits (recent rows), now and then one large enough to fold.
      let size =
        Int.random(in: 0..<5, using: &random) == 0
        ? Int.random(in: 300...900, using: &random)
        : Int.random(in: 1...40, using: &random)
      var touched = Set<Int64>()
      for _ in 0..<size {
        // Ids far from rows, some negative: their distance from the row is what pages store.
        let id = Int64.random(in: -2_000...2_000, using: &random) * 1_000_003
        guard touched.insert(id).inserted else { continue }
        if model.stars[id] != nil && Int.random(in: 0..<6, using: &random) == 0 {
          model.delete(id)
          batch.append(.delete(Repository.self, id: id))
        } else {
          let stars = Int64.random(in: 0...500, using: &random)
          model.upsert(id, stars: stars)
          batch.append(.upsert(repository(id, stars: stars)))
        }
      }
      try store.write(batch)
      for _ in 0..<4 {
        let low = Int64.random(in: -10...500, using: &random)
        let high = low + Int64.random(in: 0...200, using: &random)
        let limit = Bool.random(using: &random) ? Int.random(in: 1...50, using: &random) : nil
        let order: Bool? = [nil, true, false].randomElement(using: &random) ?? nil
        // A language instead of a range, when sorted: a walk of the stars index that keeps the
        // language's rows.
        let language =
          order != nil && Bool.random(using: &random) ? Self.languages.randomElement(using: &random) : nil
        let text =
          (language.map { "language == '\($0)'" } ?? "stargazers_count BETWEEN {\(low), \(high)}")
          + (order.map { " SORT(stargazers_count \($0 ? "ASC" : "DESC"))" } ?? "")
          + (limit.map { " LIMIT(\($0))" } ?? "")
        let query = try Query(parsing: text, for: Repository.self)
        let wanted =
          language.map { model.ids(from: .min, to: .max, language: $0, byStars: order, limit: limit) }
          ?? model.ids(from: low, to: high, byStars: order, limit: limit)
        let results = try store.results(Repository.self, query)
        let ids = try results.ids()
        #expect(ids == wanted, "round \(round), \(text): \(ids.count) ids, \(wanted.count) wanted")
        #expect(try results.keys() == wanted.map { PrimaryKey.integer($0) }, "round \(round), \(text): keys")
        let steps = try store.explain(query, in: "repositories").steps
        usedFastPath = usedFastPath || steps.contains { $0.description.contains("keys from its pages") }
        if ids != wanted { return }
      }
    }
    #expect(usedFastPath == fastPath, "keys from the pages: \(usedFastPath), expected \(fastPath)")
  }

  @Test(arguments: [UInt64(1), 2, 3])
  func rangeIDsFromCoveringPagesAgreeWithTheModel(seed: UInt64) throws {
    let directory = try TemporaryDirectory()
    let store = try Store.scratch(in: directory)
    var random = SplitMix64(seed: seed)
    var model = Model()
    try Self.exercise(store, &model, rounds: 40, &random, fastPath: true)
    #expect(try store.repositoriesCollection().coversKeys(in: store) == true)
    // The state, keys in pages included, is what a replay of its log builds.
    let rebuilt = try store.replay(into: directory.child("replay"))
    #expect(try store.firstDifference(from: rebuilt) == nil)
  }

  /// A state whose ordered pages carry no keys — format 5's, as a string-keyed collection's are —
  /// answers from the row table, keeps its layout through folds and edits, and digests as the
  /// covering state of the same log does.
  @Test func aStateWithoutCoveringPagesReadsAndChangesAlike() throws {
    let directory = try TemporaryDirectory()
    let store = try Store.scratch(in: directory)
    var random = SplitMix64(seed: 7)
    var model = Model()
    // Enough rows at once to fold into a segment, so that there are pages to rewrite.
    let first = (1...600).map { Self.repository(Int64($0) * 1_000_003, stars: Int64($0 % 500)) }
    for repository in first { model.upsert(repository.id, stars: repository.stargazersCount ?? 0) }
    try store.write(first.map { .upsert($0) })
    try Self.exercise(store, &model, rounds: 10, &random, fastPath: true)
    try Self.rewriteOrderedPages(of: store) { _ in nil }
    #expect(try store.repositoriesCollection().coversKeys(in: store) == false)
    try Self.exercise(store, &model, rounds: 25, &random, fastPath: false)
    #expect(try store.repositoriesCollection().coversKeys(in: store) == false)
    let rebuilt = try store.replay(into: directory.child("replay"))
    #expect(try rebuilt.repositoriesCollection().coversKeys(in: rebuilt) == true)
    #expect(try store.firstDifference(from: rebuilt) == nil)
  }

  /// A key in a covering page that is not its row's fails the digest (so `verify`) by name.
  @Test func aWrongKeyInACoveringPageFailsTheDigest() throws {
    let directory = try TemporaryDirectory()
    let store = try Store(directory: directory.child("store"))
    try store.write((1...600).map { .upsert(Self.repository(Int64($0) * 10, stars: Int64($0 % 7))) })
    _ = try store.digest()
    var changed = false
    try Self.rewriteOrderedPages(of: store) { id in
      guard !changed else { return id }
      changed = true
      return id + 1
    }
    #expect(changed)
    #expect {
      try store.digest()
    } throws: { error in
      guard case StoreError.corruptState(let reason) = error else { return false }
      return reason.contains("keys its ordered index carries disagree with its row table")
        && reason.contains("replay --in-place")
    }
  }

  /// A covering page whose rows lie outside its segment fails the query with `corruptState`
  /// rather than trapping.
  @Test func aCoveringPageWithRowsOutsideItsSegmentFailsTheQuery() throws {
    let directory = try TemporaryDirectory()
    let store = try Store(directory: directory.child("store"))
    try store.write((1...600).map { .upsert(Self.repository(Int64($0) * 10, stars: Int64($0 % 7))) })
    try Self.rewriteOrderedPages(of: store, shiftingRowsBy: 5_000) { $0 }
    let query = try Query(parsing: "stargazers_count BETWEEN {0, 6}", for: Repository.self)
    #expect {
      try store.results(Repository.self, query).ids()
    } throws: { error in
      guard case StoreError.corruptState(let reason) = error else { return false }
      return reason.contains("outside its segment")
    }
  }

  /// Writes every ordered page of `repositories` again: each entry's key through `change`, or,
  /// when `change` gives nil for any, without keys and with the directory's flag cleared; rows
  /// moved by `shift` (damage).
  static func rewriteOrderedPages(
    of store: Store, shiftingRowsBy shift: Row = 0, _ change: @escaping (Int64) -> Int64?
  ) throws {
    let collection = try store.repositoriesCollection()
    try store.environment.write { txn in
      var directory = try collection.directory(txn)
      var rewritten: [(old: [UInt8], pages: [(key: [UInt8], value: [UInt8])])] = []
      var covering = directory.coversKeys
      try txn.withCursor(collection.databases.index) { cursor in
        var entry = try cursor.first()
        while let page = entry {
          if IndexPageKey.kind(of: page.key) == .ordered {
            let width = page.key.count - IndexPageKey.headerSize - IndexPageKey.rowSize - 1
            var reader = try OrderedPage.Reader(
              pageKey: page.key, value: page.value, width: width, coversKeys: directory.coversKeys)
            var entries: [OrderedPage.Entry] = []
            while let read = try reader.next() { entries.append(read) }
            let ids = entries.map { change($0.id) }
            covering = !ids.contains(nil)
            var writer = OrderedPageWriter(
              segment: IndexPageKey.segment(of: page.key), field: page.key[IndexPageKey.headerSize],
              width: width, coversKeys: covering)
            for (read, id) in zip(entries, ids) { writer.add(read.key, row: read.row + shift, id: id ?? 0) }
            writer.flush()
            rewritten.append((Array(page.key), writer.takePages()))
          }
          entry = try cursor.next()
        }
      }
      for (old, pages) in rewritten {
        try txn.delete(collection.databases.index, old)
        for (key, value) in pages { try txn.put(collection.databases.index, key, value) }
      }
      directory.coversKeys = covering
      try directory.write(collection.name, meta: collection.meta, txn)
    }
  }
}

extension StoredCollection {
  /// Whether this collection's ordered pages cover keys, as `store` sees it now.
  fileprivate func coversKeys(in store: Store) throws -> Bool {
    try store.environment.read { txn in try directory(txn).coversKeys }
  }
}
