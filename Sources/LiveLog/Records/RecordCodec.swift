/// The binary form of a record: how it is stored in the `records` database and in upsert events.
///
/// ```
/// version: UInt8 (1)   field count: varint   then per field, in schema order:
///   tag: UInt8   0 null · 1 false · 2 true · 3 integer · 4 date · 5 string · 6 string list
///   integer, date: zigzag varint    string: varint length + UTF-8    list: varint count + strings
/// ```
///
/// The encoding is deterministic (equal records give equal bytes), which is how an upsert that
/// changes nothing is recognized. Decoding checks every tag, length and UTF-8 sequence.
enum RecordCodec {
  static let version: UInt8 = 1

  enum Tag: UInt8 {
    case null = 0, falseValue, trueValue, integer, date, string, strings
  }

  static func encode(_ values: [FieldValue], into writer: inout ByteWriter) {
    writer.append(version)
    writer.appendVarint(UInt64(values.count))
    for value in values {
      switch value {
      case .null: writer.append(Tag.null.rawValue)
      case .bool(let flag): writer.append(flag ? Tag.trueValue.rawValue : Tag.falseValue.rawValue)
      case .integer(let number):
        writer.append(Tag.integer.rawValue)
        writer.appendSigned(number)
      case .date(let date):
        writer.append(Tag.date.rawValue)
        writer.appendSigned(date.secondsSince1970)
      case .string(let text):
        writer.append(Tag.string.rawValue)
        writer.appendString(text)
      case .strings(let list):
        writer.append(Tag.strings.rawValue)
        writer.appendVarint(UInt64(list.count))
        for text in list { writer.appendString(text) }
      }
    }
  }

  /// Bytes `encode(_:into:)` writes for `r`.
  static func encodedSize(_ r: Repository) -> Int {
    func text(_ value: String?) -> Int { 1 + (value.map(SizedByteWriter.stringSize) ?? 0) }
    func number(_ value: Int64?) -> Int { 1 + (value.map(SizedByteWriter.signedSize) ?? 0) }
    func date(_ value: Timestamp?) -> Int {
      1 + (value.map { SizedByteWriter.signedSize($0.secondsSince1970) } ?? 0)
    }
    var size = 2 + number(r.id) + text(r.nodeID) + text(r.name) + text(r.fullName) + text(r.ownerLogin)
    size += text(r.ownerAvatarURL) + text(r.htmlURL) + text(r.description) + 1 + text(r.language)
    size += number(r.stargazersCount) + number(r.forksCount) + number(r.watchersCount)
    size += number(r.openIssuesCount) + 1 + text(r.licenseSPDXID) + 1 + date(r.createdAt)
    size += date(r.updatedAt) + date(r.pushedAt) + text(r.defaultBranch) + number(r.size)
    if let topics = r.topics {
      size += SizedByteWriter.varintSize(UInt64(topics.count))
      for topic in topics { size += SizedByteWriter.stringSize(topic) }
    }
    return size
  }

  /// Encodes a repository directly, without building its `fieldValues`: the ingest hot path.
  /// Gives the same bytes as `encode(repository.fieldValues)`; writes `encodedSize(r)` bytes.
  static func encode(_ r: Repository, into writer: inout SizedByteWriter) {
    func text(_ value: String?) {
      if let value {
        writer.append(Tag.string.rawValue)
        writer.appendString(value)
      } else {
        writer.append(Tag.null.rawValue)
      }
    }
    func number(_ value: Int64?) {
      if let value {
        writer.append(Tag.integer.rawValue)
        writer.appendSigned(value)
      } else {
        writer.append(Tag.null.rawValue)
      }
    }
    func flag(_ value: Bool?) {
      guard let value else { return writer.append(Tag.null.rawValue) }
      writer.append(value ? Tag.trueValue.rawValue : Tag.falseValue.rawValue)
    }
    func date(_ value: Timestamp?) {
      if let value {
        writer.append(Tag.date.rawValue)
        writer.appendSigned(value.secondsSince1970)
      } else {
        writer.append(Tag.null.rawValue)
      }
    }
    writer.append(version)
    // One byte: the schema has fewer than 128 fields.
    writer.appendVarint(UInt64(Repository.schema.fields.count))
    number(r.id)
    text(r.nodeID)
    text(r.name)
    text(r.fullName)
    text(r.ownerLogin)
    text(r.ownerAvatarURL)
    text(r.htmlURL)
    text(r.description)
    flag(r.isFork)
    text(r.language)
    number(r.stargazersCount)
    number(r.forksCount)
    number(r.watchersCount)
    number(r.openIssuesCount)
    if let topics = r.topics {
      writer.append(Tag.strings.rawValue)
      writer.appendVarint(UInt64(topics.count))
      for topic in topics { writer.appendString(topic) }
    } else {
      writer.append(Tag.null.rawValue)
    }
    text(r.licenseSPDXID)
    flag(r.isArchived)
    date(r.createdAt)
    date(r.updatedAt)
    date(r.pushedAt)
    text(r.defaultBranch)
    number(r.size)
  }

  static func encode(_ repository: Repository) -> [UInt8] {
    let size = encodedSize(repository)
    return [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
      var writer = SizedByteWriter(buffer)
      encode(repository, into: &writer)
      count = writer.offset
    }
  }

  static func encode(_ values: [FieldValue]) -> [UInt8] {
    var writer = ByteWriter(capacity: 256)
    encode(values, into: &writer)
    return writer.bytes
  }

  /// Decodes every field, checking each against `schema`'s type.
  static func decode(_ bytes: UnsafeRawBufferPointer, schema: Schema) throws(MalformedBytes) -> [FieldValue] {
    var reader = ByteReader(bytes)
    let count = try readHeader(&reader, schema: schema)
    var values: [FieldValue] = []
    values.reserveCapacity(schema.fields.count)
    for position in 0..<count {
      let value = try readValue(&reader)
      if position < schema.fields.count {
        try checkType(value, schema.fields[position], at: reader.offset)
        values.append(value)
      }
    }
    while values.count < schema.fields.count { values.append(.null) }
    guard reader.isAtEnd else {
      throw MalformedBytes(offset: reader.offset, reason: "\(reader.remaining) bytes after the last field")
    }
    return values
  }

  /// Decodes the field at `position` only, skipping the ones before it.
  static func value(at position: Int, in bytes: UnsafeRawBufferPointer, schema: Schema) throws(MalformedBytes)
    -> FieldValue
  {
    var reader = ByteReader(bytes)
    let count = try readHeader(&reader, schema: schema)
    guard position < count else { return .null }
    for _ in 0..<position { try skipValue(&reader) }
    return try readValue(&reader)
  }

  static func readHeader(_ reader: inout ByteReader, schema: Schema) throws(MalformedBytes) -> Int {
    let version = try reader.readByte()
    guard version == RecordCodec.version else {
      throw MalformedBytes(
        offset: 0, reason: "record format version \(version) is not \(RecordCodec.version)")
    }
    let count = try reader.readVarint()
    guard count <= 4_096 else { throw MalformedBytes(offset: 1, reason: "implausible field count \(count)") }
    return Int(count)
  }

  private static func readValue(_ reader: inout ByteReader) throws(MalformedBytes) -> FieldValue {
    let offset = reader.offset
    guard let tag = Tag(rawValue: try reader.readByte()) else {
      throw MalformedBytes(offset: offset, reason: "unknown field tag")
    }
    switch tag {
    case .null: return .null
    case .falseValue: return .bool(false)
    case .trueValue: return .bool(true)
    case .integer: return .integer(try reader.readSigned())
    case .date: return .date(Timestamp(secondsSince1970: try reader.readSigned()))
    case .string: return .string(try reader.readString())
    case .strings:
      let count = try reader.readVarint()
      guard count <= UInt64(reader.remaining) else {
        throw MalformedBytes(offset: offset, reason: "list count \(count) runs past the end")
      }
      var list: [String] = []
      list.reserveCapacity(Int(count))
      for _ in 0..<count { list.append(try reader.readString()) }
      return .strings(list)
    }
  }

  static func skipValue(_ reader: inout ByteReader) throws(MalformedBytes) {
    let offset = reader.offset
    guard let tag = Tag(rawValue: try reader.readByte()) else {
      throw MalformedBytes(offset: offset, reason: "unknown field tag")
    }
    switch tag {
    case .null, .falseValue, .trueValue: return
    case .integer, .date: _ = try reader.readVarint()
    case .string: try reader.skipLengthPrefixed()
    case .strings:
      let count = try reader.readVarint()
      guard count <= UInt64(reader.remaining) else {
        throw MalformedBytes(offset: offset, reason: "list count \(count) runs past the end")
      }
      for _ in 0..<count { try reader.skipLengthPrefixed() }
    }
  }

  private static func checkType(_ value: FieldValue, _ field: Field, at offset: Int) throws(MalformedBytes) {
    let matches: Bool
    switch (value, field.type) {
    case (.null, _), (.bool, .bool), (.integer, .integer), (.date, .date), (.string, .string),
      (.strings, .stringList):
      matches = true
    default: matches = false
    }
    guard matches else {
      throw MalformedBytes(offset: offset, reason: "field \(field.name) holds a value of the wrong type")
    }
  }
}
