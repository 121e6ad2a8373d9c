import Testing

@testable import LiveLog

@Suite struct EventCodecTests {
  /// Real repositories from every era of the fixtures.
  static let repositories: [Repository] = {
    let files = Fixtures.searchResponseFiles + [Fixtures.apiRepoFiles[0]]
    return files.flatMap { path -> [Repository] in
      ((try? RecordFile(path: path).mutations()) ?? []).compactMap {
        if case .upsert(let repository) = $0 { return repository }
        return nil
      }
    }
  }()

  private func decode(_ bytes: [UInt8], lsn: UInt64) throws -> Event {
    try bytes.withUnsafeBytes { try EventCodec.decode($0, lsn: lsn) }
  }

  @Test func realRecordsRoundTrip() throws {
    #expect(Self.repositories.count > 1_000)
    for (index, repository) in Self.repositories.enumerated() {
      let event = Event(
        lsn: UInt64(index + 1), time: CommitTime(microsecondsSince1970: 1_700_000_000_000_000 + Int64(index)),
        mutation: .upsert(repository), endsCommit: index % 7 == 0, row: UInt64(index * 977 + 1),
        previousLSN: index % 3 == 0 ? nil : UInt64(index))
      #expect(try decode(EventCodec.encode(event), lsn: event.lsn) == event)
    }
    let delete = Event(
      lsn: 9, time: CommitTime(microsecondsSince1970: -5), mutation: .delete(id: -42), endsCommit: true,
      row: 4,
      previousLSN: 8)
    #expect(try decode(EventCodec.encode(delete), lsn: 9) == delete)
  }

  @Test func everyFlippedByteIsDetected() throws {
    let repository = try #require(Self.repositories.first { $0.description != nil })
    let event = Event(
      lsn: 77, time: CommitTime(microsecondsSince1970: 1), mutation: .upsert(repository), endsCommit: true,
      row: 300,
      previousLSN: 12)
    let encoded = EventCodec.encode(event)
    var random = SeededRandom(seed: 3)
    for index in encoded.indices {
      var damaged = encoded
      damaged[index] ^= UInt8.random(in: 1...255, using: &random)
      #expect(throws: StoreError.self, "byte \(index)") { try decode(damaged, lsn: 77) }
    }
    // The same bytes under another LSN are refused too.
    #expect(throws: StoreError.self) { try decode(encoded, lsn: 78) }
    // And truncations.
    for length in 0..<encoded.count {
      #expect(throws: StoreError.self) { try decode(Array(encoded.prefix(length)), lsn: 77) }
    }
  }

  @Test func anUnknownFormatVersionIsRejectedByName() throws {
    var encoded = EventCodec.encodeDelete(
      id: 5, lsn: 1, time: CommitTime(microsecondsSince1970: 0), endsCommit: true, row: 3, previous: 0)
    encoded[0] = 2
    // Re-seal with a valid checksum, so that only the version is wrong.
    let body = Array(encoded.dropLast(4))
    let prefix = withUnsafeBytes(of: UInt64(1).littleEndian) { CRC32C.checksum($0) }
    let crc = CRC32C.checksum(body, continuing: prefix)
    encoded = body + withUnsafeBytes(of: crc.littleEndian) { Array($0) }
    do {
      _ = try decode(encoded, lsn: 1)
      Issue.record("version 2 was accepted")
    } catch let error as StoreError {
      #expect(error.description.contains("version 2"))
    }
  }

  @Test func crc32cMatchesPublishedCheckValues() {
    // RFC 3720 (iSCSI) test vectors for CRC-32C.
    #expect(CRC32C.checksum(Array("123456789".utf8)) == 0xE306_9283)
    #expect(CRC32C.checksum([UInt8](repeating: 0, count: 32)) == 0x8A91_36AA)
    #expect(CRC32C.checksum([UInt8](repeating: 0xFF, count: 32)) == 0x62A8_AB43)
    #expect(CRC32C.checksum((0..<32).map { UInt8($0) }) == 0x46DD_794E)
    // Continuing a checksum equals checksumming the concatenation.
    let a = Array("hello, ".utf8)
    let b = Array("world".utf8)
    #expect(CRC32C.checksum(b, continuing: CRC32C.checksum(a)) == CRC32C.checksum(a + b))
  }
}

@Suite struct RecordCodecTests {
  @Test func theDirectEncodingEqualsTheSchemaDrivenOne() throws {
    for repository in EventCodecTests.repositories {
      let direct = RecordCodec.encode(repository)
      #expect(direct == RecordCodec.encode(repository.fieldValues))
      let decoded = try direct.withUnsafeBytes { try RecordCodec.decode($0, schema: Repository.schema) }
      #expect(Repository(fieldValues: decoded) == repository)
    }
  }
}
