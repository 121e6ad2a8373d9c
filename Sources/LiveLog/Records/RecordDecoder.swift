import Foundation

/// Builds records of a Swift type from stored field values, through the type's `Codable`
/// conformance: each coding path the type decodes is a field of the collection, by the
/// `RecordLayout` of the type and the slots of the collection.
struct RecordDecoder: Sendable {
  /// The slot of each leaf coding path (`owner.login`), and the field's name for messages.
  fileprivate let leaves: [String: (slot: Int, name: String)]
  /// The slots of the leaves below each object path (`owner`): an object whose leaves are all
  /// absent decodes as `nil`.
  fileprivate let objects: [String: [Int]]

  /// The decoder for `R` stored in `schema` (the collection's current schema, whose fields are
  /// found by the names `R` declares).
  init<R: Record>(_ type: R.Type, layout: RecordLayout, schema: CollectionSchema) throws(SchemaError) {
    var leaves: [String: (slot: Int, name: String)] = [:]
    var objects: [String: [Int]] = [:]
    for (declared, path) in zip(R.schema.declarations, layout.paths) {
      guard let field = schema.field(named: declared.name) else {
        // A field added to the declaration since the records were written: absent in all of them.
        if declared.isOptional { continue }
        throw SchemaError(
          collection: schema.name, field: declared.name, message: "is declared by \(type) but not stored")
      }
      leaves[path.joined(separator: ".")] = (field.position, field.name)
      for depth in 1..<max(path.count, 1) {
        objects[path[0..<depth].joined(separator: "."), default: []].append(field.position)
      }
    }
    self.leaves = leaves
    self.objects = objects
  }

  /// The record whose fields (by slot) are `values`.
  func decode<R: Record>(_ type: R.Type, from values: [FieldValue]) throws -> R {
    try R(from: ValuesDecoder(decoder: self, values: values, path: ""))
  }
}

/// Why a stored record could not be decoded as the Swift type.
struct RecordDecodingFailure: Error, CustomStringConvertible {
  var field: String
  var message: String
  var description: String { "field '\(field)': \(message)" }
}

private struct ValueKey: CodingKey {
  var stringValue: String
  var intValue: Int?
  init(stringValue: String) { self.stringValue = stringValue }
  init?(intValue: Int) {
    self.stringValue = String(intValue)
    self.intValue = intValue
  }
}

private struct ValuesDecoder: Decoder {
  let decoder: RecordDecoder
  let values: [FieldValue]
  let path: String
  var codingPath: [any CodingKey] { path.split(separator: ".").map { ValueKey(stringValue: String($0)) } }
  var userInfo: [CodingUserInfoKey: Any] { [:] }

  func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
    KeyedDecodingContainer(ValuesKeyedContainer<Key>(decoder: decoder, values: values, path: path))
  }

  func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
    throw RecordDecodingFailure(field: path, message: "is not a list field")
  }

  func singleValueContainer() throws -> any SingleValueDecodingContainer {
    throw RecordDecodingFailure(field: path, message: "is not a single stored value")
  }
}

private struct ValuesKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
  let decoder: RecordDecoder
  let values: [FieldValue]
  let path: String
  var codingPath: [any CodingKey] { path.split(separator: ".").map { ValueKey(stringValue: String($0)) } }
  var allKeys: [Key] { [] }

  private func child(_ key: Key) -> String { path.isEmpty ? key.stringValue : path + "." + key.stringValue }

  private func value(atSlot slot: Int) -> FieldValue { slot < values.count ? values[slot] : .null }

  func contains(_ key: Key) -> Bool {
    let name = child(key)
    return decoder.leaves[name] != nil || decoder.objects[name] != nil
  }

  func decodeNil(forKey key: Key) throws -> Bool {
    let name = child(key)
    if let leaf = decoder.leaves[name] { return value(atSlot: leaf.slot).isNull }
    if let slots = decoder.objects[name] { return slots.allSatisfy { value(atSlot: $0).isNull } }
    return true
  }

  func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
    let name = child(key)
    guard let leaf = decoder.leaves[name] else {
      if decoder.objects[name] != nil {
        return try T(from: ValuesDecoder(decoder: decoder, values: values, path: name))
      }
      throw RecordDecodingFailure(field: name, message: "is not a field of the collection")
    }
    let stored = value(atSlot: leaf.slot)
    func fail(_ expected: String) -> RecordDecodingFailure {
      RecordDecodingFailure(
        field: leaf.name, message: "holds \(stored.typeDescription), which does not decode as \(expected)")
    }
    let answer: Any?
    switch (type, stored) {
    case (is String.Type, .string(let text)): answer = text
    case (is UUID.Type, .string(let text)): answer = UUID(uuidString: text)
    case (is Int64.Type, .integer(let number)): answer = number
    case (is Int.Type, .integer(let number)): answer = Int(exactly: number)
    case (is Int32.Type, .integer(let number)): answer = Int32(exactly: number)
    case (is Double.Type, .double(let number)): answer = number
    case (is Double.Type, .integer(let number)): answer = Double(number)
    case (is Float.Type, .double(let number)): answer = Float(number)
    case (is Bool.Type, .bool(let flag)): answer = flag
    case (is Timestamp.Type, .date(let date)): answer = date
    case (is Date.Type, .date(let date)): answer = date.date
    case (is [String].Type, .strings(let list)): answer = list
    case (is [Int64].Type, .integers(let list)): answer = list
    case (is [Int].Type, .integers(let list)): answer = list.map { Int(truncatingIfNeeded: $0) }
    case (_, .null):
      throw RecordDecodingFailure(field: leaf.name, message: "is absent, but \(T.self) needs a value")
    default:
      throw fail("\(T.self)")
    }
    guard let typed = answer as? T else { throw fail("\(T.self)") }
    return typed
  }

  func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
    guard contains(key), try !decodeNil(forKey: key) else { return nil }
    return try decode(type, forKey: key)
  }

  func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
    -> KeyedDecodingContainer<NestedKey>
  {
    KeyedDecodingContainer(
      ValuesKeyedContainer<NestedKey>(decoder: decoder, values: values, path: child(key)))
  }

  func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
    throw RecordDecodingFailure(field: child(key), message: "is not read as a list")
  }

  func superDecoder() throws -> any Decoder {
    throw RecordDecodingFailure(field: path, message: "records have no super decoder")
  }

  func superDecoder(forKey key: Key) throws -> any Decoder {
    throw RecordDecodingFailure(field: child(key), message: "records have no super decoder")
  }
}
