import Foundation
import Testing

@testable import LiveLog

/// The brute-force model of a store: a dictionary and an insertion order.
struct ModelStore {
  var records: [Int64: Repository] = [:]
  var order: [Int64] = []
  var version: UInt64 = 0

  /// Whether the collection exists: the first batch creates it, with a schema event.
  var created = false

  /// Applies one batch the way the store promises to; returns the expected summary.
  mutating func apply(_ mutations: [Mutation]) -> CommitSummary {
    if !created && !mutations.isEmpty {
      created = true
      version += 1
    }
    var last: [Int64: Int] = [:]
    for (index, mutation) in mutations.enumerated() { last[mutation.id] = index }
    var summary = CommitSummary()
    for (index, mutation) in mutations.enumerated() where last[mutation.id] == index {
      switch mutation.repository {
      case .some(let repository):
        if let stored = records[repository.id] {
          if stored == repository {
            summary.unchanged += 1
          } else {
            summary.updated += 1
            records[repository.id] = repository
          }
        } else {
          summary.inserted += 1
          records[repository.id] = repository
          order.append(repository.id)
        }
      case .none:
        let id = mutation.id
        if records.removeValue(forKey: id) != nil {
          summary.deleted += 1
          order.removeAll { $0 == id }
        } else {
          summary.unchanged += 1
        }
      }
    }
    if summary.events > 0 {
      summary.firstLSN = version + 1
      version += UInt64(summary.events)
      summary.lastLSN = version
      summary.commits = 1
    }
    return summary
  }
}

@Suite struct StoreTests {
  static let pool: [Repository] = Array(EventCodecTests.repositories.prefix(300))

  @Test func randomBatchesMatchTheModel() throws {
    let directory = try TemporaryDirectory()
    let store = try Store(directory: directory.child("store"))
    var model = ModelStore()
    var random = SplitMix64(seed: 11)
    let ids = Self.pool.map(\.id)
    for round in 0..<150 {
      var batch: [Mutation] = []
      for _ in 0..<Int.random(in: 0...40, using: &random) {
        let base = Self.pool.randomElement(using: &random) ?? Self.pool[0]
        switch Int.random(in: 0..<10, using: &random) {
        case 0..<5: batch.append(.upsert(base))
        case 5..<7:
          var edited = base
          edited.stargazersCount = Int64.random(in: 0...50, using: &random)
          edited.language = ["Swift", "C", nil].randomElement(using: &random) ?? nil
          batch.append(.upsert(edited))
        default: batch.append(.delete(id: ids.randomElement(using: &random) ?? 0))
        }
      }
      let expected = model.apply(batch)
      let summary = try store.write(batch)
      #expect(summary == expected, "round \(round)")
      #expect(try store.version() == model.version)
    }
    let all = try store.allRepositories()
    #expect(all.map(\.id) == model.order)
    #expect(all.allSatisfy { model.records[$0.id] == $0 })
    #expect(try store.count() == model.records.count)
    // Every event is in the log, contiguous from 1, and replaying it gives the same state.
    var replayed = ModelStore()
    var events = 0
    var batch: [Mutation] = []
    var currentVersion: [Int64: UInt64] = [:]
    try store.forEachEvent { event in
      events += 1
      #expect(event.lsn == UInt64(events))
      // The first event creates the collection.
      guard let mutation = event.mutation else {
        #expect(event.lsn == 1)
        replayed.created = true
        replayed.version += 1
        return true
      }
      // Each event names the version it replaces.
      #expect(event.previousLSN == currentVersion[event.id])
      if mutation.isDelete {
        currentVersion[event.id] = nil
      } else {
        currentVersion[event.id] = event.lsn
      }
      batch.append(mutation)
      if event.endsCommit {
        _ = replayed.apply(batch)
        batch = []
      }
      return true
    }
    #expect(batch.isEmpty)
    #expect(UInt64(events) == model.version)
    #expect(replayed.records == model.records)
    #expect(replayed.order == model.order)
  }

  @Test func identicalUpsertsWriteNoEventAndReinsertsGoLast() throws {
    let directory = try TemporaryDirectory()
    let store = try Store(directory: directory.child("store"))
    let first = Array(Self.pool.prefix(3))
    #expect(try store.write(first.map(Mutation.upsert)).inserted == 3)
    let again = try store.write(first.map(Mutation.upsert))
    #expect(again.unchanged == 3 && again.lastLSN == nil)
    // One schema event, then three upserts.
    #expect(try store.version() == 4)
    _ = try store.write([.delete(id: first[0].id)])
    _ = try store.write([.upsert(first[0])])
    #expect(try store.allRepositories().map(\.id) == [first[1].id, first[2].id, first[0].id])
  }

  /// A batch keeps the last mutation of each key of each collection: one key in two collections
  /// is two records, each with its own last mutation (a batch of one collection is told apart by
  /// keys alone).
  @Test func oneKeyInTwoCollectionsOfABatchIsTwoRecords() throws {
    let directory = try TemporaryDirectory()
    let store = try Store(directory: directory.child("store"))
    let things = GeneratedCollection.schema
    let others = CollectionSchema(name: "others", primaryKey: "key", fields: things.fields)
    let records = GeneratedCollection.records(count: 2, seed: 96)
    var later = records[1]
    later[0] = records[0][0]
    let first = try store.write([
      .upsert(RecordValues(schema: things, values: records[0])),
      .upsert(RecordValues(schema: others, values: records[0])),
      .upsert(RecordValues(schema: things, values: later)),
    ])
    #expect(first.inserted == 2)
    let key = try #require(PrimaryKey(records[0][0]))
    let second = try store.write([
      .delete(from: others, key: key), .upsert(RecordValues(schema: things, values: later)),
    ])
    #expect(second.deleted == 1 && second.unchanged == 1)
    #expect(try store.count(in: "things") == 1 && store.count(in: "others") == 0)
  }

  @Test func realAPIFilesIngestToTheirDistinctCount() throws {
    let directory = try TemporaryDirectory()
    let store = try Store(directory: directory.child("store"))
    for path in Fixtures.apiRepoFiles {
      try store.write(try RecordFile(path: path).mutations())
    }
    #expect(try store.count() == 3_965)
  }

  @Test func aWriteThatFailsLeavesNothingBehind() throws {
    let directory = try TemporaryDirectory()
    var options = StoreOptions()
    options.mapSize = 1 << 20
    options.maximumMapSize = 2 << 20
    let store = try Store(directory: directory.child("store"), options: options)
    _ = try store.write(Self.pool.prefix(10).map(Mutation.upsert))
    // 3,000 records with long descriptions need more than 2 MiB.
    let big = (0..<3_000).map { index -> Mutation in
      var repository = Repository(id: 1_000_000 + Int64(index), fullName: "big/\(index)")
      repository.description = String(repeating: "long text ", count: 100)
      return .upsert(repository)
    }
    #expect(throws: (any Error).self) { try store.write(big) }
    #expect(try store.version() == 11)
    #expect(try store.count() == 10)
    // Still writable.
    #expect(try store.write([.delete(id: Self.pool[0].id)]).deleted == 1)
  }
}

@Suite struct StoreDirectoryTests {
  @Test func refusesADirectoryThatIsNotAStoreAndChangesNothing() throws {
    let directory = try TemporaryDirectory()
    let path = directory.child("photos")
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    try Data("not a store".utf8).write(to: URL(fileURLWithPath: path + "/holiday.jpg"))
    #expect(throws: StoreError.self) { try Store(directory: path) }
    #expect(try FileManager.default.contentsOfDirectory(atPath: path) == ["holiday.jpg"])
  }

  @Test func refusesANewerFormatAndChangesNothing() throws {
    let directory = try TemporaryDirectory()
    let path = directory.child("store")
    _ = try Store(directory: path)
    try Data("LiveLog store\nformat 99\n".utf8).write(to: URL(fileURLWithPath: path + "/LIVELOG"))
    let before =
      try FileManager.default.attributesOfItem(atPath: path + "/data.mdb")[.modificationDate] as? Date
    do {
      _ = try Store(directory: path)
      Issue.record("a newer format was opened")
    } catch let error as StoreError {
      #expect(error == .unsupportedFormat(path: path, found: 99, supported: StoreDirectory.currentFormat))
    }
    let after =
      try FileManager.default.attributesOfItem(atPath: path + "/data.mdb")[.modificationDate] as? Date
    #expect(before == after)
  }

  @Test func readOnlyStoresRefuseWrites() throws {
    let directory = try TemporaryDirectory()
    let path = directory.child("store")
    _ = try Store(directory: path).write([.upsert(Repository(id: 1, fullName: "a/b"))])
    var options = StoreOptions()
    options.readOnly = true
    let store = try Store(directory: path, options: options)
    #expect(try store.count() == 1)
    #expect(throws: StoreError.readOnly(path: path)) { try store.write([.delete(id: 1)]) }
  }
}
