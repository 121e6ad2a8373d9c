#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

extension String {
  /// `bytes` as a string when they are valid UTF-8, else nil: what `String(validating:as:)`
  /// returns, at a fraction of its cost. That initializer is generic over the encoding and looks
  /// its metadata up at run time on every call, which cost a replay a fifth of its decoding;
  /// `String(decoding:as:)` is specialized for a buffer of bytes, and it repairs what is invalid,
  /// so its result equals the bytes exactly when they were valid.
  static func validated(utf8 bytes: UnsafeBufferPointer<UInt8>) -> String? {
    var string = String(decoding: bytes, as: UTF8.self)
    let same = string.withUTF8 { decoded in
      guard decoded.count == bytes.count, let a = decoded.baseAddress, let b = bytes.baseAddress else {
        return decoded.count == bytes.count
      }
      return memcmp(a, b, bytes.count) == 0
    }
    return same ? string : nil
  }

  /// Whether `bytes` are valid UTF-8, as `validated(utf8:)` decides, without making a string when
  /// they are ASCII, which most text is.
  static func isValid(utf8 bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    isASCII(utf8: UnsafeRawBufferPointer(bytes)) || validated(utf8: bytes) != nil
  }

  /// Whether every byte is ASCII (read eight at a time): text whose `[cd]` fold is a lowercasing.
  static func isASCII(utf8 raw: UnsafeRawBufferPointer) -> Bool {
    var index = 0
    var high: UInt64 = 0
    while index + 8 <= raw.count {
      high |= raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)
      index += 8
    }
    while index < raw.count {
      high |= UInt64(raw[index])
      index += 1
    }
    return high & 0x8080_8080_8080_8080 == 0
  }

  /// `validated(utf8:)` of an array's bytes.
  static func validated(utf8 bytes: [UInt8]) -> String? {
    bytes.withUnsafeBufferPointer { validated(utf8: $0) }
  }
}
