import Foundation
@_spi(Replication) import LiveLog

/// Where a snapshot stands in its stream: the position stamped on it.
public struct SnapshotStamp: Sendable, Hashable {
  /// The stream the store replicated through.
  public var stream: String
  /// The stream sequence of the last commit in the snapshot.
  public var sequence: UInt64
  /// The store's version (the LSN of its last event) in the snapshot.
  public var version: UInt64
  /// The stored checksum of that last event (CRC-32C; 0 for an empty log).
  public var lastChecksum: UInt32

  public init(stream: String, sequence: UInt64, version: UInt64, lastChecksum: UInt32) {
    self.stream = stream
    self.sequence = sequence
    self.version = version
    self.lastChecksum = lastChecksum
  }
}

/// A snapshot file: a header with its stamp, then a compacted LMDB data file, then the
/// CRC-32C of that data file.
///
/// | bytes | what |
/// | --- | --- |
/// | 16 | `LiveLogSnapshot1` |
/// | 2 + n | the stream's name (length, little-endian, then UTF-8) |
/// | 8, 8, 4 | sequence, version, last checksum (little-endian) |
/// | 8 | the data file's length |
/// | 4 | CRC-32C of every header byte before it |
/// | length | the data file |
/// | 4 | CRC-32C of the data file |
enum SnapshotFile {
  static let magic = Array("LiveLogSnapshot1".utf8)
  static let chunk = 1 << 20

  /// Writes the snapshot of `stamp` whose data file is `dataFile` at `path`, through a
  /// temporary file renamed into place once it is synced.
  static func write(_ stamp: SnapshotStamp, dataFile: String, to path: String) throws {
    let manager = FileManager.default
    guard let attributes = try? manager.attributesOfItem(atPath: dataFile),
      let length = (attributes[.size] as? NSNumber)?.uint64Value,
      let input = FileHandle(forReadingAtPath: dataFile)
    else { throw ReplicationError.badSnapshot(path: dataFile, reason: "the store's copy cannot be read") }
    defer { try? input.close() }
    let temporary = path + ".partial"
    guard manager.createFile(atPath: temporary, contents: nil),
      let output = FileHandle(forWritingAtPath: temporary)
    else { throw ReplicationError.badSnapshot(path: path, reason: "the file cannot be created") }
    do {
      defer { try? output.close() }
      try output.write(contentsOf: header(stamp, dataLength: length))
      var crc: UInt32 = 0
      var copied: UInt64 = 0
      while let data = try input.read(upToCount: chunk), !data.isEmpty {
        crc = data.withUnsafeBytes { Checksum.crc32c($0, continuing: crc) }
        copied += UInt64(data.count)
        try output.write(contentsOf: data)
      }
      guard copied == length else {
        throw ReplicationError.badSnapshot(
          path: dataFile, reason: "the store's copy changed while it was read")
      }
      try output.write(contentsOf: littleEndian(crc))
      try output.synchronize()
      try output.close()
      guard rename(temporary, path) == 0 else {
        throw ReplicationError.badSnapshot(
          path: path,
          reason: "the finished file could not be renamed into place (\(String(cString: strerror(errno))))")
      }
    } catch {
      try? manager.removeItem(atPath: temporary)
      throw error
    }
  }

  /// The stamp of the snapshot at `path`, after checking its header and that the file is as
  /// long as the header says.
  static func stamp(_ path: String) throws -> (stamp: SnapshotStamp, dataOffset: UInt64, dataLength: UInt64) {
    let bad = { (reason: String) in ReplicationError.badSnapshot(path: path, reason: reason) }
    guard let input = FileHandle(forReadingAtPath: path) else { throw bad("it cannot be opened") }
    defer { try? input.close() }
    let fixed = magic.count + 2
    guard let start = try input.read(upToCount: fixed), start.count == fixed else {
      throw bad("it is shorter than a snapshot's header")
    }
    guard Array(start.prefix(magic.count)) == magic else {
      throw bad("it does not start as a LiveLog snapshot")
    }
    let nameLength = Int(UInt16(start[magic.count]) | UInt16(start[magic.count + 1]) << 8)
    let rest = nameLength + 8 + 8 + 4 + 8 + 4
    guard let tail = try input.read(upToCount: rest), tail.count == rest else {
      throw bad("it ends inside its header")
    }
    let header = Array(start) + Array(tail)
    var reader = FieldReader(bytes: header, offset: fixed)
    let stream = String(decoding: reader.bytes(nameLength), as: UTF8.self)
    let stamp = SnapshotStamp(
      stream: stream, sequence: reader.uint64(), version: reader.uint64(), lastChecksum: reader.uint32())
    let dataLength = reader.uint64()
    let stored = reader.uint32()
    let computed = header.withUnsafeBytes {
      Checksum.crc32c(UnsafeRawBufferPointer(rebasing: $0.dropLast(4)))
    }
    guard stored == computed else { throw bad("its header's checksum does not match (the file is damaged)") }
    let size = try input.seekToEnd()
    let expected = UInt64(header.count) + dataLength + 4
    guard size == expected else {
      throw bad(
        "it has \(size) bytes, but its header says \(expected)"
          + (size < expected ? " (the file is truncated)" : " (bytes were added after its end)"))
    }
    return (stamp, UInt64(header.count), dataLength)
  }

  /// Copies the snapshot's data file to `dataFile`, checking its checksum on the way; throws
  /// (leaving a partial `dataFile`) when it does not match.
  static func copyData(of path: String, at offset: UInt64, length: UInt64, to dataFile: String) throws {
    let bad = { (reason: String) in ReplicationError.badSnapshot(path: path, reason: reason) }
    guard let input = FileHandle(forReadingAtPath: path) else { throw bad("it cannot be opened") }
    defer { try? input.close() }
    guard FileManager.default.createFile(atPath: dataFile, contents: nil),
      let output = FileHandle(forWritingAtPath: dataFile)
    else {
      throw ReplicationError.badSnapshot(path: dataFile, reason: "the store's data file cannot be created")
    }
    defer { try? output.close() }
    try input.seek(toOffset: offset)
    var crc: UInt32 = 0
    var remaining = length
    while remaining > 0 {
      guard let data = try input.read(upToCount: Int(min(UInt64(chunk), remaining))), !data.isEmpty else {
        throw bad("it ends inside its data")
      }
      crc = data.withUnsafeBytes { Checksum.crc32c($0, continuing: crc) }
      remaining -= UInt64(data.count)
      try output.write(contentsOf: data)
    }
    guard let trailer = try input.read(upToCount: 4), trailer.count == 4 else {
      throw bad("it has no checksum")
    }
    var reader = FieldReader(bytes: Array(trailer), offset: 0)
    guard reader.uint32() == crc else {
      throw bad("its data's checksum does not match (the file is damaged); nothing was restored")
    }
    try output.synchronize()
  }

  private static func header(_ stamp: SnapshotStamp, dataLength: UInt64) -> Data {
    var bytes = magic
    let name = Array(stamp.stream.utf8)
    bytes += littleEndian(UInt16(name.count)) + name
    bytes += littleEndian(stamp.sequence) + littleEndian(stamp.version) + littleEndian(stamp.lastChecksum)
    bytes += littleEndian(dataLength)
    bytes += littleEndian(bytes.withUnsafeBytes { Checksum.crc32c($0) })
    return Data(bytes)
  }

  private static func littleEndian<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
    withUnsafeBytes(of: value.littleEndian) { Array($0) }
  }

  /// Reads little-endian fields from bytes whose length was checked before.
  private struct FieldReader {
    var bytes: [UInt8]
    var offset: Int

    mutating func bytes(_ count: Int) -> [UInt8] {
      defer { offset += count }
      return Array(bytes[offset..<offset + count])
    }

    mutating func uint64() -> UInt64 { bytes(8).reversed().reduce(0) { $0 << 8 | UInt64($1) } }
    mutating func uint32() -> UInt32 { bytes(4).reversed().reduce(0) { $0 << 8 | UInt32($1) } }
  }
}
