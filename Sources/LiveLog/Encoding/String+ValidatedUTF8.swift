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

  /// `validated(utf8:)` of an array's bytes.
  static func validated(utf8 bytes: [UInt8]) -> String? {
    bytes.withUnsafeBufferPointer { validated(utf8: $0) }
  }
}
