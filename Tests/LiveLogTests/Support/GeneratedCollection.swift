import Foundation

@testable import LiveLog

/// A collection of every field type, declared at run time, with records drawn from a seed: what
/// the differential tests run on besides `Repository`. Text mixes ASCII with accents, case pairs
/// that fold unusually and other scripts; numbers, dates (to the nanosecond) and lists are often
/// absent.
struct GeneratedCollection {
  static let schema = CollectionSchema(
    name: "things", primaryKey: "key",
    fields: [
      Field(position: 0, name: "key", type: .string, isOptional: false),
      Field(position: 0, name: "title", type: .string, indexes: [.substring, .equality]),
      Field(position: 0, name: "kind", type: .string, indexes: .equality),
      Field(position: 0, name: "note", type: .string),
      Field(position: 0, name: "count", type: .integer, indexes: .ordered),
      Field(position: 0, name: "weight", type: .integer),
      Field(position: 0, name: "score", type: .double, indexes: .ordered),
      Field(position: 0, name: "ratio", type: .double),
      Field(position: 0, name: "flag", type: .bool, indexes: .equality),
      Field(position: 0, name: "seen_at", type: .date, indexes: .ordered),
      Field(position: 0, name: "made_at", type: .date),
      Field(position: 0, name: "tags", type: .stringList, indexes: .equality),
      Field(position: 0, name: "levels", type: .integerList, indexes: .equality),
      Field(position: 0, name: "owner.name", type: .string, indexes: .substring),
    ])

  static let pieces = [
    "anim", "Anim", "ÁNIM", "swift", "Swift", "straße", "STRASSE", "ſtar", "ΣΟΦΙΑ", "σοφία", "école",
    "e\u{301}cole",
    "日本語", "🙂", "a", "ab", "kit", "-", " ", "zoë", "Zoe", "İstanbul",
  ]

  /// `count` records (values in the schema's slot order).
  static func records(count: Int, seed: UInt64) -> [[FieldValue]] {
    var random = SplitMix64(seed: seed)
    return (0..<count).map { index in record(index, &random) }
  }

  static func record(_ index: Int, _ random: inout SplitMix64) -> [FieldValue] {
    func maybe(_ value: FieldValue) -> FieldValue {
      Int.random(in: 0..<4, using: &random) == 0 ? .null : value
    }
    func text(_ parts: Int) -> String {
      (0..<parts).map { _ in pieces.randomElement(using: &random) ?? "x" }.joined()
    }
    let seconds = Int64.random(in: 1_500_000_000...1_500_000_400, using: &random)
    return [
      .string("k\(index)-\(text(1))"),
      maybe(.string(text(Int.random(in: 1...3, using: &random)))),
      maybe(.string(["alpha", "beta", "Beta", "gamma"].randomElement(using: &random) ?? "alpha")),
      maybe(.string(text(2))),
      maybe(.integer(Int64.random(in: -20...200, using: &random))),
      maybe(.integer(Int64.random(in: 0...9, using: &random))),
      maybe(.double([-1.5, 0, 0.25, 2.5, 10, 99.75, -0.0].randomElement(using: &random) ?? 1)),
      maybe(.double(Double(Int.random(in: 0...40, using: &random)) / 8)),
      maybe(.bool(Bool.random(using: &random))),
      maybe(
        .date(
          Timestamp(
            secondsSince1970: seconds, nanoseconds: Int32.random(in: 0...3, using: &random) * 250_000_000))),
      maybe(.date(Timestamp(secondsSince1970: seconds))),
      maybe(.strings((0..<Int.random(in: 0...3, using: &random)).map { _ in text(1) })),
      maybe(
        .integers(
          (0..<Int.random(in: 0...3, using: &random)).map { _ in Int64.random(in: 0...9, using: &random) })),
      maybe(.string(text(1))),
    ]
  }

  /// A store holding the collection and `records`, written in batches.
  static func store(_ directory: TemporaryDirectory, records: [[FieldValue]]) throws -> Store {
    var options = StoreOptions()
    options.durability = .noSync
    let store = try Store(directory: directory.child("things"), options: options)
    try store.createCollection(schema)
    for start in stride(from: 0, to: records.count, by: 500) {
      try store.write(
        records[start..<min(start + 500, records.count)].map {
          .upsert(RecordValues(schema: schema, values: $0))
        })
    }
    return store
  }

  /// The brute-force answer over `records` (in insertion order), from the reference evaluator.
  /// Returns the keys.
  static func bruteForce(_ query: Query, _ records: [[FieldValue]]) -> [PrimaryKey] {
    ReferenceEvaluator.answer(query, records).compactMap { PrimaryKey(records[$0][0]) }
  }
}
