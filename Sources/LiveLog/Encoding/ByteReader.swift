/// Why a binary value could not be decoded.
struct MalformedBytes: Error, CustomStringConvertible {
  var offset: Int
  var reason: String
  var description: String { "byte \(offset): \(reason)" }
}

/// Reads what `ByteWriter` wrote, never past the end and never trusting a length.
struct ByteReader {
  let bytes: UnsafeRawBufferPointer
  private(set) var offset: Int

  init(_ bytes: UnsafeRawBufferPointer, offset: Int = 0) {
    self.bytes = bytes
    self.offset = offset
  }

  var isAtEnd: Bool { offset >= bytes.count }
  var remaining: Int { bytes.count - offset }

  mutating func readByte() throws(MalformedBytes) -> UInt8 {
    guard offset < bytes.count else { throw MalformedBytes(offset: offset, reason: "unexpected end") }
    defer { offset += 1 }
    return bytes[offset]
  }

  mutating func readVarint() throws(MalformedBytes) -> UInt64 {
    var result: UInt64 = 0
    var shift: UInt64 = 0
    while true {
      let start = offset
      let byte = try readByte()
      if shift == 63 && byte > 1 { throw MalformedBytes(offset: start, reason: "varint overflows 64 bits") }
      result |= UInt64(byte & 0x7F) << shift
      if byte < 0x80 { return result }
      shift += 7
      if shift > 63 { throw MalformedBytes(offset: start, reason: "varint longer than 10 bytes") }
    }
  }

  mutating func readSigned() throws(MalformedBytes) -> Int64 {
    let raw = try readVarint()
    return Int64(bitPattern: raw >> 1) ^ -Int64(bitPattern: raw & 1)
  }

  mutating func readFixed64() throws(MalformedBytes) -> UInt64 {
    guard remaining >= 8 else { throw MalformedBytes(offset: offset, reason: "unexpected end") }
    defer { offset += 8 }
    return UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
  }

  mutating func readFixed32() throws(MalformedBytes) -> UInt32 {
    guard remaining >= 4 else { throw MalformedBytes(offset: offset, reason: "unexpected end") }
    defer { offset += 4 }
    return UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
  }

  /// A length-prefixed byte run, without copying.
  mutating func readLengthPrefixed() throws(MalformedBytes) -> UnsafeRawBufferPointer {
    let start = offset
    let length = try readVarint()
    guard length <= UInt64(remaining) else {
      throw MalformedBytes(offset: start, reason: "length \(length) runs past the end")
    }
    defer { offset += Int(length) }
    return UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + Int(length)])
  }

  /// A length-prefixed string, which must be valid UTF-8.
  mutating func readString() throws(MalformedBytes) -> String {
    let start = offset
    let run = try readLengthPrefixed()
    guard let string = run.withMemoryRebound(to: UInt8.self, String.validated(utf8:)) else {
      throw MalformedBytes(offset: start, reason: "string is not valid UTF-8")
    }
    return string
  }

  /// Moves past a length-prefixed string, checking that it is valid UTF-8 as `readString` does,
  /// without making it.
  mutating func checkString() throws(MalformedBytes) {
    let start = offset
    let run = try readLengthPrefixed()
    guard run.withMemoryRebound(to: UInt8.self, String.isValid(utf8:)) else {
      throw MalformedBytes(offset: start, reason: "string is not valid UTF-8")
    }
  }

  /// Skips a length-prefixed run.
  mutating func skipLengthPrefixed() throws(MalformedBytes) {
    _ = try readLengthPrefixed()
  }
}
