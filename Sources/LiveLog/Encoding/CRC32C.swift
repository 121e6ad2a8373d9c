import CCRC32C

/// CRC-32C (Castagnoli), the checksum of every event in the log.
///
/// With the processor's CRC32C instructions where it has them (SSE4.2 on x86_64, the CRC
/// extension on arm64; the `CCRC32C` target, checked once per process), else software
/// slice-by-8. Both give the same checksum, which the tests check on random inputs.
enum CRC32C {
  /// Whether `checksum` uses the processor's instructions.
  static let usesHardware = livelog_crc32c_hardware_available() != 0

  /// The checksum of `bytes`, continuing from `crc` (the checksum of what came before, or 0).
  static func checksum(_ bytes: UnsafeRawBufferPointer, continuing crc: UInt32 = 0) -> UInt32 {
    hardwareChecksum(bytes, continuing: crc) ?? softwareChecksum(bytes, continuing: crc)
  }

  /// The checksum by the processor's instructions, or `nil` when it has none.
  static func hardwareChecksum(_ bytes: UnsafeRawBufferPointer, continuing crc: UInt32 = 0) -> UInt32? {
    guard usesHardware else { return nil }
    guard let base = bytes.baseAddress else { return crc }
    return livelog_crc32c_hardware(crc, base, bytes.count)
  }

  static func checksum(_ bytes: [UInt8], continuing crc: UInt32 = 0) -> UInt32 {
    bytes.withUnsafeBytes { checksum($0, continuing: crc) }
  }

  /// Eight 256-entry tables for the reflected polynomial 0x82F63B78.
  private static let tables: [UInt32] = {
    var tables = [UInt32](repeating: 0, count: 8 * 256)
    for byte in 0..<256 {
      var crc = UInt32(byte)
      for _ in 0..<8 { crc = (crc & 1) != 0 ? (crc >> 1) ^ 0x82F6_3B78 : crc >> 1 }
      tables[byte] = crc
    }
    for byte in 0..<256 {
      var crc = tables[byte]
      for slice in 1..<8 {
        crc = tables[Int(crc & 0xFF)] ^ (crc >> 8)
        tables[slice * 256 + byte] = crc
      }
    }
    return tables
  }()

  /// The software path: slice-by-8, about eight bytes per table round.
  static func softwareChecksum(_ bytes: UnsafeRawBufferPointer, continuing crc: UInt32 = 0) -> UInt32 {
    var crc = ~crc
    tables.withUnsafeBufferPointer { t in
      var index = 0
      let count = bytes.count
      while index + 8 <= count {
        let word = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self))
        let low = UInt32(truncatingIfNeeded: word) ^ crc
        let high = UInt32(truncatingIfNeeded: word >> 32)
        crc =
          t[7 * 256 + Int(low & 0xFF)] ^ t[6 * 256 + Int((low >> 8) & 0xFF)]
          ^ t[5 * 256 + Int((low >> 16) & 0xFF)] ^ t[4 * 256 + Int(low >> 24)]
          ^ t[3 * 256 + Int(high & 0xFF)] ^ t[2 * 256 + Int((high >> 8) & 0xFF)]
          ^ t[1 * 256 + Int((high >> 16) & 0xFF)] ^ t[Int(high >> 24)]
        index += 8
      }
      while index < count {
        crc = t[Int((crc ^ UInt32(bytes[index])) & 0xFF)] ^ (crc >> 8)
        index += 1
      }
    }
    return ~crc
  }
}
