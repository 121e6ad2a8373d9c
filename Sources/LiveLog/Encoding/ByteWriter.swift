/// Appends the primitives of LiveLog's binary encodings: LEB128 varints, zigzag for signed
/// values, little-endian fixed widths and length-prefixed UTF-8.
struct ByteWriter {
  private(set) var bytes: [UInt8]

  init(capacity: Int = 256) {
    bytes = []
    bytes.reserveCapacity(capacity)
  }

  mutating func append(_ byte: UInt8) { bytes.append(byte) }

  mutating func append(contentsOf other: some Sequence<UInt8>) { bytes.append(contentsOf: other) }

  mutating func appendVarint(_ value: UInt64) {
    var value = value
    while value >= 0x80 {
      bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
      value >>= 7
    }
    bytes.append(UInt8(value))
  }

  /// Signed values as zigzag varints, so small negatives stay short.
  mutating func appendSigned(_ value: Int64) {
    appendVarint(UInt64(bitPattern: (value << 1) ^ (value >> 63)))
  }

  mutating func appendFixed64(_ value: UInt64) {
    withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
  }

  mutating func appendFixed32(_ value: UInt32) {
    withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
  }

  mutating func appendString(_ string: String) {
    // Native strings are contiguous UTF-8: borrow their bytes without copying the string.
    let done: Void? = string.utf8.withContiguousStorageIfAvailable { utf8 in
      appendVarint(UInt64(utf8.count))
      bytes.append(contentsOf: utf8)
    }
    if done == nil {
      let utf8 = Array(string.utf8)
      appendVarint(UInt64(utf8.count))
      bytes.append(contentsOf: utf8)
    }
  }
}

/// Writes the same primitives as `ByteWriter` into memory sized in advance, without checks or
/// reallocation: the ingest hot path computes an encoding's size first, then fills it.
struct SizedByteWriter {
  private let base: UnsafeMutablePointer<UInt8>
  private let capacity: Int
  private(set) var offset: Int

  init(_ buffer: UnsafeMutableBufferPointer<UInt8>, offset: Int = 0) {
    // A zero-capacity array may hand out a nil base; nothing is ever written then.
    base = buffer.baseAddress ?? UnsafeMutablePointer<UInt8>(bitPattern: 1).unsafelyUnwrapped
    capacity = buffer.count
    self.offset = offset
  }

  @inline(__always)
  mutating func append(_ byte: UInt8) {
    precondition(offset < capacity, "encoding size was miscomputed")
    base[offset] = byte
    offset += 1
  }

  @inline(__always)
  mutating func appendVarint(_ value: UInt64) {
    var value = value
    while value >= 0x80 {
      append(UInt8(truncatingIfNeeded: value) | 0x80)
      value >>= 7
    }
    append(UInt8(value))
  }

  @inline(__always)
  mutating func appendSigned(_ value: Int64) {
    appendVarint(UInt64(bitPattern: (value << 1) ^ (value >> 63)))
  }

  mutating func appendFixed64(_ value: UInt64) {
    precondition(offset + 8 <= capacity, "encoding size was miscomputed")
    UnsafeMutableRawPointer(base + offset).storeBytes(of: value.littleEndian, as: UInt64.self)
    offset += 8
  }

  mutating func appendString(_ string: String) {
    let done: Void? = string.utf8.withContiguousStorageIfAvailable { utf8 in
      appendVarint(UInt64(utf8.count))
      appendBytes(utf8)
    }
    if done == nil {
      let utf8 = Array(string.utf8)
      appendVarint(UInt64(utf8.count))
      utf8.withUnsafeBufferPointer { appendBytes($0) }
    }
  }

  private mutating func appendBytes(_ bytes: UnsafeBufferPointer<UInt8>) {
    precondition(offset + bytes.count <= capacity, "encoding size was miscomputed")
    if let source = bytes.baseAddress { (base + offset).update(from: source, count: bytes.count) }
    offset += bytes.count
  }

  /// Bytes a varint of `value` takes.
  @inline(__always)
  static func varintSize(_ value: UInt64) -> Int {
    value == 0 ? 1 : (64 - value.leadingZeroBitCount + 6) / 7
  }

  @inline(__always)
  static func signedSize(_ value: Int64) -> Int {
    varintSize(UInt64(bitPattern: (value << 1) ^ (value >> 63)))
  }

  @inline(__always)
  static func stringSize(_ string: String) -> Int {
    let count = string.utf8.count
    return varintSize(UInt64(count)) + count
  }
}
