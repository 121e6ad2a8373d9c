import Testing

@testable import LiveLog

/// The processor's CRC32C instructions and the software path give the same checksums, which are
/// those of the published vectors and of a bit-at-a-time oracle that shares no code with either.
@Suite struct CRC32CTests {
  /// CRC-32C one bit at a time, straight from the reflected polynomial 0x82F63B78.
  static func oracle(_ bytes: ArraySlice<UInt8>, continuing crc: UInt32 = 0) -> UInt32 {
    var register = ~crc
    for byte in bytes {
      register ^= UInt32(byte)
      for _ in 0..<8 { register = register & 1 == 1 ? (register >> 1) ^ 0x82F6_3B78 : register >> 1 }
    }
    return ~register
  }

  static let vectors: [([UInt8], UInt32)] = [
    // RFC 3720 (iSCSI), appendix B.4, and the usual check value.
    (Array("123456789".utf8), 0xE306_9283),
    ([UInt8](repeating: 0, count: 32), 0x8A91_36AA),
    ([UInt8](repeating: 0xFF, count: 32), 0x62A8_AB43),
    ((0..<32).map { UInt8($0) }, 0x46DD_794E),
    ((0..<32).map { UInt8(31 - $0) }, 0x113F_DB5C),
    ([], 0),
  ]

  @Test func bothPathsGiveThePublishedValues() {
    for (bytes, expected) in Self.vectors {
      #expect(bytes.withUnsafeBytes { CRC32C.softwareChecksum($0) } == expected)
      #expect(CRC32C.checksum(bytes) == expected)
      #expect(Self.oracle(bytes[...]) == expected)
      if CRC32C.usesHardware {
        #expect(bytes.withUnsafeBytes { CRC32C.hardwareChecksum($0) } == expected)
      }
    }
  }

  /// The processors LiveLog is built for all have the instructions: the fast path must be the one
  /// that runs there.
  @Test func theHardwarePathRunsOnX86_64AndArm64() {
    #if arch(x86_64) || arch(arm64)
      #expect(CRC32C.usesHardware)
    #endif
  }

  /// Random lengths (0 to 1,000 bytes: every tail length after the 8-byte words, and up to
  /// five strides of the hardware path's three interleaved 64-byte lanes), random unaligned
  /// starts and random checksums to continue from.
  @Test(arguments: [UInt64(1), 2, 3])
  func bothPathsAgreeWithTheOracleOnRandomInputs(seed: UInt64) {
    var random = SplitMix64(seed: seed)
    let buffer = (0..<1_400).map { _ in UInt8.random(in: 0...255, using: &random) }
    for _ in 0..<2_000 {
      let start = Int.random(in: 0..<400, using: &random)
      let count = Int.random(in: 0...1_000, using: &random)
      let slice = buffer[start..<min(buffer.count, start + count)]
      let previous = Bool.random(using: &random) ? 0 : UInt32.random(in: 0...UInt32.max, using: &random)
      let expected = Self.oracle(slice, continuing: previous)
      let software = slice.withUnsafeBytes { CRC32C.softwareChecksum($0, continuing: previous) }
      #expect(software == expected, "software, \(slice.count) bytes from \(start)")
      if let hardware = slice.withUnsafeBytes({ CRC32C.hardwareChecksum($0, continuing: previous) }) {
        #expect(hardware == expected, "hardware, \(slice.count) bytes from \(start)")
      }
      if software != expected { return }
    }
  }

  /// Continuing a checksum equals checksumming the concatenation, on both paths.
  @Test func continuingEqualsTheConcatenation() {
    var random = SplitMix64(seed: 9)
    for _ in 0..<200 {
      let a = (0..<Int.random(in: 0...40, using: &random)).map { _ in
        UInt8.random(in: 0...255, using: &random)
      }
      let b = (0..<Int.random(in: 0...40, using: &random)).map { _ in
        UInt8.random(in: 0...255, using: &random)
      }
      #expect(CRC32C.checksum(b, continuing: CRC32C.checksum(a)) == CRC32C.checksum(a + b))
      let software = b.withUnsafeBytes {
        CRC32C.softwareChecksum($0, continuing: a.withUnsafeBytes { CRC32C.softwareChecksum($0) })
      }
      #expect(software == CRC32C.checksum(a + b))
    }
  }
}
