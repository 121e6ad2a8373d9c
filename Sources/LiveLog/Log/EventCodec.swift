import Foundation

/// The binary form of an event in the `log` database.
///
/// ```
/// offset 0  format version  UInt8 (1)
///        1  kind            UInt8: 1 upsert, 2 delete
///        2  flags           UInt8: bit 0 = last event of its commit
///        3  time            Int64 LE, microseconds since 1970
///       11  row             varint: the repository's place in insertion order
///        …  previous        varint: LSN of the id's version this event replaces (0: none)
///        …  payload         upsert: the record (RecordCodec) · delete: the id as a zigzag varint
///   end-4   checksum        CRC-32C LE of the LSN (UInt64 LE) followed by bytes 0 ..< end-4
/// ```
///
/// The row and the previous version make the log self-describing: a reader that follows it (a
/// watcher in another process, an as-of query, a replay) knows each event's place in result
/// order and the version it replaced without asking the materialized state.
///
/// The LSN is the database key, not part of the value, but it is in the checksum: an event
/// written under the wrong key fails verification like a flipped bit does.
enum EventCodec {
  static let version: UInt8 = 1
  static let fixedHeaderSize = 11
  static let checksumSize = 4

  static let upsertKind: UInt8 = 1
  static let deleteKind: UInt8 = 2

  /// The first part of an upsert event: header and record, not yet sealed. The record is
  /// `bytes[recordStart...]`; `seal` sets the commit flag and appends the checksum once the LSN
  /// and the commit's end are known. One buffer serves the log and the `records` database.
  static func beginUpsert(_ repository: Repository, time: CommitTime, row: UInt64, previous: UInt64)
    -> (bytes: [UInt8], recordStart: Int)
  {
    let header =
      fixedHeaderSize + SizedByteWriter.varintSize(row) + SizedByteWriter.varintSize(previous)
    let size = header + RecordCodec.encodedSize(repository)
    // Room for the checksum, so that sealing never reallocates.
    let bytes = [UInt8](unsafeUninitializedCapacity: size + checksumSize) { buffer, count in
      var writer = SizedByteWriter(buffer)
      writer.append(version)
      writer.append(upsertKind)
      writer.append(0)
      writer.appendFixed64(UInt64(bitPattern: time.microsecondsSince1970))
      writer.appendVarint(row)
      writer.appendVarint(previous)
      RecordCodec.encode(repository, into: &writer)
      count = writer.offset
    }
    return (bytes, header)
  }

  /// Whether `bytes[start...]` (a record inside an unsealed event) equals `stored`.
  static func record(in event: [UInt8], from start: Int, equals stored: UnsafeRawBufferPointer) -> Bool {
    event.withUnsafeBytes { bytes in
      let record = UnsafeRawBufferPointer(rebasing: bytes[start...])
      guard record.count == stored.count else { return false }
      guard let a = record.baseAddress, let b = stored.baseAddress else { return record.count == 0 }
      return memcmp(a, b, record.count) == 0
    }
  }

  /// Finishes an event begun by `beginUpsert`.
  static func seal(_ bytes: inout [UInt8], lsn: UInt64, endsCommit: Bool) {
    bytes[2] = endsCommit ? 1 : 0
    let crc = checksum(lsn: lsn, body: bytes)
    withUnsafeBytes(of: crc.littleEndian) { bytes.append(contentsOf: $0) }
  }

  static func encodeDelete(
    id: Int64, lsn: UInt64, time: CommitTime, endsCommit: Bool, row: UInt64, previous: UInt64
  )
    -> [UInt8]
  {
    var writer = ByteWriter(capacity: fixedHeaderSize + 30 + checksumSize)
    writeHeader(&writer, kind: deleteKind, time: time, endsCommit: endsCommit)
    writer.appendVarint(row)
    writer.appendVarint(previous)
    writer.appendSigned(id)
    return seal(writer, lsn: lsn)
  }

  static func encode(_ event: Event) -> [UInt8] {
    switch event.mutation {
    case .upsert(let repository):
      var bytes = beginUpsert(repository, time: event.time, row: event.row, previous: event.previousLSN ?? 0)
        .bytes
      seal(&bytes, lsn: event.lsn, endsCommit: event.endsCommit)
      return bytes
    case .delete(let id):
      return encodeDelete(
        id: id, lsn: event.lsn, time: event.time, endsCommit: event.endsCommit, row: event.row,
        previous: event.previousLSN ?? 0)
    }
  }

  private static func writeHeader(_ writer: inout ByteWriter, kind: UInt8, time: CommitTime, endsCommit: Bool)
  {
    writer.append(version)
    writer.append(kind)
    writer.append(endsCommit ? 1 : 0)
    writer.appendFixed64(UInt64(bitPattern: time.microsecondsSince1970))
  }

  private static func seal(_ writer: ByteWriter, lsn: UInt64) -> [UInt8] {
    var writer = writer
    let crc = checksum(lsn: lsn, body: writer.bytes)
    writer.appendFixed32(crc)
    return writer.bytes
  }

  private static func checksum(lsn: UInt64, body: [UInt8]) -> UInt32 {
    body.withUnsafeBytes { checksum(lsn: lsn, body: $0) }
  }

  private static func checksum(lsn: UInt64, body: UnsafeRawBufferPointer) -> UInt32 {
    let prefix = withUnsafeBytes(of: lsn.littleEndian) { CRC32C.checksum($0) }
    return CRC32C.checksum(body, continuing: prefix)
  }

  /// Checks an event's version, length and checksum, and reads its header.
  static func header(_ bytes: UnsafeRawBufferPointer, lsn: UInt64) throws(StoreError) -> EventHeader {
    func corrupt(_ reason: String) -> StoreError { .corruptEvent(lsn: lsn, reason: reason) }
    guard bytes.count >= fixedHeaderSize + 2 + checksumSize else {
      throw corrupt("\(bytes.count) bytes is shorter than any event")
    }
    guard bytes[0] == version else {
      throw corrupt("event format version \(bytes[0]); this LiveLog reads version \(version)")
    }
    let bodyEnd = bytes.count - checksumSize
    let body = UnsafeRawBufferPointer(rebasing: bytes[0..<bodyEnd])
    let stored = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: bodyEnd, as: UInt32.self))
    guard checksum(lsn: lsn, body: body) == stored else {
      throw corrupt("checksum mismatch: the event was damaged or written under another LSN")
    }
    let flags = bytes[2]
    guard flags & ~1 == 0 else { throw corrupt("unknown flags \(flags)") }
    guard bytes[1] == upsertKind || bytes[1] == deleteKind else {
      throw corrupt("unknown event kind \(bytes[1])")
    }
    var reader = ByteReader(body, offset: 3)
    do {
      let time = CommitTime(microsecondsSince1970: Int64(bitPattern: try reader.readFixed64()))
      let row = try reader.readVarint()
      let previous = try reader.readVarint()
      guard previous < lsn else { throw corrupt("previous version \(previous) is not before the event") }
      return EventHeader(
        lsn: lsn, isUpsert: bytes[1] == upsertKind, endsCommit: flags & 1 == 1, time: time, row: row,
        previousLSN: previous == 0 ? nil : previous,
        payload: UnsafeRawBufferPointer(rebasing: body[reader.offset...]))
    } catch let error as MalformedBytes {
      throw corrupt(error.description)
    } catch let error as StoreError {
      throw error
    } catch {
      throw corrupt("\(error)")
    }
  }

  /// Checks and decodes the event stored under `lsn`.
  static func decode(_ bytes: UnsafeRawBufferPointer, lsn: UInt64) throws(StoreError) -> Event {
    let header = try header(bytes, lsn: lsn)
    func corrupt(_ reason: String) -> StoreError { .corruptEvent(lsn: lsn, reason: reason) }
    let mutation: Mutation
    if header.isUpsert {
      let values: [FieldValue]
      do {
        values = try RecordCodec.decode(header.payload, schema: Repository.schema)
      } catch {
        throw corrupt(error.description)
      }
      guard let repository = Repository(fieldValues: values) else {
        throw corrupt("the record lacks an id or a full name")
      }
      mutation = .upsert(repository)
    } else {
      var reader = ByteReader(header.payload)
      do {
        mutation = .delete(id: try reader.readSigned())
      } catch {
        throw corrupt(error.description)
      }
      guard reader.isAtEnd else { throw corrupt("\(reader.remaining) unexpected bytes after a delete") }
    }
    return Event(
      lsn: lsn, time: header.time, mutation: mutation, endsCommit: header.endsCommit, row: header.row,
      previousLSN: header.previousLSN)
  }
}

/// An event's header and undecoded payload, pointing into the map: what followers of the log read
/// for every event, before deciding whether to decode its record.
struct EventHeader {
  var lsn: UInt64
  var isUpsert: Bool
  var endsCommit: Bool
  var time: CommitTime
  var row: UInt64
  var previousLSN: UInt64?
  /// The record (upserts) or the zigzag id (deletes).
  var payload: UnsafeRawBufferPointer

  /// The id the event concerns, read without decoding the rest of the record.
  func id() throws(StoreError) -> Int64 {
    if isUpsert {
      do {
        return try RecordView(bytes: payload, row: Row(truncatingIfNeeded: row)).id()
      } catch {
        throw .corruptEvent(lsn: lsn, reason: "\(error)")
      }
    }
    var reader = ByteReader(payload)
    do {
      return try reader.readSigned()
    } catch {
      throw .corruptEvent(lsn: lsn, reason: error.description)
    }
  }
}
