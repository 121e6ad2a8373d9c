import Foundation
import LMDB
import Testing

@testable import LiveLog

/// As-of queries served from checkpoints, against the reference evaluator over the test's own
/// model of every version; and checkpoints as derived data: equal in a store, its replay and a
/// store that received the same events in other commits, checked by `verify`, rebuilt when missing.
@Suite struct CheckpointTests {
  static let interval: UInt64 = 7
  static let schema = GeneratedCollection.schema
  /// `schema` with one more field, which the history adds part way: records written before it
  /// hold one slot fewer.
  static let evolved = CollectionSchema(
    name: schema.name, primaryKey: "key",
    fields: schema.fields + [Field(position: 0, name: "extra", type: .integer, indexes: .ordered)])

  /// A store's options for these tests: no fsync, checkpoints every `interval` events.
  static func options(interval: UInt64 = Self.interval) -> StoreOptions {
    var options = StoreOptions()
    options.durability = .noSync
    options.checkpointInterval = interval
    return options
  }

  /// The records of `things` at one version, in row order, each with the evolved schema's slots.
  struct Model {
    var order: [String] = []
    var records: [String: [FieldValue]] = [:]

    func answer(_ query: Query) -> [PrimaryKey] {
      ReferenceEvaluator.answer(query, order.map { records[$0] ?? [] }).map { .string(order[$0]) }
    }
  }

  /// A history of small commits — inserts, updates of one field or of several, deletes and
  /// re-inserts, a schema change, and commits of another collection in between — and the model
  /// after each commit, by the LSN that ends it.
  static func history(seed: UInt64, commits: Int, options: StoreOptions, in directory: String) throws
    -> (Store, [UInt64: Model], [[FieldValue]])
  {
    let store = try Store(directory: directory, options: options)
    try store.createCollection(schema)
    var random = SplitMix64(seed: seed)
    let pool = GeneratedCollection.records(count: 60, seed: seed).map { $0 + [.null] }
    let repositories = Array(QueryFixture.shared.repositories.prefix(30))
    var model = Model()
    var models: [UInt64: Model] = [0: model]
    var evolvedYet = false
    for commit in 0..<commits {
      if commit == commits / 2 { evolvedYet = true }
      let schema = evolvedYet ? evolved : Self.schema
      var batch: [Mutation] = []
      var keys: Set<String> = []
      // Most commits hold one event, so that most LSNs are versions of the model; the others
      // hold several, so that commits straddle checkpoints too.
      let size = Int.random(in: 0..<4, using: &random) == 0 ? Int.random(in: 2...4, using: &random) : 1
      if size > 1 {
        // Another collection's events between the ones the queries read.
        for var repository in repositories.shuffled(using: &random).prefix(
          Int.random(in: 1...3, using: &random))
        {
          repository.stargazersCount = Int64.random(in: 0...1_000_000, using: &random)
          batch.append(.upsert(repository))
        }
      }
      for _ in 0..<max(1, size - batch.count) {
        guard var values = pool.randomElement(using: &random), case .string(let key) = values[0],
          keys.insert(key).inserted
        else { continue }
        if let stored = model.records[key] {
          switch Int.random(in: 0..<6, using: &random) {
          case 0:
            batch.append(.delete(from: schema, key: .string(key)))
            model.records[key] = nil
            model.order.removeAll { $0 == key }
            continue
          case 1, 2:
            // One field, most often one no query of a given kind reads.
            values = stored
            let other = pool.randomElement(using: &random) ?? stored
            let slot = Int.random(in: 1..<Self.schema.slotCount, using: &random)
            values[slot] = other[slot]
          default:
            break
          }
        } else {
          model.order.append(key)
        }
        if evolvedYet { values[values.count - 1] = .integer(Int64.random(in: 0...5, using: &random)) }
        batch.append(
          .upsert(RecordValues(schema: schema, values: evolvedYet ? values : Array(values.dropLast()))))
        model.records[key] = values
      }
      try store.write(batch)
      models[try store.version()] = model
    }
    return (store, models, pool)
  }

  @Test(arguments: [UInt64(1), 2])
  func asOfQueriesFromCheckpointsEqualTheModelAtEveryVersion(seed: UInt64) throws {
    let directory = try TemporaryDirectory()
    let options = Self.options()
    let (store, models, pool) = try Self.history(
      seed: seed, commits: 120, options: options, in: directory.child("store"))
    let version = try store.version()
    let versions = models.keys.sorted()
    // Most commits are of one event, so a third of the checkpoints at least have versions at,
    // just before and just after them.
    let checkpoints = Array(stride(from: Self.interval, to: version, by: Int(Self.interval)))
    let surrounded = checkpoints.filter { checkpoint in
      [checkpoint - 1, checkpoint, checkpoint + 1].allSatisfy { models[$0] != nil }
    }
    #expect(surrounded.count * 3 >= checkpoints.count, "\(surrounded.count) of \(checkpoints.count)")
    #expect(try store.environment.read { try store.checkpoints?.header($0) }?.through == version)
    var random = SplitMix64(seed: seed &+ 100)
    var generator = PredicateGenerator(schema: Self.schema, records: pool.map { Array($0.dropLast()) })
    let queries =
      (0..<6).map { _ in generator.query(using: &random) } + [
        try Query(parsing: "title CONTAINS[c] 'a'", for: Self.schema),
        try Query(parsing: "count > 3 SORT(score DESC) LIMIT(5)", for: Self.schema),
        try Query(parsing: "TRUEPREDICATE SORT(count ASC, title DESC) LIMIT(3)", for: Self.schema),
      ]
    for lsn in versions {
      guard let model = models[lsn] else { continue }
      for query in queries {
        let results = try store.results(in: Self.schema.name, query, asOf: lsn)
        let keys = try results.keys()
        #expect(keys == model.answer(query), "as of \(lsn) of \(version): \(query.text)")
        guard keys == model.answer(query) else { return }
        // The records read are those of then, field by field.
        for position in results.indices.prefix(3) {
          let record = try results.record(at: position)
          guard case .string(let key)? = record.primaryKey.map(\.fieldValue) else { continue }
          for field in Self.schema.fields {
            #expect(
              record.values[field.position] == model.records[key]?[field.position],
              "as of \(lsn): \(key).\(field.name)")
          }
        }
      }
    }
  }

  @Test func aStoreItsReplayAndOtherCommitsOfTheSameEventsHoldTheSameCheckpoints() throws {
    let directory = try TemporaryDirectory()
    let options = Self.options()
    let (store, _, _) = try Self.history(seed: 3, commits: 80, options: options, in: directory.child("store"))
    // Replays build with the source's interval, whatever their own options say.
    let replayed = try store.replay(into: directory.child("replay"))
    #expect(try replayed.firstDifference(from: store) == nil)
    let digest = try store.digest().databases[StoreLayout.checkpoints]
    #expect(digest == (try replayed.digest().databases[StoreLayout.checkpoints]))
    #expect((digest?.entries ?? 0) > 20)
    // The same events in other transactions: one per event, as a follower might apply them.
    var events: [(lsn: UInt64, bytes: [UInt8])] = []
    try store.environment.read { txn in
      try store.log.forEachRaw(from: 1, through: try store.log.lastLSN(txn), txn) { lsn, bytes in
        events.append((lsn, Array(bytes)))
        return true
      }
    }
    let regrouped = try Store(directory: directory.child("regrouped"), options: options)
    for event in events { try regrouped.appendRawEvents([event]) }
    #expect(try regrouped.digest().databases[StoreLayout.checkpoints] == digest)
    // And a replay at a version between two checkpoints.
    let prefix = try store.replay(into: directory.child("prefix"), through: 45)
    let regroupedPrefix = try Store(directory: directory.child("regrouped-prefix"), options: options)
    try regroupedPrefix.appendRawEvents(Array(events.prefix(45)))
    #expect(
      try prefix.digest().databases[StoreLayout.checkpoints]
        == regroupedPrefix.digest().databases[StoreLayout.checkpoints])
  }

  /// A replay summarizes the whole log in memory and appends the entries in key order
  /// (`Checkpoints.Summary`); the store put them commit by commit where their keys fall. Both
  /// must hold the same entries, whatever the interval: one event per interval, a few, or many,
  /// where one row's slot changes more than once in an interval.
  @Test(arguments: [(UInt64(11), UInt64(1)), (12, 3), (13, 7), (14, 40)])
  func aSummaryInMemoryHoldsTheEntriesCommitsPut(seed: UInt64, interval: UInt64) throws {
    let directory = try TemporaryDirectory()
    let options = Self.options(interval: interval)
    let (store, _, _) = try Self.history(
      seed: seed, commits: 120, options: options, in: directory.child("store"))
    let replayed = try store.replay(into: directory.child("replay"))
    let entries = { (store: Store) throws -> [[UInt8]: [UInt8]] in
      guard let checkpoints = store.checkpoints else { return [:] }
      return try store.environment.read { txn in
        var entries: [[UInt8]: [UInt8]] = [:]
        try txn.withCursor(checkpoints.database) { cursor in
          var entry = try cursor.first()
          while let found = entry {
            entries[Array(found.key)] = Array(found.value)
            entry = try cursor.next()
          }
        }
        return entries
      }
    }
    let expected = try entries(store)
    #expect(expected.count > 50)
    #expect(try entries(replayed) == expected)
  }

  /// Checkpoints whose header does not read, or that reach past the log's end, are derived data:
  /// a writable open empties them and summarizes the log again, a run of events at a time.
  @Test(arguments: [false, true])
  func aWritableOpenSummarizesAgainCheckpointsThatDoNotRead(pastTheEnd: Bool) throws {
    let directory = try TemporaryDirectory()
    let options = Self.options()
    let path = directory.child("store")
    var (store, _, _) = try Self.history(seed: 7, commits: 60, options: options, in: path)
    let expected = try store.digest().databases[StoreLayout.checkpoints]
    let checkpoints = try #require(store.checkpoints)
    try store.environment.write { txn in
      if pastTheEnd {
        try checkpoints.setHeader(Checkpoints.Header(interval: Self.interval, through: 1_000_000), txn)
      } else {
        try txn.put(checkpoints.database, Checkpoints.headerKey, [9, 9])
      }
      // An entry no event makes, which the new summary must not keep.
      try txn.put(
        checkpoints.database, Checkpoints.createdKey(collection: 99, interval: 0), [1, 0, 0, 0, 0, 0, 0, 0])
    }
    #expect(try store.digest().databases[StoreLayout.checkpoints] != expected)
    store = try Store(directory: path, options: options)
    #expect(try store.digest().databases[StoreLayout.checkpoints] == expected)
  }

  @Test func verifyNamesADamagedCheckpoint() throws {
    let directory = try TemporaryDirectory()
    let options = Self.options()
    let (store, _, _) = try Self.history(seed: 4, commits: 60, options: options, in: directory.child("store"))
    // A schema event last: the checkpoints reach it too, as the replay's do.
    try store.createCollection(
      CollectionSchema(
        name: "extras", primaryKey: "key",
        fields: [Field(position: 0, name: "key", type: .string, isOptional: false)]))
    #expect(try store.verify(scratchParent: directory.path).passed)
    guard let checkpoints = store.checkpoints else {
      Issue.record("a writable store has checkpoints")
      return
    }
    // One changed-field entry goes missing, as a lost page would leave it.
    try store.environment.write { txn in
      try txn.withCursor(checkpoints.database) { cursor in
        let changed = Checkpoints.Tag.changed.rawValue
        if let found = try cursor.seek(atLeast: [changed]), found.key.first == changed {
          try cursor.deleteCurrent(in: txn)
        }
      }
    }
    let report = try store.verify(scratchParent: directory.path)
    #expect(report.difference?.database == StoreLayout.checkpoints)
  }

  @Test func aStoreWithoutCheckpointsAnswersFromTheLogAndGetsThemOnItsNextWritableOpen() throws {
    let directory = try TemporaryDirectory()
    let options = Self.options()
    let path = directory.child("store")
    var (store, models, pool) = try Self.history(seed: 5, commits: 60, options: options, in: path)
    let expected = try store.digest()
    // As a store made before checkpoints: the database is gone.
    if let checkpoints = store.checkpoints {
      try store.environment.write { txn in try txn.drop(checkpoints.database) }
    }
    store = try Store(
      directory: path,
      options: {
        var o = options
        o.readOnly = true
        return o
      }())
    #expect(store.checkpoints == nil)
    var generator = PredicateGenerator(schema: Self.schema, records: pool.map { Array($0.dropLast()) })
    var random = SplitMix64(seed: 6)
    for _ in 0..<10 {
      let query = generator.query(using: &random)
      let lsn = models.keys.randomElement(using: &random) ?? 0
      #expect(try store.results(in: Self.schema.name, query, asOf: lsn).keys() == models[lsn]?.answer(query))
    }
    // The first writable open summarizes the whole log: the same checkpoints as before.
    store = try Store(directory: path, options: options)
    #expect(try store.digest() == expected)
  }
}
