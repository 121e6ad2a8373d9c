import Foundation

/// The binary form of an event in the `log` database.
///
/// ```
/// offset 0  format version  UInt8 (1)
///        1  kind            UInt8: 1 upsert, 2 delete
///        2  flags           UInt8: bit 0 = last event of its commit
///        3  time            Int64 LE, microseconds since 1970
///       11  payload         upsert: the record (RecordCodec) · delete: the id as a zigzag varint
///   end-4   checksum        CRC-32C LE of the LSN (UInt64 LE) followed by bytes 0 ..< end-4
/// ```
///
/// The LSN is the database key, not part of the value, but it is in the checksum: an event
/// written under the wrong key fails verification like a flipped bit does.
enum EventCodec {
  static let version: UInt8 = 1
  static let headerSize = 11
  static let checksumSize = 4

  private static let upsertKind: UInt8 = 1
  private static let deleteKind: UInt8 = 2

  /// The first part of an upsert event: its header and record, not yet sealed. The record is
  /// `bytes[headerSize...]`; `seal` sets the commit flag and appends the checksum once the LSN
  /// and the commit's end are known. One buffer serves the log and the `records` database.
  static func beginUpsert(_ repository: Repository, time: CommitTime) -> [UInt8] {
    let size = headerSize + RecordCodec.encodedSize(repository)
    // Room for the checksum, so that sealing never reallocates.
    return [UInt8](unsafeUninitializedCapacity: size + checksumSize) { buffer, count in
      var writer = SizedByteWriter(buffer)
      writer.append(version)
      writer.append(upsertKind)
      writer.append(0)
      writer.appendFixed64(UInt64(bitPattern: time.microsecondsSince1970))
      RecordCodec.encode(repository, into: &writer)
      count = writer.offset
    }
  }

  /// Whether the record of an event begun by `beginUpsert` has exactly the bytes `stored`.
  static func record(in event: [UInt8], equals stored: UnsafeRawBufferPointer) -> Bool {
    event.withUnsafeBytes { bytes in
      let record = UnsafeRawBufferPointer(rebasing: bytes[headerSize...])
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

  static func encodeDelete(id: Int64, lsn: UInt64, time: CommitTime, endsCommit: Bool) -> [UInt8] {
    var writer = ByteWriter(capacity: headerSize + 10 + checksumSize)
    writeHeader(&writer, kind: deleteKind, time: time, endsCommit: endsCommit)
    writer.appendSigned(id)
    return seal(writer, lsn: lsn)
  }

  static func encode(_ event: Event) -> [UInt8] {
    switch event.mutation {
    case .upsert(let repository):
      var bytes = beginUpsert(repository, time: event.time)
      seal(&bytes, lsn: event.lsn, endsCommit: event.endsCommit)
      return bytes
    case .delete(let id):
      return encodeDelete(id: id, lsn: event.lsn, time: event.time, endsCommit: event.endsCommit)
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

  /// Checks and decodes the event stored under `lsn`.
  static func decode(_ bytes: UnsafeRawBufferPointer, lsn: UInt64) throws(StoreError) -> Event {
    func corrupt(_ reason: String) -> StoreError { .corruptEvent(lsn: lsn, reason: reason) }
    guard bytes.count >= headerSize + checksumSize else {
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
    var reader = ByteReader(body, offset: 3)
    do {
      let time = CommitTime(microsecondsSince1970: Int64(bitPattern: try reader.readFixed64()))
      let mutation: Mutation
      switch bytes[1] {
      case upsertKind:
        let payload = UnsafeRawBufferPointer(rebasing: body[headerSize...])
        let values = try RecordCodec.decode(payload, schema: Repository.schema)
        guard let repository = Repository(fieldValues: values) else {
          throw corrupt("the record lacks an id or a full name")
        }
        mutation = .upsert(repository)
      case deleteKind:
        mutation = .delete(id: try reader.readSigned())
        guard reader.isAtEnd else { throw corrupt("\(reader.remaining) unexpected bytes after a delete") }
      default:
        throw corrupt("unknown event kind \(bytes[1])")
      }
      return Event(lsn: lsn, time: time, mutation: mutation, endsCommit: flags & 1 == 1)
    } catch let error as MalformedBytes {
      throw corrupt(error.description)
    } catch let error as StoreError {
      throw error
    } catch {
      throw corrupt("\(error)")
    }
  }
}
