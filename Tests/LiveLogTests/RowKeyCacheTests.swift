import Dispatch
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import LiveLog

/// The row key cache: results' ids read from memory once the row table has served many must be
/// the ids the row table gives, at every version, through small commits (recent rows), folds,
/// deletes and re-inserts (a new row for an old key). Held to a model that shares no code with the
/// store: a dictionary of ids to languages and an insertion counter per id.
@Suite struct RowKeyCacheTests {
  /// What the test believes the collection holds at one version: each id's language and its
  /// place in insertion order (a re-insert after a delete goes last, as its new row does).
  struct Model {
    var language: [Int64: String] = [:]
    var place: [Int64: Int] = [:]
    var nextPlace = 0

    mutating func upsert(_ id: Int64, language value: String) {
      if language[id] == nil {
        place[id] = nextPlace
        nextPlace += 1
      }
      language[id] = value
    }

    mutating func delete(_ id: Int64) {
      language[id] = nil
      place[id] = nil
    }

    /// The ids of `value`'s repositories (all, when nil) in insertion order: the results' order.
    func ids(language value: String?) -> [Int64] {
      language.filter { value == nil || $0.value == value }.keys.sorted {
        (place[$0] ?? 0) < (place[$1] ?? 0)
      }
    }
  }

  static let languages = ["Swift", "Go", "C"]

  /// A store whose cache builds after `minimumMisses` keys read from the row table (and an eighth
  /// of the rows), or none.
  static func store(in directory: TemporaryDirectory, caches: Bool = true, minimumMisses: Int = 64) throws
    -> Store
  {
    var options = StoreOptions()
    options.durability = .noSync
    options.cachesRowKeys = caches
    options.rowKeyCacheMinimumMisses = minimumMisses
    return try Store(directory: directory.child("store"), options: options)
  }

  /// One random commit: mostly small (recent rows), now and then one large enough to fold; ids far
  /// from their rows, some negative; deletes, and re-inserts of deleted ids.
  static func commit(_ store: Store, _ model: inout Model, _ random: inout SplitMix64) throws {
    let size =
      Int.random(in: 0..<4, using: &random) == 0
      ? Int.random(in: 300...900, using: &random) : Int.random(in: 1...40, using: &random)
    var batch: [Mutation] = []
    var touched = Set<Int64>()
    for _ in 0..<size {
      let id = Int64.random(in: -1_500...1_500, using: &random) * 1_000_003
      guard touched.insert(id).inserted else { continue }
      if model.language[id] != nil && Int.random(in: 0..<5, using: &random) == 0 {
        model.delete(id)
        batch.append(.delete(Repository.self, id: id))
      } else {
        let language = languages[Int.random(in: 0..<languages.count, using: &random)]
        model.upsert(id, language: language)
        var repository = Repository(id: id, fullName: "owner/r\(id)")
        repository.language = language
        batch.append(.upsert(repository))
      }
    }
    try store.write(batch)
  }

  /// The queries every check asks, with the model's answer.
  static func queries(_ model: Model) throws -> [(Query, [Int64])] {
    try ([nil] + languages).map { language in
      (
        try Query(parsing: language.map { "language == '\($0)'" } ?? "TRUEPREDICATE", for: Repository.self),
        model.ids(language: language)
      )
    }
  }

  @Test(arguments: [UInt64(1), 2, 3])
  func idsAgreeWithTheModelAtEveryVersion(seed: UInt64) throws {
    let directory = try TemporaryDirectory()
    let store = try Self.store(in: directory)
    var random = SplitMix64(seed: seed)
    var model = Model()
    var versions: [(UInt64, Model)] = []
    for round in 0..<40 {
      try Self.commit(store, &model, &random)
      let version = try store.version()
      versions.append((version, model))
      // Now, and as of an earlier version: its rows include deleted ones, whose keys the cache
      // may hold.
      let (then, thenModel) = versions[Int.random(in: 0..<versions.count, using: &random)]
      for (results, expected) in [
        try Self.queries(model).map { (try store.results(Repository.self, $0.0), $0.1) },
        try Self.queries(thenModel).map { (try store.results(Repository.self, $0.0).asOf(then), $0.1) },
      ].joined() {
        let ids = try results.ids()
        #expect(ids == expected, "round \(round), \(results.query), as of \(results.version)")
        #expect(try results.keys() == expected.map { PrimaryKey.integer($0) }, "round \(round): keys")
        if ids != expected { return }
      }
    }
    let collection = try store.repositoriesCollection()
    let cached = try #require(store.rowKeys?.keys(of: collection), "the cache was never built")
    #expect(cached.count > 1_000)
  }

  /// Rows the cache does not hold (recent rows, rows folded since its build) come from the row
  /// table, beside those it holds, in one result.
  @Test func aResultMixesCachedAndUncachedRows() throws {
    let directory = try TemporaryDirectory()
    let store = try Self.store(in: directory)
    var model = Model()
    var first: [Mutation] = []
    for id in Int64(1)...2_000 {
      model.upsert(id * 7, language: "Swift")
      var repository = Repository(id: id * 7, fullName: "owner/r\(id)")
      repository.language = "Swift"
      first.append(.upsert(repository))
    }
    try store.write(first)
    let query = try Query(parsing: "language == 'Swift'", for: Repository.self)
    // Enough misses to build the table.
    for _ in 0..<3 {
      #expect(try store.results(Repository.self, query).ids() == model.ids(language: "Swift"))
    }
    let collection = try store.repositoriesCollection()
    let built = try #require(store.rowKeys?.keys(of: collection))
    // A small commit: new rows in the recent rows, an update and a delete of cached ones.
    var repository = Repository(id: -5, fullName: "owner/new")
    repository.language = "Swift"
    var updated = Repository(id: 14, fullName: "owner/r2")
    updated.language = "Swift"
    updated.stargazersCount = 3
    try store.write([.upsert(repository), .upsert(updated), .delete(Repository.self, id: 21)])
    model.upsert(-5, language: "Swift")
    model.delete(21)
    #expect(try store.results(Repository.self, query).ids() == model.ids(language: "Swift"))
    #expect(store.rowKeys?.keys(of: collection) === built, "a small result rebuilt the cache")
  }

  /// With `cachesRowKeys` false no table is built, and ids read as before.
  @Test func turnedOffItBuildsNothing() throws {
    let directory = try TemporaryDirectory()
    let store = try Self.store(in: directory, caches: false, minimumMisses: 1)
    var random = SplitMix64(seed: 9)
    var model = Model()
    for _ in 0..<10 {
      try Self.commit(store, &model, &random)
      for (query, expected) in try Self.queries(model) {
        #expect(try store.results(Repository.self, query).ids() == expected)
      }
    }
    #expect(store.rowKeys == nil)
  }

  /// Readers on other threads while a writer commits: each result's ids are the model's at the
  /// result's version, whichever thread builds the table and whenever.
  @Test func concurrentReadersAgreeWithTheModel() throws {
    final class Readings: Sendable {
      let seen = Mutex<[(version: UInt64, language: String, ids: [Int64])]>([])
      let errors = Mutex<[String]>([])
      let done = Atomic<Bool>(false)
    }
    let directory = try TemporaryDirectory()
    let store = try Self.store(in: directory, minimumMisses: 16)
    var models: [UInt64: Model] = [:]
    var model = Model()
    var random = SplitMix64(seed: 4)
    try Self.commit(store, &model, &random)
    models[try store.version()] = model
    let readings = Readings()
    let readers = DispatchGroup()
    for _ in 0..<3 {
      DispatchQueue.global().async(group: readers) {
        while !readings.done.load(ordering: .acquiring) {
          do {
            for language in Self.languages {
              let query = try Query(parsing: "language == '\(language)'", for: Repository.self)
              let results = try store.results(Repository.self, query)
              let ids = try results.ids()
              readings.seen.withLock { $0.append((results.version, language, ids)) }
            }
          } catch {
            readings.errors.withLock { $0.append("\(error)") }
            return
          }
        }
      }
    }
    // The commits start once the readers read.
    let deadline = Date().addingTimeInterval(30)
    while readings.seen.withLock({ $0.isEmpty }) && readings.errors.withLock({ $0.isEmpty })
      && Date() < deadline
    {
      Thread.sleep(forTimeInterval: 0.001)
    }
    for _ in 0..<30 {
      try Self.commit(store, &model, &random)
      models[try store.version()] = model
    }
    readings.done.store(true, ordering: .releasing)
    readers.wait()
    #expect(readings.errors.withLock { $0 } == [])
    let seen = readings.seen.withLock { $0 }
    #expect(!seen.isEmpty)
    for (version, language, ids) in seen {
      let expected = models[version]?.ids(language: language)
      #expect(ids == expected, "\(language) at version \(version)")
      if ids != expected { return }
    }
    #expect(store.rowKeys?.keys(of: try store.repositoriesCollection()) != nil)
  }
}
