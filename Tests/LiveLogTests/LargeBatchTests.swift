import Foundation
import Testing

@testable import LiveLog

/// Commits large enough that their records are prepared on every core and that they fold,
/// mixing inserts (which a fold appends straight into the new segment), updates, deletes and
/// keys repeated within the batch, with recent rows from small commits before them; and the
/// error a large batch reports, which must be its first invalid record's, in the batch's order.
@Suite struct LargeBatchTests {
  static let schema = GeneratedCollection.schema

  /// The records a store should hold, in row order: a key takes the next row when it is
  /// inserted (again), and keeps it while it is updated.
  struct Model {
    var values: [PrimaryKey: [FieldValue]] = [:]
    var rows: [PrimaryKey: Int] = [:]
    var nextRow = 0

    /// Applies a batch as a commit does: the last mutation on each key, in their order.
    mutating func apply(_ batch: [(key: PrimaryKey, values: [FieldValue]?)]) {
      var last: [PrimaryKey: Int] = [:]
      for (index, mutation) in batch.enumerated() { last[mutation.key] = index }
      for (index, mutation) in batch.enumerated() where last[mutation.key] == index {
        if let new = mutation.values {
          if values[mutation.key] == nil {
            rows[mutation.key] = nextRow
            nextRow += 1
          }
          values[mutation.key] = new
        } else {
          values[mutation.key] = nil
        }
      }
    }

    /// The keys matching `query`, as the store lists them.
    func expected(_ query: Query) -> [PrimaryKey] {
      let ordered = values.sorted { (rows[$0.key] ?? 0) < (rows[$1.key] ?? 0) }.map(\.value)
      return GeneratedCollection.bruteForce(query, ordered)
    }
  }

  @Test func largeMixedCommitsAgreeWithBruteForce() throws {
    let directory = try TemporaryDirectory()
    var random = SplitMix64(seed: 91)
    let pool = GeneratedCollection.records(count: 8_000, seed: 92)
    var model = Model()
    let first = Array(pool.prefix(1_500))
    let store = try GeneratedCollection.store(directory, records: first)
    model.apply(first.compactMap { values in PrimaryKey(values[0]).map { ($0, values) } })
    var generator = PredicateGenerator(schema: Self.schema, records: pool)
    var next = 1_500
    for round in 0..<4 {
      // A small commit first, whose rows the large one folds; then a large one. The last round's
      // large commit inserts only, after the small one's inserts.
      for size in [Int.random(in: 20...200, using: &random), Int.random(in: 1_100...2_500, using: &random)] {
        var batch: [Mutation] = []
        var changes: [(key: PrimaryKey, values: [FieldValue]?)] = []
        let insertsOnly = round == 3 && size > 256
        for _ in 0..<size {
          let choice = insertsOnly ? 0 : Int.random(in: 0..<10, using: &random)
          var values: [FieldValue]?
          if choice < 4, next < pool.count {
            // A new key.
            values = pool[next]
            next += 1
          } else if choice < 8 {
            // A key stored, deleted or written earlier in this batch, with new values.
            let index = Int.random(in: 0..<next, using: &random)
            var drawn = GeneratedCollection.record(index, &random)
            drawn[0] = pool[index][0]
            values = drawn
          }
          if let values, let key = PrimaryKey(values[0]) {
            batch.append(.upsert(RecordValues(schema: Self.schema, values: values)))
            changes.append((key, values))
          } else if values == nil, let key = PrimaryKey(pool[Int.random(in: 0..<next, using: &random)][0]) {
            batch.append(.delete(from: Self.schema, key: key))
            changes.append((key, nil))
          }
        }
        let summary = try store.write(batch)
        if insertsOnly { #expect(summary.inserted == batch.count, "an insert of new keys alone") }
        model.apply(changes)
        for _ in 0..<10 {
          let query = generator.query(using: &random)
          let actual = try store.results(in: "things", query).keys()
          let expected = model.expected(query)
          #expect(actual == expected, "round \(round), a commit of \(size): \(query.text)")
          if actual != expected { return }
        }
        #expect(try store.count(in: "things") == model.values.count)
      }
    }
    let report = try store.verify()
    #expect(report.passed, "\(report)")
  }

  @Test func aLargeBatchReportsItsFirstInvalidRecord() throws {
    let directory = try TemporaryDirectory()
    _ = try Self.writeTwoInvalidRecords(among: 3_000, seed: 93, title: 1_200, key: 2_800, directory)
  }

  /// The same in a batch small enough to be filed as recent rows, whose index entries another
  /// thread starts on before the records are checked: it skips the bad ones, the commit throws
  /// and writes nothing, and the next commit of the good records files them, as a replay does.
  @Test func aSmallBatchReportsItsFirstInvalidRecordAndWritesNothing() throws {
    let directory = try TemporaryDirectory()
    let (store, records) = try Self.writeTwoInvalidRecords(among: 60, seed: 94, title: 20, key: 50, directory)
    try store.write(records.map { .upsert(RecordValues(schema: Self.schema, values: $0)) })
    #expect(try store.count(in: "things") == 60)
    let collection = try store.environment.read {
      try store.catalog.state(in: $0)?.collection(named: "things")
    }
    let recent = try collection.map { collection in
      try store.environment.read { try $0.statistics(collection.databases.recent).entries }
    }
    #expect(recent == 60)
    let rebuilt = try store.replay(into: directory.child("rebuilt"))
    #expect(try store.firstDifference(from: rebuilt) == nil)
  }

  /// Writes `count` generated records to a new store in one batch, with a title of the wrong
  /// type at `title` and no key at `key` (the later one, in an earlier field): the error names
  /// the earlier record's field, and nothing is written. The store and the good records.
  static func writeTwoInvalidRecords(
    among count: Int, seed: UInt64, title: Int, key: Int, _ directory: TemporaryDirectory
  ) throws -> (Store, [[FieldValue]]) {
    let records = GeneratedCollection.records(count: count, seed: seed)
    let store = try GeneratedCollection.store(directory, records: [])
    let version = try store.version()
    var batch = records.map { Mutation.upsert(RecordValues(schema: Self.schema, values: $0)) }
    var badTitle = records[title]
    badTitle[1] = .integer(7)
    batch[title] = .upsert(RecordValues(schema: Self.schema, values: badTitle))
    var badKey = records[key]
    badKey[0] = .null
    batch[key] = .upsert(RecordValues(schema: Self.schema, values: badKey))
    do {
      try store.write(batch)
      Issue.record("a batch with invalid records was written")
    } catch StoreError.invalidRecord(let collection, let field, _) {
      #expect(collection == "things")
      #expect(field == "title")
    }
    #expect(try store.version() == version)
    #expect(try store.count(in: "things") == 0)
    return (store, records)
  }
}
