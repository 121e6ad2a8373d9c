/// The binary form of a record: how it is stored in a collection's `records` database and in
/// upsert events.
///
/// ```
/// version: UInt8 (1)   slot count: varint   then per slot, in slot order:
///   tag: UInt8   0 null · 1 false · 2 true · 3 integer · 4 date (whole seconds) · 5 string
///                6 string list · 7 double · 8 integer list · 9 date with nanoseconds
///   integer: zigzag varint   date: zigzag varint seconds (tag 9: then varint nanoseconds)
///   double: 8 bytes, the IEEE 754 bit pattern, little-endian
///   string: varint length + UTF-8   lists: varint count + elements as above
/// ```
///
/// Tags describe themselves, so a reader can skip any value without knowing its field: a record
/// written before a field was added reads with that field absent, and a retired slot is skipped.
/// The encoding is deterministic (equal records give equal bytes), which is how an upsert that
/// changes nothing is recognized. Decoding checks every tag, length and UTF-8 sequence.
enum RecordCodec {
  static let version: UInt8 = 1

  enum Tag: UInt8 {
    case null = 0, falseValue, trueValue, integer, date, string, strings, double, integers, dateNanoseconds
  }

  static func encode(_ values: [FieldValue], into writer: inout ByteWriter) {
    writer.append(version)
    writer.appendVarint(UInt64(values.count))
    // Each value borrowed in place: a loop over the array copied each, retaining its text.
    values.withUnsafeBufferPointer { buffer in
      for index in buffer.indices { encode(buffer[index], into: &writer) }
    }
  }

  static func encode(_ value: FieldValue, into writer: inout ByteWriter) {
    switch value {
    case .null: writer.append(Tag.null.rawValue)
    case .bool(let flag): writer.append(flag ? Tag.trueValue.rawValue : Tag.falseValue.rawValue)
    case .integer(let number):
      writer.append(Tag.integer.rawValue)
      writer.appendSigned(number)
    case .double(let number):
      writer.append(Tag.double.rawValue)
      writer.appendFixed64(number.bitPattern)
    case .date(let date):
      writer.append(date.nanoseconds == 0 ? Tag.date.rawValue : Tag.dateNanoseconds.rawValue)
      writer.appendSigned(date.secondsSince1970)
      if date.nanoseconds != 0 { writer.appendVarint(UInt64(date.nanoseconds)) }
    case .string(let text):
      writer.append(Tag.string.rawValue)
      writer.appendString(text)
    case .strings(let list):
      writer.append(Tag.strings.rawValue)
      writer.appendVarint(UInt64(list.count))
      for text in list { writer.appendString(text) }
    case .integers(let list):
      writer.append(Tag.integers.rawValue)
      writer.appendVarint(UInt64(list.count))
      for number in list { writer.appendSigned(number) }
    }
  }

  static func encode(_ values: [FieldValue]) -> [UInt8] {
    var writer = ByteWriter(capacity: 256)
    encode(values, into: &writer)
    return writer.bytes
  }

  /// Decodes every slot of `schema`, checking each value against its field's type; values of
  /// slots the schema does not hold (retired, or past its end) read as `.null`.
  static func decode(_ bytes: UnsafeRawBufferPointer, schema: CollectionSchema) throws(MalformedBytes)
    -> [FieldValue]
  {
    var reader = ByteReader(bytes)
    let count = try readHeader(&reader)
    var values = [FieldValue](repeating: .null, count: max(schema.slotCount, 0))
    // Each field's type read in place: a copy of the field per record and slot retained its name.
    let fields = schema.fields
    for slot in 0..<count {
      let value = try readValue(&reader)
      guard slot < values.count, let index = schema.fieldIndex(atSlot: slot) else { continue }
      guard value.fits(fields[index].type) else {
        throw MalformedBytes(
          offset: reader.offset, reason: "field \(fields[index].name) holds a value of the wrong type")
      }
      values[slot] = value
    }
    guard reader.isAtEnd else {
      throw MalformedBytes(offset: reader.offset, reason: "\(reader.remaining) bytes after the last field")
    }
    return values
  }

  /// Decodes the value in `slot` only, skipping the ones before it.
  static func value(atSlot slot: Int, in bytes: UnsafeRawBufferPointer) throws(MalformedBytes) -> FieldValue {
    var reader = ByteReader(bytes)
    guard try position(&reader, atSlot: slot) else { return .null }
    return try readValue(&reader)
  }

  /// Decodes the values in `slots` (ascending, distinct) in one pass, skipping the others; slots
  /// past the stored ones read as `.null`.
  static func values(atSlots slots: [Int], in bytes: UnsafeRawBufferPointer) throws(MalformedBytes)
    -> [FieldValue]
  {
    var reader = ByteReader(bytes)
    let count = try readHeader(&reader)
    var values = [FieldValue](repeating: .null, count: slots.count)
    var slot = 0
    for (index, wanted) in slots.enumerated() where wanted < count {
      while slot < wanted {
        try skipValue(&reader)
        slot += 1
      }
      values[index] = try readValue(&reader)
      slot += 1
    }
    return values
  }

  /// Moves `reader` (at the start of a record) to the value in `slot`; false past the stored slots.
  static func position(_ reader: inout ByteReader, atSlot slot: Int) throws(MalformedBytes) -> Bool {
    let count = try readHeader(&reader)
    guard slot < count else { return false }
    for _ in 0..<slot { try skipValue(&reader) }
    return true
  }

  /// The number of slots a stored record holds (0 for bytes that do not start like a record).
  static func storedSlotCount(_ bytes: UnsafeRawBufferPointer) -> Int {
    var reader = ByteReader(bytes)
    return (try? readHeader(&reader)) ?? 0
  }

  static func readHeader(_ reader: inout ByteReader) throws(MalformedBytes) -> Int {
    let version = try reader.readByte()
    guard version == RecordCodec.version else {
      throw MalformedBytes(
        offset: 0, reason: "record format version \(version) is not \(RecordCodec.version)")
    }
    let count = try reader.readVarint()
    guard count <= 4_096 else { throw MalformedBytes(offset: 1, reason: "implausible field count \(count)") }
    return Int(count)
  }

  static func readValue(_ reader: inout ByteReader) throws(MalformedBytes) -> FieldValue {
    let offset = reader.offset
    guard let tag = Tag(rawValue: try reader.readByte()) else {
      throw MalformedBytes(offset: offset, reason: "unknown field tag")
    }
    switch tag {
    case .null: return .null
    case .falseValue: return .bool(false)
    case .trueValue: return .bool(true)
    case .integer: return .integer(try reader.readSigned())
    case .double: return .double(Double(bitPattern: try reader.readFixed64()))
    case .date: return .date(Timestamp(secondsSince1970: try reader.readSigned()))
    case .dateNanoseconds:
      let seconds = try reader.readSigned()
      let nanoseconds = try reader.readVarint()
      try checkNanoseconds(nanoseconds, at: offset)
      return .date(Timestamp(secondsSince1970: seconds, nanoseconds: Int32(nanoseconds)))
    case .string: return .string(try reader.readString())
    case .strings:
      let count = try listCount(&reader, offset)
      var list: [String] = []
      list.reserveCapacity(count)
      for _ in 0..<count { list.append(try reader.readString()) }
      return .strings(list)
    case .integers:
      let count = try listCount(&reader, offset)
      var list: [Int64] = []
      list.reserveCapacity(count)
      for _ in 0..<count { list.append(try reader.readSigned()) }
      return .integers(list)
    }
  }

  /// Tag 9 is for dates with a fraction of a second: 0 would have been written as tag 4.
  private static func checkNanoseconds(_ nanoseconds: UInt64, at offset: Int) throws(MalformedBytes) {
    guard nanoseconds > 0, nanoseconds < 1_000_000_000 else {
      throw MalformedBytes(offset: offset, reason: "a date's nanoseconds \(nanoseconds) are out of range")
    }
  }

  private static func listCount(_ reader: inout ByteReader, _ offset: Int) throws(MalformedBytes) -> Int {
    let count = try reader.readVarint()
    guard count <= UInt64(reader.remaining) else {
      throw MalformedBytes(offset: offset, reason: "list count \(count) runs past the end")
    }
    return Int(count)
  }

  /// Moves past one value and returns its tag. `checking`, it also checks what `readValue` checks
  /// and a skip need not (a string's UTF-8, a date's nanoseconds), still without building the
  /// value: `check(_:schema:)`.
  @discardableResult
  static func skipValue(_ reader: inout ByteReader, checking: Bool = false) throws(MalformedBytes) -> Tag {
    let offset = reader.offset
    guard let tag = Tag(rawValue: try reader.readByte()) else {
      throw MalformedBytes(offset: offset, reason: "unknown field tag")
    }
    func skipString() throws(MalformedBytes) {
      if checking { try reader.checkString() } else { try reader.skipLengthPrefixed() }
    }
    switch tag {
    case .null, .falseValue, .trueValue: break
    case .integer, .date: _ = try reader.readVarint()
    case .dateNanoseconds:
      _ = try reader.readVarint()
      let nanoseconds = try reader.readVarint()
      if checking { try checkNanoseconds(nanoseconds, at: offset) }
    case .double: _ = try reader.readFixed64()
    case .string: try skipString()
    case .strings:
      for _ in 0..<(try listCount(&reader, offset)) { try skipString() }
    case .integers:
      for _ in 0..<(try listCount(&reader, offset)) { _ = try reader.readVarint() }
    }
    return tag
  }
}
