import LMDB

/// The stored form of a record in a collection's `records` database:
///
/// ```
/// record: the bytes of `RecordCodec`, exactly as the upsert event holds them
/// checksum: UInt32, little-endian: `CRC32C.laneChecksum` of the record, continuing from the
///           CRC-32C of the row (8 bytes, little-endian)
/// ```
///
/// Events carry checksums of their own, but queries read records from this database, not from
/// the log: without a checksum here a flipped bit in a record reached the caller as a different
/// record (the decoder notices only what breaks the encoding). Covering the row as well catches a
/// value that ended up under another row. Every read goes through `record(at:_:)` or
/// `verifiedRecord(_:row:)`, which hand out the record without its checksum.
extension StoredCollection {
  static let recordChecksumSize = 4

  /// The stored record at `row`, checked against its checksum, pointing into the map.
  func record(at row: UInt64, _ txn: some ReadableTransaction) throws -> UnsafeRawBufferPointer? {
    guard let stored = try txn.get(databases.records, row) else { return nil }
    return try verifiedRecord(stored, row: row)
  }

  /// The record of a value read from `records` at `row` (by a cursor, say), once its checksum holds.
  func verifiedRecord(_ stored: UnsafeRawBufferPointer, row: UInt64) throws -> UnsafeRawBufferPointer {
    let size = stored.count - Self.recordChecksumSize
    guard size > 0 else {
      throw StoreError.corruptState(
        reason: "\(name): the record at row \(row) has only \(stored.count) bytes")
    }
    let record = UnsafeRawBufferPointer(rebasing: stored[..<size])
    let expected = UInt32(littleEndian: stored.loadUnaligned(fromByteOffset: size, as: UInt32.self))
    guard Self.checksum(of: record, row: row) == expected else {
      throw StoreError.corruptState(reason: "\(name): the record at row \(row) fails its checksum")
    }
    return record
  }

  /// Stores `record` at `row` with its checksum.
  func putRecord(
    _ record: UnsafeRawBufferPointer, at row: UInt64, _ txn: WriteTransaction, flags: PutFlags = []
  ) throws {
    try Self.putRecord(record, at: row, in: databases.records, txn, flags: flags)
  }

  static func putRecord(
    _ record: UnsafeRawBufferPointer, at row: UInt64, in records: Database, _ txn: WriteTransaction,
    flags: PutFlags = []
  ) throws {
    try txn.put(records, row, reserving: record.count + recordChecksumSize, flags: flags) { target in
      if let base = record.baseAddress, record.count > 0 {
        target.baseAddress?.copyMemory(from: base, byteCount: record.count)
      }
      target.storeBytes(
        of: checksum(of: record, row: row).littleEndian, toByteOffset: record.count, as: UInt32.self)
    }
  }

  static func checksum(of record: UnsafeRawBufferPointer, row: UInt64) -> UInt32 {
    var row = row.littleEndian
    let crc = withUnsafeBytes(of: &row) { CRC32C.checksum($0) }
    return CRC32C.laneChecksum(record, continuing: crc)
  }
}
