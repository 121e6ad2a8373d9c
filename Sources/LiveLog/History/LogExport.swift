import Foundation

/// The log as portable NDJSON: one event per line, collections, schemas, commit boundaries and
/// checksums included.
///
/// ```
/// {"lsn":1,"time":"2026-11-29T13:15:18.348728Z","time_us":1764422118348728,"format":2,
///  "collection":"bookmarks","schema_version":1,"op":"schema","row":0,"previous":null,
///  "commit_end":true,"schema":{…},"checksum":"6f0a1c2e"}
/// {"lsn":2,…,"op":"upsert","id":"E621E1F8-…","row":1,"previous":null,"commit_end":false,
///  "record":{…},"checksum":"…"}
/// {"lsn":3,…,"op":"delete","id":14444757,…}
/// ```
///
/// `record` is shaped by the schema version the event was written with; `schema` is the stored
/// form of a new schema version (with slots). `checksum` is the CRC-32C the log stores for the
/// event: an import re-encodes each line and refuses it unless the checksum agrees, so damage in
/// transit cannot slip in. `id` is the record's primary key, a number or a string. The same log
/// always exports to the same bytes. Exports of format 1 (before collections) have no `format`,
/// `collection` or `schema_version`; they import as events of `repositories`.
///
/// A line may instead carry the event's stored bytes, `{"lsn":N,"event_bytes":"<base64>"}`
/// (`rawLine`): what a salvage writes for an event whose collection it cannot name, because the
/// schema event that made the collection was lost. An import checks the bytes against their
/// checksum and takes them as they are.
enum LogExport {
  /// One event as a line (without the newline).
  static func line(_ header: EventHeader, _ event: Event, checksum: UInt32) -> [UInt8] {
    var writer = JSONWriter()
    writer.beginObject()
    writer.key("lsn")
    writer.integer(event.lsn)
    writer.key("time")
    writer.string(event.time.iso8601)
    writer.key("time_us")
    writer.integer(event.time.microsecondsSince1970)
    writer.key("format")
    writer.integer(header.format)
    writer.key("collection")
    writer.string(event.collection)
    writer.key("schema_version")
    writer.integer(event.schemaVersion)
    event.change.writeOperation(to: &writer)
    writer.key("row")
    writer.integer(event.row)
    writer.key("previous")
    if let previous = event.previousLSN { writer.integer(previous) } else { writer.null() }
    writer.key("commit_end")
    writer.bool(event.endsCommit)
    event.change.writeContent(to: &writer, slots: true)
    writer.key("checksum")
    writer.string(hex(checksum))
    writer.endObject()
    return writer.bytes
  }

  /// An event as its stored bytes (without the newline).
  static func rawLine(lsn: UInt64, bytes: [UInt8]) -> [UInt8] {
    var writer = JSONWriter()
    writer.beginObject()
    writer.key("lsn")
    writer.integer(lsn)
    writer.key("event_bytes")
    writer.string(Data(bytes).base64EncodedString())
    writer.endObject()
    return writer.bytes
  }

  static func hex(_ value: UInt32) -> String {
    let text = String(value, radix: 16)
    return String(repeating: "0", count: 8 - text.count) + text
  }

  /// The checksum stored in an event's bytes.
  static func storedChecksum(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
    UInt32(
      littleEndian: bytes.loadUnaligned(
        fromByteOffset: bytes.count - EventCodec.checksumSize, as: UInt32.self))
  }

  /// Reads one exported line back into its log bytes, checking its checksum. `catalog` holds
  /// the collections of the events before it (and takes this line's schema event).
  static func parse(_ object: JSONObject, catalog: inout ReplayCatalog, locator: SourceLocator)
    throws(InputError)
    -> (lsn: UInt64, bytes: [UInt8])
  {
    func member(_ key: String) throws(InputError) -> JSONObject.Member {
      guard let member = object[key] else { throw locator.error(at: 0, field: key, "missing") }
      return member
    }
    func integer(_ key: String) throws(InputError) -> Int64 {
      let found = try member(key)
      guard case .number(let number) = found.value, let value = number.integer else {
        throw locator.error(at: found.offset, field: key, "expected a whole number")
      }
      return value
    }
    func string(_ key: String) throws(InputError) -> String {
      let found = try member(key)
      guard case .string(let text) = found.value else {
        throw locator.error(at: found.offset, field: key, "expected a string")
      }
      return text
    }
    let lsn = try integer("lsn")
    guard lsn >= 1 else { throw locator.error(at: 0, field: "lsn", "must be at least 1") }
    if let raw = object["event_bytes"] {
      return try parseRaw(raw, lsn: UInt64(lsn), catalog: &catalog, locator: locator)
    }
    let time = CommitTime(microsecondsSince1970: try integer("time_us"))
    let format = object["format"] == nil ? 1 : try integer("format")
    guard format == 1 || format == 2 else {
      throw locator.error(at: 0, field: "format", "event format \(format) is not 1 or 2")
    }
    let row = try integer("row")
    guard row >= 0 else { throw locator.error(at: 0, field: "row", "must not be negative") }
    var previous: UInt64?
    let previousMember = try member("previous")
    if case .null = previousMember.value {
      previous = nil
    } else {
      let value = try integer("previous")
      guard value >= 1, value < lsn else {
        throw locator.error(at: previousMember.offset, field: "previous", "must be an earlier LSN")
      }
      previous = UInt64(value)
    }
    guard case .bool(let endsCommit) = try member("commit_end").value else {
      throw locator.error(at: 0, field: "commit_end", "expected true or false")
    }
    let op = try string("op")
    let collectionName = format == 1 ? LegacySchemas.repositoriesName : try string("collection")
    let schemaVersion = format == 1 ? 1 : Int(try integer("schema_version"))
    var bytes: [UInt8]
    do {
      if op == "schema" {
        guard format == 2 else {
          throw locator.error(at: 0, field: "op", "events of format 1 have no schemas")
        }
        let schemaMember = try member("schema")
        let schema = try CollectionSchema.read(
          schemaMember.value, at: schemaMember.offset, name: collectionName, slots: true, locator: locator)
        let id =
          catalog.entries.values.first { $0.name == collectionName }?.id
          ?? (catalog.entries.keys.max() ?? 0) + 1
        bytes = EventCodec.beginSchema(
          schema, time: time,
          .init(collection: id, schemaVersion: schemaVersion, row: UInt64(row), previous: previous ?? 0))
        EventCodec.seal(&bytes, lsn: UInt64(lsn), endsCommit: endsCommit)
        let header = try bytes.withUnsafeBytes { try EventCodec.header($0, lsn: UInt64(lsn)) }
        try catalog.follow(schemaEvent: header)
      } else {
        let placeholder = EventHeader(
          lsn: UInt64(lsn), format: UInt8(format), kind: .upsert, endsCommit: endsCommit, time: time,
          collection: 0, schemaVersion: schemaVersion, row: UInt64(row), previousLSN: previous,
          payload: UnsafeRawBufferPointer(start: nil, count: 0))
        let entry =
          format == 1
          ? try catalog.entry(for: placeholder)
          : try catalog.entries.values.first { $0.name == collectionName }
            ?? { () throws(InputError) -> ReplayCatalog.Entry in
              throw locator.error(
                at: 0, field: "collection",
                "'\(ControlEscaping.excerpt(collectionName))' has no schema event before it")
            }()
        guard let schema = entry.versions.first(where: { $0.version == schemaVersion })?.schema else {
          throw locator.error(
            at: 0, field: "schema_version",
            "\(collectionName) has no version \(schemaVersion) before this event")
        }
        let reader = RecordJSONReader(schema: schema, locator: locator, complete: nil)
        let change: Event.Change
        switch op {
        case "upsert":
          let recordMember = try member("record")
          guard case .object(let record) = recordMember.value else {
            throw locator.error(at: recordMember.offset, field: "record", "expected a record object")
          }
          change = .upsert(
            RecordValues(schema: schema, values: try reader.read(record, at: recordMember.offset)))
        case "delete":
          let keyMember = try member("id")
          guard let key = PrimaryKey(try reader.value(keyMember, schema.primaryKey)) else {
            throw locator.error(at: keyMember.offset, field: "key", "expected the deleted record's key")
          }
          change = .delete(key)
        default:
          throw locator.error(
            at: 0, field: "op",
            "expected \"upsert\", \"delete\" or \"schema\", found \"\(ControlEscaping.excerpt(op))\"")
        }
        let event = Event(
          lsn: UInt64(lsn), time: time, collection: collectionName, schemaVersion: schemaVersion,
          change: change,
          endsCommit: endsCommit, row: UInt64(row), previousLSN: previous)
        bytes = try EventCodec.encode(event, collectionID: format == 1 ? 0 : entry.id)
      }
    } catch let error as InputError {
      throw error
    } catch {
      throw locator.error(at: 0, "the event cannot be encoded: \(error)")
    }
    let checksumMember = try member("checksum")
    guard case .string(let expected) = checksumMember.value,
      expected == hex(bytes.withUnsafeBytes { storedChecksum($0) })
    else {
      throw locator.error(
        at: checksumMember.offset, field: "checksum",
        "does not match the event: the export was damaged or edited (LSN \(lsn))")
    }
    return (UInt64(lsn), bytes)
  }
}

extension LogExport {
  /// Reads a line of `rawLine`'s form back into its log bytes, checking its checksum.
  fileprivate static func parseRaw(
    _ member: JSONObject.Member, lsn: UInt64, catalog: inout ReplayCatalog, locator: SourceLocator
  ) throws(InputError) -> (lsn: UInt64, bytes: [UInt8]) {
    guard case .string(let text) = member.value, let data = Data(base64Encoded: text) else {
      throw locator.error(at: member.offset, field: "event_bytes", "expected the event's bytes in base64")
    }
    let bytes = [UInt8](data)
    do {
      let header = try bytes.withUnsafeBytes { try EventCodec.header($0, lsn: lsn) }
      if header.kind == .schema { _ = try catalog.follow(schemaEvent: header) }
    } catch {
      throw locator.error(
        at: member.offset, field: "event_bytes",
        "does not hold an intact event of LSN \(lsn): the file was damaged or edited; export the event "
          + "again from another copy of the log")
    }
    return (lsn, bytes)
  }
}

/// What an import did.
public struct ImportSummary: Sendable, Hashable {
  /// Events the store already held, identical: skipped.
  public var skipped = 0
  /// Events appended.
  public var appended = 0
  /// The store's version after the import.
  public var version: UInt64 = 0
}

extension Store {
  /// Writes the log from `first` through its end as NDJSON lines to `write` (see `LogExport`);
  /// with `collection`, only that collection's events.
  public func export(from first: UInt64 = 1, collection: String? = nil, _ write: ([UInt8]) throws -> Void)
    throws
  {
    let (snapshot, catalog) = try makeSnapshot()
    try snapshot.read { txn in
      let last = try log.lastLSN(txn)
      try log.forEachRaw(from: max(first, 1), through: last, txn) { lsn, bytes in
        let header = try EventCodec.header(bytes, lsn: lsn)
        let event = try header.event(in: catalog)
        if let collection, event.collection != collection { return true }
        try write(LogExport.line(header, event, checksum: LogExport.storedChecksum(bytes)))
        return true
      }
    }
  }

  /// Imports an export: events at or below the store's version must be identical to the stored
  /// ones and are skipped; the rest must continue the log without a gap. Everything is checked
  /// before anything is written; a gap, a conflict or a damaged line writes nothing.
  public func importEvents(from file: RecordFile) throws -> ImportSummary {
    guard !options.readOnly else { throw StoreError.readOnly(path: directory) }
    var events: [(lsn: UInt64, bytes: [UInt8])] = []
    var catalog: ReplayCatalog?
    let known = try read { _, state in state }
    try file.forEachJSONLine { object, locator in
      if catalog == nil {
        // The collections as they were before the file's first event.
        let first: UInt64 =
          if case .number(let number)? = object["lsn"]?.value, let value = number.integer, value > 0 {
            UInt64(value)
          } else { 1 }
        catalog = ReplayCatalog(known, before: first)
      }
      let (lsn, bytes) = try LogExport.parse(object, catalog: &catalog!, locator: locator)
      if let last = events.last, lsn != last.lsn + 1 {
        throw locator.error(at: 0, field: "lsn", "\(lsn) does not follow \(last.lsn): the export has a gap")
      }
      events.append((lsn, bytes))
    }
    var summary = ImportSummary()
    let version = try self.version()
    try environment.read { txn in
      for event in events where event.lsn <= version {
        guard let stored = try txn.get(log.database, event.lsn), stored.elementsEqual(event.bytes) else {
          throw StoreError.corruptEvent(
            lsn: event.lsn,
            reason: "the import's event differs from the stored one: the logs diverged; nothing was written")
        }
        summary.skipped += 1
      }
    }
    let fresh = events.filter { $0.lsn > version }
    if let first = fresh.first, first.lsn != version + 1 {
      throw StoreError.corruptEvent(
        lsn: first.lsn,
        reason:
          "the store ends at \(version): importing from \(first.lsn) would leave a gap; nothing was written")
    }
    try appendRawEvents(fresh)
    summary.appended = fresh.count
    summary.version = try self.version()
    return summary
  }
}
