import Foundation

/// Finds out how a record type reads itself through `Codable`: which coding paths it decodes, of
/// which types, and which of them are optional. A probe decoder answers every request with a
/// value unique to its coding path; reading each declared field's key path on the instances it
/// builds then tells which coding path the field stands for.
///
/// `Bool` has only two values, so the probe runs once with every flag false and then once per
/// flag with only that one true.
struct RecordProbe {
  /// A value the record type decodes: its coding path, its kind and whether it may be absent.
  struct Leaf {
    var path: [String]
    var kind: LeafKind
    var isOptional: Bool
  }

  enum LeafKind {
    case string, integer, double, bool, date, timestamp, uuid, strings, integers

    var fieldType: FieldType {
      switch self {
      case .string, .uuid: .string
      case .integer: .integer
      case .double: .double
      case .bool: .bool
      case .date, .timestamp: .date
      case .strings: .stringList
      case .integers: .integerList
      }
    }
  }

  /// A request the probe cannot answer, with its coding path.
  struct Failure: Error {
    var path: [String]
    var message: String
  }

  /// The record type's leaves in decoding order, and one instance per run: `instances[0]` with
  /// every flag false, `instances[k]` with only the k-th `Bool` leaf true.
  static func run<R: Decodable>(_ type: R.Type) throws(Failure) -> (leaves: [Leaf], instances: [R]) {
    let first = ProbeState(truePass: nil)
    let base: R
    do {
      base = try R(from: ProbeDecoder(state: first, path: []))
    } catch let failure as Failure {
      throw failure
    } catch {
      throw Failure(path: first.lastPath, message: "\(error)")
    }
    var instances = [base]
    let flags = first.leaves.indices.filter { first.leaves[$0].kind == .bool }
    for pass in flags.indices {
      let state = ProbeState(truePass: pass)
      do {
        instances.append(try R(from: ProbeDecoder(state: state, path: [])))
      } catch {
        throw Failure(path: state.lastPath, message: "\(error)")
      }
    }
    return (first.leaves, instances)
  }

  /// The value the probe gave leaf number `index` of kind `kind` (flags: false).
  static func sentinel(_ kind: LeafKind, _ index: Int) -> FieldValue {
    switch kind {
    case .string: .string(stringSentinel(index))
    case .integer: .integer(Int64(integerSentinel(index)))
    case .double: .double(doubleSentinel(index))
    case .bool: .bool(false)
    case .date, .timestamp: .date(Timestamp(secondsSince1970: Int64(1_000_000_000 + index)))
    case .uuid: .string(uuidSentinel(index).uuidString)
    case .strings: .strings([stringSentinel(index)])
    case .integers: .integers([Int64(integerSentinel(index))])
    }
  }

  static func stringSentinel(_ index: Int) -> String { "\u{1}probe-\(index)" }
  static func integerSentinel(_ index: Int) -> Int { 1_000_000 + index }
  static func doubleSentinel(_ index: Int) -> Double { 1_000_000.5 + Double(index) }
  static func uuidSentinel(_ index: Int) -> UUID {
    UUID(
      uuid: (
        0x51, 0x52, 0x4F, 0x42, 0, 0, 0x40, 0, 0x80, 0, 0, 0, 0, UInt8(truncatingIfNeeded: index >> 16),
        UInt8(truncatingIfNeeded: index >> 8), UInt8(truncatingIfNeeded: index)
      ))
  }
}

/// What one run of the probe has seen.
private final class ProbeState {
  var leaves: [RecordProbe.Leaf] = []
  /// Which `Bool` leaf (counting bool leaves only) reads true in this run, if any.
  let truePass: Int?
  private var flagsSeen = 0
  var lastPath: [String] = []

  init(truePass: Int?) { self.truePass = truePass }

  /// Notes a leaf and returns its number.
  func leaf(_ path: [String], _ kind: RecordProbe.LeafKind, optional: Bool) -> Int {
    lastPath = path
    leaves.append(RecordProbe.Leaf(path: path, kind: kind, isOptional: optional))
    return leaves.count - 1
  }

  func nextFlag() -> Bool {
    defer { flagsSeen += 1 }
    return flagsSeen == truePass
  }
}

private struct ProbeKey: CodingKey {
  var stringValue: String
  var intValue: Int? { nil }
  init(stringValue: String) { self.stringValue = stringValue }
  init?(intValue: Int) { nil }
}

private struct ProbeDecoder: Decoder {
  let state: ProbeState
  let path: [String]
  /// Whether an enclosing value is optional: every leaf below it may then be absent.
  var underOptional = false
  var codingPath: [any CodingKey] { path.map(ProbeKey.init(stringValue:)) }
  var userInfo: [CodingUserInfoKey: Any] { [:] }

  func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
    KeyedDecodingContainer(ProbeKeyedContainer<Key>(state: state, path: path, underOptional: underOptional))
  }

  func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
    throw RecordProbe.Failure(
      path: path, message: "decodes a list of a type other than String or Int, which no field type holds")
  }

  func singleValueContainer() throws -> any SingleValueDecodingContainer {
    throw RecordProbe.Failure(
      path: path,
      message: "decodes a single value of its own (a custom Codable type, or a raw-value enum); "
        + "store it as one of the field types (String, Int, Double, Bool, Date, [String], [Int])")
  }
}

private struct ProbeKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
  let state: ProbeState
  let path: [String]
  let underOptional: Bool
  var codingPath: [any CodingKey] { path.map(ProbeKey.init(stringValue:)) }
  var allKeys: [Key] { [] }

  func contains(_ key: Key) -> Bool { true }
  func decodeNil(forKey key: Key) throws -> Bool { false }

  private func value<T: Decodable>(_ type: T.Type, _ key: Key, optional: Bool) throws -> T {
    let path = self.path + [key.stringValue]
    func leaf(_ kind: RecordProbe.LeafKind) -> Int {
      state.leaf(path, kind, optional: optional || underOptional)
    }
    let answer: Any
    switch type {
    case is String.Type: answer = RecordProbe.stringSentinel(leaf(.string))
    case is Int.Type: answer = RecordProbe.integerSentinel(leaf(.integer))
    case is Int64.Type: answer = Int64(RecordProbe.integerSentinel(leaf(.integer)))
    case is Int32.Type: answer = Int32(RecordProbe.integerSentinel(leaf(.integer)))
    case is Double.Type: answer = RecordProbe.doubleSentinel(leaf(.double))
    case is Float.Type: answer = Float(RecordProbe.doubleSentinel(leaf(.double)))
    case is Bool.Type:
      _ = leaf(.bool)
      answer = state.nextFlag()
    case is Date.Type: answer = Date(timeIntervalSince1970: Double(1_000_000_000 + leaf(.date)))
    case is Timestamp.Type: answer = Timestamp(secondsSince1970: Int64(1_000_000_000 + leaf(.timestamp)))
    case is UUID.Type: answer = RecordProbe.uuidSentinel(leaf(.uuid))
    case is [String].Type: answer = [RecordProbe.stringSentinel(leaf(.strings))]
    case is [Int].Type: answer = [RecordProbe.integerSentinel(leaf(.integers))]
    case is [Int64].Type: answer = [Int64(RecordProbe.integerSentinel(leaf(.integers)))]
    case is Int8.Type, is Int16.Type, is UInt.Type, is UInt8.Type, is UInt16.Type, is UInt32.Type,
      is UInt64.Type:
      throw RecordProbe.Failure(
        path: path, message: "has type \(type), which no field type holds exactly; use Int, Int64 or Int32")
    default:
      // A nested type: it decodes its own properties below this path.
      state.lastPath = path
      return try T(from: ProbeDecoder(state: state, path: path, underOptional: optional || underOptional))
    }
    guard let typed = answer as? T else {
      throw RecordProbe.Failure(path: path, message: "cannot be probed as \(type)")
    }
    return typed
  }

  func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
    try value(type, key, optional: false)
  }

  func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
    try value(type, key, optional: true)
  }

  func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try value(type, key, optional: false) }
  func decode(_ type: String.Type, forKey key: Key) throws -> String { try value(type, key, optional: false) }
  func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try value(type, key, optional: false) }
  func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try value(type, key, optional: false) }
  func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try value(type, key, optional: false) }
  func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try value(type, key, optional: false) }
  func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try value(type, key, optional: false) }
  func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? {
    try value(type, key, optional: true)
  }
  func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
    try value(type, key, optional: true)
  }
  func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? {
    try value(type, key, optional: true)
  }
  func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? {
    try value(type, key, optional: true)
  }
  func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? {
    try value(type, key, optional: true)
  }
  func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? {
    try value(type, key, optional: true)
  }
  func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? {
    try value(type, key, optional: true)
  }

  func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
    -> KeyedDecodingContainer<NestedKey>
  {
    KeyedDecodingContainer(
      ProbeKeyedContainer<NestedKey>(
        state: state, path: path + [key.stringValue], underOptional: underOptional))
  }

  func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
    throw RecordProbe.Failure(
      path: path + [key.stringValue], message: "is read as a list by hand; declare it as [String] or [Int]")
  }

  func superDecoder() throws -> any Decoder {
    throw RecordProbe.Failure(path: path, message: "uses a super decoder, which records cannot")
  }

  func superDecoder(forKey key: Key) throws -> any Decoder {
    throw RecordProbe.Failure(
      path: path + [key.stringValue], message: "uses a super decoder, which records cannot")
  }
}

extension RecordProbe {
  /// A value of `R` with every field empty (`""`, 0, `false`, an empty list, `nil`), built
  /// through its `Codable` conformance: what a collection's subscript returns for a record the
  /// store cannot read (its `error` then says why).
  static func blank<R: Decodable>(_ type: R.Type) -> R? {
    try? R(from: BlankDecoder())
  }
}

private struct BlankDecoder: Decoder {
  var codingPath: [any CodingKey] { [] }
  var userInfo: [CodingUserInfoKey: Any] { [:] }
  func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
    KeyedDecodingContainer(BlankContainer<Key>())
  }
  func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
    throw RecordProbe.Failure(path: [], message: "no blank list")
  }
  func singleValueContainer() throws -> any SingleValueDecodingContainer {
    throw RecordProbe.Failure(path: [], message: "no blank value")
  }
}

private struct BlankContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
  var codingPath: [any CodingKey] { [] }
  var allKeys: [Key] { [] }
  func contains(_ key: Key) -> Bool { true }
  func decodeNil(forKey key: Key) throws -> Bool { true }
  func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
    let answer: Any
    switch type {
    case is String.Type: answer = ""
    case is Int.Type: answer = 0
    case is Int64.Type: answer = Int64(0)
    case is Int32.Type: answer = Int32(0)
    case is Double.Type: answer = 0.0
    case is Float.Type: answer = Float(0)
    case is Bool.Type: answer = false
    case is Date.Type: answer = Date(timeIntervalSince1970: 0)
    case is Timestamp.Type: answer = Timestamp(secondsSince1970: 0)
    case is UUID.Type: answer = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
    case is [String].Type: answer = [String]()
    case is [Int].Type: answer = [Int]()
    case is [Int64].Type: answer = [Int64]()
    default: return try T(from: BlankDecoder())
    }
    guard let typed = answer as? T else { throw RecordProbe.Failure(path: [], message: "no blank \(type)") }
    return typed
  }
  func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
    -> KeyedDecodingContainer<NestedKey>
  {
    KeyedDecodingContainer(BlankContainer<NestedKey>())
  }
  func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
    throw RecordProbe.Failure(path: [], message: "no blank list")
  }
  func superDecoder() throws -> any Decoder { BlankDecoder() }
  func superDecoder(forKey key: Key) throws -> any Decoder { BlankDecoder() }
}
