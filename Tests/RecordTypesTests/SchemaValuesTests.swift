import Foundation
import Testing

@testable import LiveLog

/// A record whose fields sit at every kind of place: a struct nested inline (its properties have
/// offsets in the record), an optional one (reached through its key path).
private struct Placed: Record, Hashable {
  struct Inner: Codable, Sendable, Hashable {
    var count: Int
    var label: String
  }

  var id: Int64
  var flag: Bool
  var inner: Inner
  var optionalInner: Inner?
  var note: String?
  var scores: [Int]

  static let schema = Schema<Placed>(
    "placed",
    fields: [
      .field("flag", \.flag),
      .field("inner.count", \.inner.count, indexes: .ordered),
      .field("inner.label", \.inner.label, indexes: .substring),
      .field("optional_inner.label", \.optionalInner?.label),
      .field("note", \.note, indexes: .equality),
      .field("scores", \.scores),
    ])
}

/// A record that is a class: none of its properties is stored inline in the reference.
private final class Boxed: Record {
  let id: String
  let title: String
  let stars: Int?

  init(id: String, title: String, stars: Int?) {
    self.id = id
    self.title = title
    self.stars = stars
  }

  static let schema = Schema<Boxed>(
    "boxed", fields: [.field("title", \.title, indexes: .substring), .field("stars", \.stars)])
}

/// A record whose `id` is computed from a stored property.
private struct Derived: Record, Hashable {
  var name: String
  var id: String { "derived/" + name }

  static let schema = Schema<Derived>("derived", primaryKey: "key", fields: [.field("name", \.name)])
}

/// A record with a stored property of every Swift type a field may have, each required and
/// optional: the types `FieldLoad` loads in place and those it reads through a closure.
private struct EveryKind: Record, Hashable {
  var id: Int64
  var string: String
  var optionalString: String?
  var int64: Int64
  var optionalInt64: Int64?
  var int: Int
  var optionalInt: Int?
  var bool: Bool
  var optionalBool: Bool?
  var double: Double
  var optionalDouble: Double?
  var timestamp: Timestamp
  var optionalTimestamp: Timestamp?
  var strings: [String]
  var optionalStrings: [String]?
  var int32: Int32
  var optionalInt32: Int32?
  var float: Float
  var uuid: UUID
  var optionalDate: Date?
  var integers: [Int64]
  var optionalInts: [Int]?

  static let schema = Schema<EveryKind>(
    "every_kind",
    fields: [
      .field("string", \.string), .field("optional_string", \.optionalString),
      .field("int64", \.int64), .field("optional_int64", \.optionalInt64),
      .field("int", \.int), .field("optional_int", \.optionalInt),
      .field("bool", \.bool), .field("optional_bool", \.optionalBool),
      .field("double", \.double), .field("optional_double", \.optionalDouble),
      .field("timestamp", \.timestamp), .field("optional_timestamp", \.optionalTimestamp),
      .field("strings", \.strings), .field("optional_strings", \.optionalStrings),
      .field("int32", \.int32), .field("optional_int32", \.optionalInt32),
      .field("float", \.float), .field("uuid", \.uuid), .field("optional_date", \.optionalDate),
      .field("integers", \.integers), .field("optional_ints", \.optionalInts),
    ])

  /// Random values, each optional one `nil` about a third of the time; strings both short
  /// (stored in the string itself) and long (on the heap).
  static func random(_ id: Int64, using random: inout Generator) -> EveryKind {
    func maybe<T>(_ value: T) -> T? { Int.random(in: 0..<3, using: &random) == 0 ? nil : value }
    func text() -> String {
      String(repeating: "é", count: Int.random(in: 0...3, using: &random)) + "\(id)"
        + String(repeating: "x", count: Int.random(in: 0...20, using: &random))
    }
    let time = Timestamp(
      Date(timeIntervalSince1970: Double(Int.random(in: 0...2_000_000_000, using: &random))))
    return EveryKind(
      id: id, string: text(), optionalString: maybe(text()),
      int64: Int64.random(in: .min ... .max, using: &random),
      optionalInt64: maybe(Int64.random(in: .min ... .max, using: &random)),
      int: Int.random(in: .min ... .max, using: &random),
      optionalInt: maybe(Int.random(in: -5...5, using: &random)),
      bool: Bool.random(using: &random), optionalBool: maybe(Bool.random(using: &random)),
      double: Double.random(in: -1e9...1e9, using: &random), optionalDouble: maybe(Double(id) / 7),
      timestamp: time, optionalTimestamp: maybe(time),
      strings: (0..<Int.random(in: 0...3, using: &random)).map { _ in text() },
      optionalStrings: maybe([text()]), int32: Int32.random(in: .min ... .max, using: &random),
      optionalInt32: maybe(Int32(truncatingIfNeeded: id)), float: Float(id) / 3, uuid: UUID(),
      optionalDate: maybe(Date(timeIntervalSince1970: Double(id))), integers: [id, -id],
      optionalInts: maybe([Int(id)]))
  }
}

/// `Schema.values(of:)` reads each field at its offset in the record where it has one, and
/// through its key path where not: either way it must read what applying the field's key path
/// reads (the oracle: the key path applied through `AnyKeyPath`, which shares nothing with the
/// offsets), for records of the app's own types and the built-in `Repository`.
@Suite struct SchemaValuesTests {
  /// Each declared field of `record`, read by applying its key path.
  private static func keyPathValues<R: Record>(of record: R) -> [FieldValue?] {
    R.schema.declarations.map { field in
      (record[keyPath: field.keyPath as AnyKeyPath] as? any FieldValueConvertible)?.fieldValue
    }
  }

  private static func check<R: Record>(_ record: R) -> Bool {
    R.schema.values(of: record).map(Optional.some) == keyPathValues(of: record)
  }

  @Test func readsWhatTheKeyPathsRead() throws {
    var random = Generator(seed: 3)
    for index in 0..<300 {
      let placed = Placed(
        id: Int64(index), flag: Bool.random(using: &random),
        inner: .init(count: Int.random(in: -9...9, using: &random), label: "label \(index)"),
        optionalInner: Bool.random(using: &random) ? .init(count: index, label: "inner \(index)") : nil,
        note: Bool.random(using: &random) ? "note \(index)" : nil,
        scores: (0..<Int.random(in: 0...3, using: &random)).map { $0 * index })
      #expect(Self.check(placed), "placed \(index)")
      #expect(
        Self.check(Boxed(id: "b\(index)", title: "title \(index)", stars: index % 3 == 0 ? nil : index)))
      #expect(Self.check(Derived(name: "name of a derived record \(index)")))
      #expect(Derived.schema.values(of: Derived(name: "n\(index)")).first == .string("derived/n\(index)"))
      #expect(Self.check(random.bookmark()))
      #expect(Self.check(random.issue(number: Int64(index))))
      var repository = Repository(id: Int64(index), fullName: "owner/name\(index)")
      repository.topics = index % 2 == 0 ? ["a", "b\(index)"] : nil
      repository.stargazersCount = Int64(index * 7)
      repository.isArchived = index % 5 == 0
      #expect(Self.check(repository))
      #expect(Self.check(EveryKind.random(Int64(index), using: &random)), "every kind \(index)")
    }
    // The premises, on the key paths the schemas hold: the nested inline fields are read at
    // offsets; the optional one, the class's and a computed `id` through their key paths.
    func offset<R: Record>(_ schema: Schema<R>, _ field: Int) -> Int? {
      (schema.declarations[field].keyPath as? PartialKeyPath<R>).flatMap { MemoryLayout<R>.offset(of: $0) }
    }
    #expect(offset(Placed.schema, 2) != nil && offset(Placed.schema, 3) != nil)
    #expect(offset(Placed.schema, 4) == nil)
    #expect(offset(Boxed.schema, 1) == nil)
    #expect(offset(Derived.schema, 0) == nil)
    // Every type of `FieldLoad.StoredKind` is loaded in place, the other types through a closure.
    let inPlace = EveryKind.schema.declarations.map { field -> Bool in
      if case .stored = field.load { return true } else { return false }
    }
    #expect(inPlace == [false] + Array(repeating: true, count: 14) + Array(repeating: false, count: 7))
  }

  /// Values read at offsets survive the record they were read from (they are copies, retained):
  /// strings of 16 bytes and more, which live on the heap.
  @Test func valuesOutliveTheirRecord() throws {
    var values: [[FieldValue]] = []
    for index in 0..<100 {
      let placed = Placed(
        id: Int64(index), flag: true,
        inner: .init(count: index, label: String(repeating: "x", count: 16 + index)),
        optionalInner: nil, note: "a note of sixteen bytes or more \(index)", scores: [index])
      values.append(Placed.schema.values(of: placed))
    }
    for (index, row) in values.enumerated() {
      #expect(row[3] == .string(String(repeating: "x", count: 16 + index)))
      #expect(row[5] == .string("a note of sixteen bytes or more \(index)"))
      #expect(row[6] == .integers([Int64(index)]))
    }
  }
}
