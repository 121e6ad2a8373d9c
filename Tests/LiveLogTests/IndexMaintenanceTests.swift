import Foundation
import Testing

@testable import LiveLog

/// A fold edits only the index entries of the fields a change touched; whatever path a change
/// took (the recent rows, a fold, a large commit), the indexes must hold what a fresh rebuild of
/// the same log (a replay) holds.
@Suite struct IndexMaintenanceTests {
  static let schema = GeneratedCollection.schema

  /// An update of one ordered field files that field's ordered entry again and nothing else: no
  /// trigram, no equality term, no other field's entry.
  @Test func anUpdateOfOneOrderedFieldTouchesOnlyItsOrderedEntry() throws {
    let directory = try TemporaryDirectory()
    let pool = GeneratedCollection.records(count: 40, seed: 3)
    let store = try GeneratedCollection.store(directory, records: pool)
    let collection = try store.read { _, state in try #require(state.collection(named: "things")) }
    let count = try #require(collection.schema.field(named: "count"))
    let title = try #require(collection.schema.field(named: "title"))
    var checked = 0
    for old in pool {
      guard case .string = old[title.position] else { continue }
      var new = old
      let stored: Int64 = if case .integer(let number) = old[count.position] { number } else { 0 }
      new[count.position] = .integer(stored + 1)
      let (before, after) = StoredCollection.changedEntries(from: old, to: new, schema: collection.schema)
      #expect(before.trigrams.isEmpty && after.trigrams.isEmpty)
      #expect(before.terms.isEmpty && after.terms.isEmpty)
      #expect(before.ordered.map(\.field) == [UInt8(count.position)])
      #expect(after.ordered.map(\.field) == [UInt8(count.position)])
      #expect(before.ordered != after.ordered)
      // The same record written again changes no entry at all.
      let (same, again) = StoredCollection.changedEntries(from: old, to: old, schema: collection.schema)
      #expect(same == IndexEntries() && again == IndexEntries())
      checked += 1
    }
    #expect(checked > 10)
  }

  /// Text replaced by a canonically equivalent form ("é" precomposed, then as "e" and a combining
  /// accent) is another value to the store: equal as Swift strings, but stored, queried and
  /// indexed by its bytes, so the equality term is filed again and an exact lookup finds it.
  @Test func textReplacedByAnEquivalentFormIsRefiled() throws {
    let directory = try TemporaryDirectory()
    let store = try Store.scratch(in: directory)
    var repository = Repository(id: 1, fullName: "o/r")
    repository.ownerLogin = "R\u{E9}act"
    // Enough other rows that the update is folded into segments, not only kept recent.
    let others = (2...3_000).map { Repository(id: Int64($0), fullName: "o/r\($0)") }
    try store.write(([repository] + others).map(Mutation.upsert))
    repository.ownerLogin = "Re\u{301}act"
    try store.write([.upsert(repository)])
    try store.write((3_001...6_000).map { .upsert(Repository(id: Int64($0), fullName: "o/r\($0)")) })
    for text in ["owner.login == %@", "owner.login BEGINSWITH %@"] {
      #expect(try store.results(try Query(parsing: text, for: Repository.self, "Re\u{301}act")).ids() == [1])
      #expect(try store.results(try Query(parsing: text, for: Repository.self, "R\u{E9}act")).ids() == [])
    }
    #expect(try store.verify(scratchParent: directory.path).passed)
  }

  /// Values and keys compare by their bytes, as the store keeps them, with hashes to match.
  @Test func valuesAndKeysCompareByTheirBytes() {
    let composed = "R\u{E9}act"
    let decomposed = "Re\u{301}act"
    #expect(composed == decomposed)  // one string to Swift
    #expect(FieldValue.string(composed) != .string(decomposed))
    #expect(FieldValue.strings([composed]) != .strings([decomposed]))
    #expect(PrimaryKey.string(composed) != .string(decomposed))
    #expect(Set([FieldValue.string(composed), .string(decomposed), .string(composed)]).count == 2)
    #expect(Set([PrimaryKey.string(composed), .string(decomposed), .string(composed)]).count == 2)
    #expect(FieldValue.strings(["a", "b"]) == .strings(["a", "b"]))
    #expect(FieldValue.string("a") != .strings(["a"]))
  }

  /// Random commits of updates that each change one field (to another value or to nil), beside
  /// inserts, deletes, re-inserts and several changes of one key in a batch: after each stretch of
  /// commits the live store's indexes, records and rows equal those of a replay of its log.
  @Test(arguments: [UInt64(1), 2, 3])
  func singleFieldUpdatesLeaveWhatAReplayBuilds(seed: UInt64) throws {
    let directory = try TemporaryDirectory()
    var random = SplitMix64(seed: seed)
    let pool = GeneratedCollection.records(count: 200, seed: seed &+ 100)
    var current: [Int: [FieldValue]] = [:]
    for index in 0..<120 { current[index] = pool[index] }
    let store = try GeneratedCollection.store(directory, records: Array(pool.prefix(120)))
    let slots = Self.schema.fields.indices.dropFirst()
    for round in 0..<60 {
      var batch: [Mutation] = []
      for _ in 0..<Int.random(in: 1...12, using: &random) {
        let index = Int.random(in: 0..<pool.count, using: &random)
        guard var values = current[index] else {
          // Absent: insert it (new, or again after a delete).
          current[index] = pool[index]
          batch.append(.upsert(RecordValues(schema: Self.schema, values: pool[index])))
          continue
        }
        if Int.random(in: 0..<8, using: &random) == 0, let key = PrimaryKey(values[0]) {
          current[index] = nil
          batch.append(.delete(from: Self.schema, key: key))
          continue
        }
        // One field takes another record's value for it, or nil.
        let slot = slots.randomElement(using: &random) ?? 1
        let donor = GeneratedCollection.record(index, &random)
        values[slot] = Int.random(in: 0..<4, using: &random) == 0 ? .null : donor[slot]
        current[index] = values
        batch.append(.upsert(RecordValues(schema: Self.schema, values: values)))
      }
      try store.write(batch)
      if round % 15 == 14 {
        let rebuilt = try store.replay(into: directory.child("replay-\(round)"))
        let difference = try store.firstDifference(from: rebuilt)
        #expect(difference == nil, "after round \(round): \(difference.map(String.init(describing:)) ?? "")")
        if difference != nil { return }
      }
    }
    // And the records are those the test kept, so the updates did take effect.
    let keys = try store.results(
      in: "things", Query(parsing: "TRUEPREDICATE", for: Self.schema, arguments: [])
    ).keys()
    #expect(Set(keys) == Set(current.values.compactMap { PrimaryKey($0[0]) }))
  }
}
