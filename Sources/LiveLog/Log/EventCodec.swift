import Foundation

/// The binary form of an event in the `log` database.
///
/// ```
/// offset 0  format version  UInt8: 2 (1 for events of stores of format 1)
///        1  kind            UInt8: 1 upsert, 2 delete, 3 schema
///        2  flags           UInt8: bit 0 = last event of its commit
///        3  time            Int64 LE, microseconds since 1970
///       11  collection      varint: the collection's id          (format 2 only)
///        …  schema version  varint: the collection's schema version (format 2 only)
///        …  row             varint: the record's place in insertion order (0 for schema events)
///        …  previous        varint: LSN of the version this event replaces (0: none)
///        …  payload         upsert: the record (RecordCodec)
///                           delete: the key, one RecordCodec value (format 1: a zigzag varint)
///                           schema: the schema's stored JSON form
///   end-4   checksum        CRC-32C LE of the LSN (UInt64 LE) followed by bytes 0 ..< end-4
/// ```
///
/// An event of format 1 names no collection: it belongs to `repositories`, schema version 1
/// (`LegacySchemas.repositoriesV1`), and reads so forever. The row and the previous version make
/// the log self-describing: a reader that follows it (a watcher in another process, an as-of
/// query, a replay) knows each event's place in result order and the version it replaced
/// without asking the materialized state.
///
/// The LSN is the database key, not part of the value, but it is in the checksum: an event
/// written under the wrong key fails verification like a flipped bit does.
enum EventCodec {
  static let version: UInt8 = 2
  static let legacyVersion: UInt8 = 1
  static let fixedHeaderSize = 11
  static let checksumSize = 4

  enum Kind: UInt8 {
    case upsert = 1, delete, schema
  }

  /// Where an event goes: its collection and schema version, and its place in the collection.
  struct Target {
    var collection: UInt32
    var schemaVersion: Int
    var row: UInt64
    var previous: UInt64
  }

  private static func beginEvent(_ kind: Kind, time: CommitTime, _ target: Target, capacity: Int)
    -> ByteWriter
  {
    var writer = ByteWriter(capacity: fixedHeaderSize + 24 + capacity + checksumSize)
    writer.append(version)
    writer.append(kind.rawValue)
    writer.append(0)
    writer.appendFixed64(UInt64(bitPattern: time.microsecondsSince1970))
    writer.appendVarint(UInt64(target.collection))
    writer.appendVarint(UInt64(target.schemaVersion))
    writer.appendVarint(target.row)
    writer.appendVarint(target.previous)
    return writer
  }

  /// The first part of an upsert event: header and record (values by slot), not yet sealed.
  /// The record is `bytes[recordStart...]`; `seal` sets the commit flag and appends the
  /// checksum once the LSN and the commit's end are known. The event is the record's only copy.
  static func beginUpsert(_ values: [FieldValue], time: CommitTime, _ target: Target)
    -> (bytes: [UInt8], recordStart: Int)
  {
    var writer = beginEvent(.upsert, time: time, target, capacity: 256)
    let start = writer.bytes.count
    RecordCodec.encode(values, into: &writer)
    return (writer.bytes, start)
  }

  /// `beginUpsert` of a record already encoded (`RecordCodec.encode`).
  static func beginUpsert(record: [UInt8], time: CommitTime, _ target: Target)
    -> (bytes: [UInt8], recordStart: Int)
  {
    var writer = beginEvent(.upsert, time: time, target, capacity: record.count)
    let start = writer.bytes.count
    writer.append(contentsOf: record)
    return (writer.bytes, start)
  }

  /// A delete event, not yet sealed.
  static func beginDelete(_ key: PrimaryKey, time: CommitTime, _ target: Target) -> [UInt8] {
    var writer = beginEvent(.delete, time: time, target, capacity: 24)
    RecordCodec.encode(key.fieldValue, into: &writer)
    return writer.bytes
  }

  /// A schema event, not yet sealed: `target.row` is 0 and `target.previous` the LSN of the
  /// schema's previous version (0 for a new collection).
  static func beginSchema(_ schema: CollectionSchema, time: CommitTime, _ target: Target) -> [UInt8] {
    let json = schema.jsonBytes(slots: true)
    var writer = beginEvent(.schema, time: time, target, capacity: json.count)
    writer.append(contentsOf: json)
    return writer.bytes
  }

  /// Finishes an event begun by `beginUpsert`, `beginDelete` or `beginSchema`.
  static func seal(_ bytes: inout [UInt8], lsn: UInt64, endsCommit: Bool) {
    bytes[2] = endsCommit ? 1 : 0
    let crc = bytes.withUnsafeBytes { checksum(lsn: lsn, body: $0) }
    withUnsafeBytes(of: crc.littleEndian) { bytes.append(contentsOf: $0) }
  }

  static func checksum(lsn: UInt64, body: UnsafeRawBufferPointer) -> UInt32 {
    let prefix = withUnsafeBytes(of: lsn.littleEndian) { CRC32C.checksum($0) }
    return CRC32C.checksum(body, continuing: prefix)
  }

  /// Encodes `event` as it would be stored, in its own format: format 1 for the events of
  /// `repositories` at schema version 1 that the legacy collection id marks (`collectionID` 0).
  static func encode(_ event: Event, collectionID: UInt32) throws(StoreError) -> [UInt8] {
    let target = Target(
      collection: collectionID, schemaVersion: event.schemaVersion, row: event.row,
      previous: event.previousLSN ?? 0)
    var bytes: [UInt8]
    if collectionID == 0 {
      bytes = try encodeLegacy(event)
    } else {
      switch event.change {
      case .upsert(let record): bytes = beginUpsert(record.values, time: event.time, target).bytes
      case .delete(let key): bytes = beginDelete(key, time: event.time, target)
      case .schema(let schema): bytes = beginSchema(schema, time: event.time, target)
      }
    }
    seal(&bytes, lsn: event.lsn, endsCommit: event.endsCommit)
    return bytes
  }

  /// The unsealed format-1 form of a `repositories` event.
  private static func encodeLegacy(_ event: Event) throws(StoreError) -> [UInt8] {
    var writer = ByteWriter(capacity: 256)
    writer.append(legacyVersion)
    let kind: Kind
    switch event.change {
    case .upsert: kind = .upsert
    case .delete: kind = .delete
    case .schema: throw .corruptEvent(lsn: event.lsn, reason: "events of format 1 cannot change a schema")
    }
    writer.append(kind.rawValue)
    writer.append(0)
    writer.appendFixed64(UInt64(bitPattern: event.time.microsecondsSince1970))
    writer.appendVarint(event.row)
    writer.appendVarint(event.previousLSN ?? 0)
    switch event.change {
    case .upsert(let record): RecordCodec.encode(record.values, into: &writer)
    case .delete(.integer(let id)): writer.appendSigned(id)
    default: throw .corruptEvent(lsn: event.lsn, reason: "an event of format 1 deletes an integer key")
    }
    return writer.bytes
  }

  /// Checks an event's version, length and checksum, and reads its header.
  static func header(_ bytes: UnsafeRawBufferPointer, lsn: UInt64) throws(StoreError) -> EventHeader {
    func corrupt(_ reason: String) -> StoreError { .corruptEvent(lsn: lsn, reason: reason) }
    guard bytes.count >= fixedHeaderSize + 2 + checksumSize else {
      throw corrupt("\(bytes.count) bytes is shorter than any event")
    }
    let format = bytes[0]
    guard format == version || format == legacyVersion else {
      throw corrupt("event format version \(format); this LiveLog reads versions 1 and \(version)")
    }
    let bodyEnd = bytes.count - checksumSize
    let body = UnsafeRawBufferPointer(rebasing: bytes[0..<bodyEnd])
    let stored = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: bodyEnd, as: UInt32.self))
    guard checksum(lsn: lsn, body: body) == stored else {
      throw corrupt("checksum mismatch: the event was damaged or written under another LSN")
    }
    let flags = bytes[2]
    guard flags & ~1 == 0 else { throw corrupt("unknown flags \(flags)") }
    guard let kind = Kind(rawValue: bytes[1]), format == version || kind != .schema else {
      throw corrupt("unknown event kind \(bytes[1])")
    }
    var reader = ByteReader(body, offset: 3)
    do {
      let time = CommitTime(microsecondsSince1970: Int64(bitPattern: try reader.readFixed64()))
      var collection: UInt32 = 0
      var schemaVersion = 1
      if format == version {
        let id = try reader.readVarint()
        let versionNumber = try reader.readVarint()
        guard id >= 1, id <= UInt64(UInt32.max), versionNumber >= 1, versionNumber <= UInt64(Int32.max) else {
          throw corrupt("collection \(id), schema version \(versionNumber) is out of range")
        }
        collection = UInt32(id)
        schemaVersion = Int(versionNumber)
      }
      let row = try reader.readVarint()
      let previous = try reader.readVarint()
      guard previous < lsn else { throw corrupt("previous version \(previous) is not before the event") }
      return EventHeader(
        lsn: lsn, format: format, kind: kind, endsCommit: flags & 1 == 1, time: time, collection: collection,
        schemaVersion: schemaVersion, row: row, previousLSN: previous == 0 ? nil : previous,
        payload: UnsafeRawBufferPointer(rebasing: body[reader.offset...]))
    } catch let error as MalformedBytes {
      throw corrupt(error.description)
    } catch let error as StoreError {
      throw error
    } catch {
      throw corrupt("\(error)")
    }
  }
}

/// An event's header and undecoded payload, pointing into the map: what followers of the log read
/// for every event, before deciding whether to decode its record.
struct EventHeader {
  var lsn: UInt64
  /// 1 or 2 (`EventCodec`).
  var format: UInt8
  var kind: EventCodec.Kind
  var endsCommit: Bool
  var time: CommitTime
  /// The collection's id; 0 for format 1, whose events are all `repositories`'.
  var collection: UInt32
  var schemaVersion: Int
  var row: UInt64
  var previousLSN: UInt64?
  /// The record (upserts), the key (deletes) or the schema (schema events).
  var payload: UnsafeRawBufferPointer

  var isUpsert: Bool { kind == .upsert }

  /// The key of a delete, read from the payload.
  func deletedKey() throws(StoreError) -> PrimaryKey {
    var reader = ByteReader(payload)
    do {
      let key: PrimaryKey?
      if format == EventCodec.legacyVersion {
        key = .integer(try reader.readSigned())
      } else {
        key = PrimaryKey(try RecordCodec.readValue(&reader))
      }
      guard let key else {
        throw MalformedBytes(offset: 0, reason: "a delete's key is neither an integer nor a string")
      }
      guard reader.isAtEnd else {
        throw MalformedBytes(
          offset: reader.offset, reason: "\(reader.remaining) unexpected bytes after a delete")
      }
      return key
    } catch let error as MalformedBytes {
      throw .corruptEvent(lsn: lsn, reason: error.description)
    } catch {
      throw .corruptEvent(lsn: lsn, reason: "\(error)")
    }
  }

  /// The key the event concerns, read without decoding the rest of the record; `keyField` is
  /// the collection's primary key.
  func key(_ keyField: Field) throws(StoreError) -> PrimaryKey {
    switch kind {
    case .delete: return try deletedKey()
    case .upsert:
      do {
        return try RecordView(bytes: payload, row: Row(truncatingIfNeeded: row)).key(keyField)
      } catch {
        throw .corruptEvent(lsn: lsn, reason: "\(error)")
      }
    case .schema:
      throw .corruptEvent(lsn: lsn, reason: "a schema event concerns no record")
    }
  }

  /// The schema a schema event carries.
  func schema() throws(StoreError) -> CollectionSchema {
    do {
      return try CollectionSchema.stored(payload)
    } catch {
      throw .corruptEvent(lsn: lsn, reason: "its schema: \(error)")
    }
  }
}
