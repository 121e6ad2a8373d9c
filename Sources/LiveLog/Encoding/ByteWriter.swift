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
