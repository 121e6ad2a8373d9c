import Foundation

/// A file of records to ingest, mapped into memory (or held there) and decoded on demand, for
/// any collection.
///
/// Decoding is separate from reading so that a whole input can be checked before anything of it
/// is committed, then decoded again batch by batch without holding every record at once.
public struct RecordFile: Sendable {
  /// The file name as given (`-` for standard input).
  public let source: String
  /// The detected or requested format.
  public let format: InputFormat
  let bytes: InputBytes

  /// Wraps bytes already read; `format` overrides detection.
  public init(source: String, bytes: [UInt8], format: InputFormat? = nil) {
    self.init(source: source, input: InputBytes(bytes), format: format)
  }

  private init(source: String, input: InputBytes, format: InputFormat?) {
    self.source = source
    self.bytes = input
    self.format = format ?? input.withUnsafeBufferPointer { InputFormat.detect(source: source, bytes: $0) }
  }

  /// Maps the file at `path` (`-` reads standard input to its end, through an unlinked temporary
  /// file when it is a pipe: see `InputBytes`).
  public init(path: String, format: InputFormat? = nil) throws(InputError) {
    let input: InputBytes
    if path == "-" {
      input = try InputBytes.standardInput()
    } else {
      var isDirectory: ObjCBool = false
      guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
        throw InputError(source: path, message: "no such file")
      }
      guard !isDirectory.boolValue else {
        throw InputError(source: path, message: "is a directory, not a file")
      }
      input = try InputBytes.mapping(path: path)
    }
    self.init(source: path, input: input, format: format)
  }

  /// Size of the input in bytes, the unit of `forEachMutation`'s progress.
  public var byteCount: Int { bytes.count }

  /// Decodes every mutation for `input`'s collection in order, calling `body` with it and the
  /// number of input bytes consumed so far. Stops at the first malformed record with an
  /// `InputError` naming it.
  public func forEachMutation(for input: RecordInput, _ body: (Mutation, _ bytesRead: Int) throws -> Void)
    throws
  {
    try bytes.withUnsafeBufferPointer { buffer in
      switch format {
      case .ndjson: try forEachLine(buffer, input, body)
      case .array, .searchResponse: try forEachElement(buffer, input, body)
      case .csv:
        try CSVRecords(source: source, bytes: buffer, input: input).forEachRecord { values, offset in
          try body(Mutation(declaration: input.schema, change: .upsert(values)), offset)
        }
      }
    }
  }

  /// Every mutation of the file for `input`'s collection, checked.
  public func mutations(for input: RecordInput) throws -> [Mutation] {
    var mutations: [Mutation] = []
    try forEachMutation(for: input) { mutation, _ in mutations.append(mutation) }
    return mutations
  }

  /// Every mutation of the file for the records of `type`, checked.
  public func mutations<R: Record>(of type: R.Type) throws -> [Mutation] {
    try mutations(for: RecordInput(type))
  }

  /// The records the file upserts, as `R`s (deletes are left out).
  public func records<R: Record>(of type: R.Type) throws -> [R] {
    try mutations(of: type).compactMap { try $0.record(as: type) }
  }

  /// Calls `body` with each non-empty line parsed as a JSON object (for exports of the log).
  func forEachJSONLine(_ body: (JSONObject, SourceLocator) throws -> Void) throws {
    try bytes.withUnsafeBufferPointer { buffer in
      try forEachJSONValue(buffer) { value, locator, _ in
        guard case .object(let object) = value else {
          throw locator.error(at: 0, "expected an event object, found \(value.typeDescription)")
        }
        try body(object, locator)
      }
    }
  }

  /// Parses each non-empty line as one JSON value; `body` also gets the offset after the line.
  private func forEachJSONValue(
    _ buffer: UnsafeBufferPointer<UInt8>, _ body: (JSONValue, SourceLocator, Int) throws -> Void
  ) throws {
    var start = RecordFile.byteOrderMarkLength(buffer)
    var line = 1
    while start < buffer.count {
      var end = start
      while end < buffer.count && buffer[end] != 0x0A { end += 1 }
      let lineBytes = UnsafeBufferPointer(rebasing: buffer[start..<end])
      let locator = SourceLocator(source: source, text: lineBytes, firstLine: line, item: nil)
      if lineBytes.contains(where: { ![0x20, 0x09, 0x0D].contains($0) }) {
        let value: JSONValue
        do {
          value = try JSONParser.parse(lineBytes)
        } catch {
          throw locator.error(at: error.offset, error.message)
        }
        try body(value, locator, end)
      }
      start = end + 1
      line += 1
    }
  }

  // MARK: Formats

  /// The length of a UTF-8 byte order mark at the start of `bytes` (3), or 0. Every format skips
  /// it: editors on Windows write one, and it carries no data.
  static func byteOrderMarkLength(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
    bytes.count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF ? 3 : 0
  }

  private func forEachLine(
    _ buffer: UnsafeBufferPointer<UInt8>, _ input: RecordInput, _ body: (Mutation, Int) throws -> Void
  ) throws {
    try forEachJSONValue(buffer) { value, locator, end in
      try body(try mutation(from: value, at: 0, input, locator: locator), end)
    }
  }

  private func forEachElement(
    _ whole: UnsafeBufferPointer<UInt8>, _ input: RecordInput, _ body: (Mutation, Int) throws -> Void
  ) throws {
    let buffer = UnsafeBufferPointer(rebasing: whole[RecordFile.byteOrderMarkLength(whole)...])
    let document: JSONValue
    do {
      document = try JSONParser.parse(buffer)
    } catch {
      throw SourceLocator(source: source, text: buffer, firstLine: 1, item: nil).error(
        at: error.offset, error.message)
    }
    let elements: [JSONElement]
    let prefix: String
    switch document {
    case .array(let array):
      elements = array
      prefix = ""
    case .object(let object):
      guard let items = object["items"] else {
        throw InputError(source: source, line: 1, message: "a search response needs an \"items\" array")
      }
      guard case .array(let array) = items.value else {
        throw SourceLocator(source: source, text: buffer, firstLine: 1, item: nil)
          .error(at: items.offset, field: "items", "expected an array, found \(items.value.typeDescription)")
      }
      elements = array
      prefix = "items"
    default:
      throw InputError(
        source: source, line: 1,
        message: "expected a JSON array or a search response object, found \(document.typeDescription)")
    }
    for (index, element) in elements.enumerated() {
      let locator = SourceLocator(source: source, text: buffer, firstLine: 1, item: "\(prefix)[\(index)]")
      try body(try mutation(from: element.value, at: element.offset, input, locator: locator), element.offset)
    }
  }

  /// A record object, `{"upsert": record}` or `{"delete": KEY}` (KEY is the primary key's JSON
  /// value).
  private func mutation(from value: JSONValue, at offset: Int, _ input: RecordInput, locator: SourceLocator)
    throws(InputError) -> Mutation
  {
    let schema = input.schema
    guard case .object(let object) = value else {
      throw locator.error(at: offset, "expected a record object, found \(value.typeDescription)")
    }
    let reader = RecordJSONReader(schema: schema, locator: locator, complete: input.complete)
    if object[schema.primaryKey.name] == nil && object.members.count == 1, let member = object.members.first {
      switch member.key {
      case "upsert":
        guard case .object(let record) = member.value else {
          throw locator.error(
            at: member.offset, field: "upsert",
            "expected a record object, found \(member.value.typeDescription)")
        }
        return Mutation(declaration: schema, change: .upsert(try reader.read(record, at: member.offset)))
      case "delete":
        let key = try reader.value(member, schema.primaryKey)
        guard let primaryKey = PrimaryKey(key) else {
          throw locator.error(at: member.offset, field: "delete", "expected the key of the record to delete")
        }
        return Mutation(declaration: schema, change: .delete(primaryKey))
      default:
        break
      }
    }
    return Mutation(declaration: schema, change: .upsert(try reader.read(object, at: offset)))
  }
}

/// What ingested records are read as: a collection's schema, and how records of its type fill in
/// what inputs leave out (`Record.complete(_:)`).
public struct RecordInput: Sendable {
  /// The schema records are read with; mutations carry it as their declaration.
  public let schema: CollectionSchema
  let complete: (@Sendable (inout InputRecord) throws(InputProblem) -> Void)?

  /// Records of the type `R`.
  public init<R: Record>(_ type: R.Type) {
    schema = R.schema.declaration
    complete = { (input: inout InputRecord) throws(InputProblem) in try R.complete(&input) }
  }

  /// Records of a collection known by its schema only (as `livelog ingest --collection` reads).
  public init(schema: CollectionSchema) {
    self.schema = schema
    complete = nil
  }
}
