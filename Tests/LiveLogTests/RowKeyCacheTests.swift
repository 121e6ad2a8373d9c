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
  /// A second integer-keyed collection, whose rows are numbered as the repositories' are.
  struct Ticket: Record, Hashable {
    var id: Int64
    var queue: String

    static let schema = Schema<Ticket>("tickets", fields: [.field("queue", \.queue, indexes: .equality)])
  }

  /// A collection keyed by strings, which the cache leaves alone.
  struct Label: Record, Hashable {
    var id: String
    var group: String

    static let schema = Schema<Label>("labels", fields: [.field("group", \.group, indexes: .equality)])
  }

  /// What the test believes the collection holds at one version: each id's language and its
  /// place in insertion order.
  struct Model {
    var language: [Int64: String] = [:]
    var order = InsertionOrder()

    mutating func upsert(_ id: Int64, language value: String) {
      order.insert(id)
      language[id] = value
    }

    mutating func delete(_ id: Int64) {
      language[id] = nil
      order.remove(id)
    }

    /// The ids of `value`'s repositories (all, when nil) in insertion order: the results' order.
    func ids(language value: String?) -> [Int64] {
      language.filter { value == nil || $0.value == value }.keys.sorted(by: order.isBefore)
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
  /// table, beside those it holds, in one result; a small result does not rebuild it.
  @Test func aResultMixesCachedAndUncachedRows() throws {
    let directory = try TemporaryDirectory()
    let store = try Self.store(in: directory)
    var model = Model()
    func swift(_ id: Int64) -> Repository {
      var repository = Repository(id: id, fullName: "owner/r\(id)")
      repository.language = "Swift"
      return repository
    }
    let first = (Int64(1)...2_000).map { $0 * 7 }
    for id in first { model.upsert(id, language: "Swift") }
    try store.write(first.map { .upsert(swift($0)) })
    let query = try Query(parsing: "language == 'Swift'", for: Repository.self)
    // Enough misses to build the table.
    for _ in 0..<3 {
      #expect(try store.results(Repository.self, query).ids() == model.ids(language: "Swift"))
    }
    let collection = try store.repositoriesCollection()
    let built = try #require(store.rowKeys?.keys(of: collection))
    // A small commit: new rows in the recent rows, an update and a delete of cached ones.
    try store.write([.upsert(swift(-5)), .upsert(swift(14)), .delete(Repository.self, id: 21)])
    model.upsert(-5, language: "Swift")
    model.delete(21)
    #expect(try store.results(Repository.self, query).ids() == model.ids(language: "Swift"))
    #expect(store.rowKeys?.keys(of: collection) === built, "a small result rebuilt the cache")
    // A large one folds them, and more, into the row table, past the cached rows.
    let more = (Int64(1)...700).map { -$0 * 11 - 100 }
    for id in more { model.upsert(id, language: "Swift") }
    try store.write(more.map { .upsert(swift($0)) })
    #expect(try store.results(Repository.self, query).ids() == model.ids(language: "Swift"))
  }

  /// Each collection has its own table: two integer-keyed collections whose rows are numbered
  /// alike and whose keys differ never answer with each other's keys; a string-keyed one builds
  /// none.
  @Test func collectionsKeepTheirOwnKeys() throws {
    let directory = try TemporaryDirectory()
    var options = StoreOptions()
    options.durability = .noSync
    options.rowKeyCacheMinimumMisses = 16
    options.recordTypes = [Repository.self, Ticket.self, Label.self]
    let store = try Store(directory: directory.child("store"), options: options)
    let ids = Array(Int64(1)...1_500)
    try store.write(
      ids.map { id in
        var repository = Repository(id: id * 3, fullName: "owner/r\(id)")
        repository.language = "Go"
        return .upsert(repository)
      })
    try store.write(ids.map { .upsert(Ticket(id: -$0, queue: "open")) })
    try store.write(ids.map { .upsert(Label(id: "l\($0)", group: "all")) })
    let repositories = try Query(parsing: "language == 'Go'", for: Repository.self)
    let tickets = try Query(parsing: "queue == 'open'", for: Ticket.self)
    let labels = try Query(parsing: "group == 'all'", for: Label.self)
    for _ in 0..<4 {
      #expect(try store.results(Repository.self, repositories).ids() == ids.map { $0 * 3 })
      #expect(try store.results(Ticket.self, tickets).ids() == ids.map { -$0 })
      #expect(try store.results(Label.self, labels).ids() == ids.map { "l\($0)" })
    }
    let state = try store.read { _, state in state }
    let cache = try #require(store.rowKeys)
    let repositoryKeys = try #require(state.collection(named: "repositories").flatMap(cache.keys(of:)))
    let ticketKeys = try #require(state.collection(named: "tickets").flatMap(cache.keys(of:)))
    #expect(repositoryKeys !== ticketKeys)
    #expect(state.collection(named: "labels").flatMap(cache.keys(of:)) == nil)
  }

  /// A damaged record count or next row neither traps nor makes a build allocate for billions of
  /// rows: reads answer as before, or fail with `corruptState`.
  @Test(arguments: [
    ("count", UInt64.max), ("count", UInt64(1) << 40), ("next", UInt64.max), ("next", UInt64(1) << 40),
  ])
  func damagedCountsNeitherTrapNorAllocate(damaged: String, value: UInt64) throws {
    let directory = try TemporaryDirectory()
    let store = try Self.store(in: directory, minimumMisses: 16)
    var model = Model()
    var random = SplitMix64(seed: 12)
    for _ in 0..<6 { try Self.commit(store, &model, &random) }
    let collection = try store.repositoriesCollection()
    try store.environment.write { txn in
      try txn.put(
        collection.meta, damaged == "count" ? collection.countKey : collection.nextRowKey,
        withUnsafeBytes(of: value) { Array($0) })
    }
    for _ in 0..<4 {
      for (query, expected) in try Self.queries(model) {
        do {
          #expect(try store.results(Repository.self, query).ids() == expected)
        } catch let error as StoreError {
          guard case .corruptState = error else { throw error }
        }
      }
    }
    #expect((store.rowKeys?.keys(of: collection)?.count ?? 0) < 1 << 20)
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
