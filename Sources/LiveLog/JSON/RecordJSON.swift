/// Records as JSON objects shaped by their schema: dotted field names are nested objects
/// (`owner.login` is `{"owner": {"login": …}}`), dates ISO 8601 strings, lists arrays. Every field
/// is written, `null` when absent (an object whose fields are all absent is `null`), so that
/// reading the output again gives back the same record.
struct RecordJSONShape: Sendable {
  indirect enum Node: Sendable {
    case value(key: String, field: Field)
    case object(key: String, children: [Node])
  }

  let nodes: [Node]

  /// The shape of `schema`'s records: fields in slot order, each object where its first field
  /// stands.
  init(_ schema: CollectionSchema) {
    func build(_ fields: [(path: ArraySlice<Substring>, field: Field)]) -> [Node] {
      var order: [String] = []
      var groups: [String: [(path: ArraySlice<Substring>, field: Field)]] = [:]
      var leaves: [String: Field] = [:]
      for (path, field) in fields {
        guard let first = path.first.map(String.init) else { continue }
        if groups[first] == nil && leaves[first] == nil { order.append(first) }
        if path.count == 1 {
          leaves[first] = field
        } else {
          groups[first, default: []].append((path.dropFirst(), field))
        }
      }
      return order.map { key in
        if let field = leaves[key] { return .value(key: key, field: field) }
        return .object(key: key, children: build(groups[key] ?? []))
      }
    }
    nodes = build(schema.fields.map { ($0.name.split(separator: ".")[...], $0) })
  }

  /// Writes the record whose values (by slot) are `values`.
  func write(_ values: [FieldValue], to writer: inout JSONWriter) {
    writer.beginObject()
    write(nodes, values, &writer)
    writer.endObject()
  }

  private func write(_ nodes: [Node], _ values: [FieldValue], _ writer: inout JSONWriter) {
    for node in nodes {
      switch node {
      case .value(let key, let field):
        writer.key(key)
        RecordJSONShape.write(field.position < values.count ? values[field.position] : .null, to: &writer)
      case .object(let key, let children):
        writer.key(key)
        if RecordJSONShape.isAbsent(children, values) {
          writer.null()
        } else {
          writer.beginObject()
          write(children, values, &writer)
          writer.endObject()
        }
      }
    }
  }

  private static func isAbsent(_ nodes: [Node], _ values: [FieldValue]) -> Bool {
    nodes.allSatisfy { node in
      switch node {
      case .value(_, let field): field.position >= values.count || values[field.position].isNull
      case .object(_, let children): isAbsent(children, values)
      }
    }
  }

  static func write(_ value: FieldValue, to writer: inout JSONWriter) {
    switch value {
    case .null: writer.null()
    case .bool(let flag): writer.bool(flag)
    case .integer(let number): writer.integer(number)
    case .double(let number): writer.number(number)
    case .date(let date): writer.string(date.iso8601)
    case .string(let text): writer.string(text)
    case .strings(let list):
      writer.beginArray()
      for text in list { writer.string(text) }
      writer.endArray()
    case .integers(let list):
      writer.beginArray()
      for number in list { writer.integer(number) }
      writer.endArray()
    }
  }
}

extension RecordValues {
  /// The record as a compact JSON object shaped by its schema (see `RecordJSONShape`).
  public var jsonBytes: [UInt8] {
    var writer = JSONWriter()
    RecordJSONShape(schema).write(values, to: &writer)
    return writer.bytes
  }

  /// `jsonBytes` as a string.
  public var json: String { String(decoding: jsonBytes, as: UTF8.self) }
}

/// Reads records from JSON objects shaped by a schema, tolerant of what real data does: keys
/// missing or `null` are absent fields, unknown keys are ignored, dates may be ISO 8601 strings or
/// Unix seconds. Strict about what it keeps: a value of the wrong type is an error naming the
/// field, its line and column, never silently dropped; so is a required field that is absent.
struct RecordJSONReader {
  let schema: CollectionSchema
  let locator: SourceLocator
  /// Fills in what the input leaves out, before the record is checked (`Record.complete`).
  let complete: (@Sendable (inout InputRecord) throws(InputProblem) -> Void)?

  /// Longest text a field may hold, in UTF-8 bytes: far beyond any real field, a longer one is a
  /// broken producer, not data.
  static let maximumTextBytes = 64 * 1024
  /// Most elements a list field may hold.
  static let maximumListCount = 1_000

  /// The record in `object`, which starts at byte `offset`; its values by slot.
  func read(_ object: JSONObject, at offset: Int) throws(InputError) -> [FieldValue] {
    var values = [FieldValue](repeating: .null, count: schema.slotCount)
    for field in schema.fields {
      guard let member = try member(field, in: object) else { continue }
      values[field.position] = try value(member, field)
    }
    return try finish(values, at: offset)
  }

  /// Completes and checks values read from any input format (`otherColumns`: CSV columns that
  /// name no field).
  func finish(_ read: [FieldValue], at offset: Int, otherColumns: [String: String] = [:]) throws(InputError)
    -> [FieldValue]
  {
    var input = InputRecord(schema: schema, values: read, otherColumns: otherColumns)
    if let complete {
      do {
        try complete(&input)
      } catch {
        throw locator.error(at: offset, field: error.field, error.message)
      }
    }
    let record = RecordValues(schema: schema, values: input.values)
    if let (field, problem) = record.firstMismatch() {
      let message =
        field.position == schema.primaryKey.position && record.value(of: field).isNull
        ? "missing: every record of \(schema.name) needs its primary key '\(field.name)'"
        : "\(problem)"
      throw locator.error(at: offset, field: field.name, message)
    }
    return record.values
  }

  /// The member holding `field`, following dotted names into nested objects; `nil` when absent.
  private func member(_ field: Field, in object: JSONObject) throws(InputError) -> JSONObject.Member? {
    var current = object
    let parts = field.name.split(separator: ".")
    for (index, part) in parts.enumerated() {
      guard let member = current[String(part)] else { return nil }
      if index == parts.count - 1 { return member }
      switch member.value {
      case .null: return nil
      case .object(let nested): current = nested
      default:
        throw locator.error(
          at: member.offset, field: parts[0...index].joined(separator: "."),
          "expected an object, found \(member.value.typeDescription)")
      }
    }
    return nil
  }

  private func wrongType(_ member: JSONObject.Member, _ field: Field, expected: String) -> InputError {
    locator.error(
      at: member.offset, field: field.name, "expected \(expected), found \(member.value.typeDescription)")
  }

  func value(_ member: JSONObject.Member, _ field: Field) throws(InputError) -> FieldValue {
    if case .null = member.value { return .null }
    switch field.type {
    case .integer: return .integer(try integer(member.value, member.offset, field))
    case .double:
      guard case .number(let number) = member.value, let value = Double(number.literal) else {
        throw wrongType(member, field, expected: "a number")
      }
      return .double(value)
    case .string:
      guard case .string(let text) = member.value else {
        throw wrongType(member, field, expected: "a string")
      }
      try checkLength(text, member.offset, field)
      return .string(text)
    case .bool:
      guard case .bool(let flag) = member.value else {
        throw wrongType(member, field, expected: "true or false")
      }
      return .bool(flag)
    case .date: return .date(try date(member, field))
    case .stringList, .integerList:
      guard case .array(let elements) = member.value else {
        throw wrongType(member, field, expected: "an array of \(field.type.elementType)s")
      }
      guard elements.count <= RecordJSONReader.maximumListCount else {
        throw locator.error(
          at: member.offset, field: field.name,
          "\(elements.count) entries are more than the limit of \(RecordJSONReader.maximumListCount)")
      }
      if field.type == .integerList {
        var list: [Int64] = []
        list.reserveCapacity(elements.count)
        for element in elements { list.append(try integer(element.value, element.offset, field)) }
        return .integers(list)
      }
      var list: [String] = []
      list.reserveCapacity(elements.count)
      for element in elements {
        guard case .string(let text) = element.value else {
          throw locator.error(
            at: element.offset, field: field.name,
            "expected an array of strings, found \(element.value.typeDescription)")
        }
        try checkLength(text, element.offset, field)
        list.append(text)
      }
      return .strings(list)
    }
  }

  private func integer(_ value: JSONValue, _ offset: Int, _ field: Field) throws(InputError) -> Int64 {
    guard case .number(let number) = value else {
      throw locator.error(
        at: offset, field: field.name, "expected a whole number, found \(value.typeDescription)")
    }
    guard let integer = number.integer else {
      throw locator.error(
        at: offset, field: field.name,
        "expected a whole number between -2^63 and 2^63-1, found \(number.literal.prefix(40))")
    }
    return integer
  }

  private func checkLength(_ text: String, _ offset: Int, _ field: Field) throws(InputError) {
    if text.utf8.count > RecordJSONReader.maximumTextBytes {
      throw locator.error(
        at: offset, field: field.name,
        "text of \(text.utf8.count) bytes is longer than the limit of \(RecordJSONReader.maximumTextBytes)")
    }
  }

  private func date(_ member: JSONObject.Member, _ field: Field) throws(InputError) -> Timestamp {
    switch member.value {
    case .string(let text):
      guard let date = Timestamp(iso8601: text) else {
        throw locator.error(
          at: member.offset, field: field.name,
          "expected an ISO 8601 date such as 2014-01-11T09:27:47Z, found \"\(text.prefix(40))\"")
      }
      return date
    case .number(let number):
      guard let seconds = number.integer, Timestamp.range.contains(seconds) else {
        throw locator.error(
          at: member.offset, field: field.name,
          "expected Unix seconds in years 1 to 9999, found \(number.literal.prefix(40))")
      }
      return Timestamp(secondsSince1970: seconds)
    default:
      throw wrongType(member, field, expected: "a date string or Unix seconds")
    }
  }
}
