/// Writes compact JSON into a byte buffer, members in the order they are written.
///
/// Strings are escaped per RFC 8259; non-ASCII text is written as UTF-8, not `\u` escapes.
struct JSONWriter {
  private(set) var bytes: [UInt8] = []
  /// Whether the next member or element needs a comma before it, per open container.
  private var needsComma: [Bool] = [false]

  init() {}

  var string: String { String(decoding: bytes, as: UTF8.self) }

  private mutating func separate() {
    if needsComma[needsComma.count - 1] { bytes.append(0x2C) }
    needsComma[needsComma.count - 1] = true
  }

  mutating func beginObject() {
    separate()
    bytes.append(0x7B)
    needsComma.append(false)
  }

  mutating func endObject() {
    needsComma.removeLast()
    bytes.append(0x7D)
  }

  mutating func beginArray() {
    separate()
    bytes.append(0x5B)
    needsComma.append(false)
  }

  mutating func endArray() {
    needsComma.removeLast()
    bytes.append(0x5D)
  }

  /// Writes `"key":`; the value written next belongs to it.
  mutating func key(_ key: String) {
    separate()
    appendEscaped(key)
    bytes.append(0x3A)
    needsComma[needsComma.count - 1] = false
  }

  mutating func string(_ value: String) {
    separate()
    appendEscaped(value)
  }

  mutating func integer<I: BinaryInteger>(_ value: I) {
    separate()
    bytes.append(contentsOf: String(value).utf8)
  }

  mutating func number(_ value: Double) {
    separate()
    bytes.append(contentsOf: (value.isFinite ? String(value) : "null").utf8)
  }

  mutating func bool(_ value: Bool) {
    separate()
    bytes.append(contentsOf: (value ? "true" : "false").utf8)
  }

  mutating func null() {
    separate()
    bytes.append(contentsOf: "null".utf8)
  }

  /// Writes an already encoded JSON value as it is.
  mutating func raw(_ json: [UInt8]) {
    separate()
    bytes.append(contentsOf: json)
  }

  /// Writes `value` as a string, or `null` when it is nil.
  mutating func optionalString(_ value: String?) {
    if let value { string(value) } else { null() }
  }

  private mutating func appendEscaped(_ value: String) {
    bytes.append(0x22)
    for byte in value.utf8 {
      switch byte {
      case 0x22: bytes.append(contentsOf: [0x5C, 0x22])
      case 0x5C: bytes.append(contentsOf: [0x5C, 0x5C])
      case 0x0A: bytes.append(contentsOf: [0x5C, 0x6E])
      case 0x0D: bytes.append(contentsOf: [0x5C, 0x72])
      case 0x09: bytes.append(contentsOf: [0x5C, 0x74])
      case 0x08: bytes.append(contentsOf: [0x5C, 0x62])
      case 0x0C: bytes.append(contentsOf: [0x5C, 0x66])
      case ..<0x20:
        let hex = Array("0123456789abcdef".utf8)
        bytes.append(contentsOf: [0x5C, 0x75, 0x30, 0x30, hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
      default: bytes.append(byte)
      }
    }
    bytes.append(0x22)
  }
}
