import Testing

@testable import LiveLog

@Suite struct EventCodecTests {
  /// Real repositories from every era of the fixtures.
  static let repositories: [Repository] = {
    let files = Fixtures.searchResponseFiles + [Fixtures.apiRepoFiles[0]]
    return files.flatMap { path -> [Repository] in
      (try? RecordFile(path: path).records(of: Repository.self)) ?? []
    }
  }()

  static let schema = Repository.schema.declaration

  /// The catalog of a store holding only `repositories` (collection 1).
  static let catalog: CatalogState = {
    do {
      let directory = try TemporaryDirectory()
      let store = try Store(directory: directory.child("store"))
      try store.createCollection(Repository.schema.declaration)
      return try store.read { _, state in state }
    } catch {
      preconditionFailure("cannot make a store: \(error)")
    }
  }()

  private func decode(_ bytes: [UInt8], lsn: UInt64) throws -> Event {
    try bytes.withUnsafeBytes { try EventCodec.header($0, lsn: lsn).event(in: Self.catalog) }
  }

  private func upsert(
    _ repository: Repository, lsn: UInt64, time: Int64, ends: Bool, row: UInt64, previous: UInt64?
  )
    -> Event
  {
    Event(
      lsn: lsn, time: CommitTime(microsecondsSince1970: time), collection: "repositories", schemaVersion: 1,
      change: .upsert(repository.recordValues), endsCommit: ends, row: row, previousLSN: previous)
  }

  @Test func realRecordsRoundTripInBothFormats() throws {
    #expect(Self.repositories.count > 1_000)
    for (index, repository) in Self.repositories.enumerated() {
      let event = upsert(
        repository, lsn: UInt64(index + 1), time: 1_700_000_000_000_000 + Int64(index), ends: index % 7 == 0,
        row: UInt64(index * 977 + 1), previous: index % 3 == 0 ? nil : UInt64(index))
      #expect(try decode(EventCodec.encode(event, collectionID: 1), lsn: event.lsn) == event)
      // Format 1, as stores made before collections hold it: the same event.
      #expect(try decode(EventCodec.encode(event, collectionID: 0), lsn: event.lsn) == event)
      #expect(
        try Repository(
          values: try #require(
            decode(EventCodec.encode(event, collectionID: 1), lsn: event.lsn)
              .change.upsertedRecord)) == repository)
    }
    let delete = Event(
      lsn: 9, time: CommitTime(microsecondsSince1970: -5), collection: "repositories", schemaVersion: 1,
      change: .delete(.integer(-42)), endsCommit: true, row: 4, previousLSN: 8)
    #expect(try decode(EventCodec.encode(delete, collectionID: 1), lsn: 9) == delete)
    #expect(try decode(EventCodec.encode(delete, collectionID: 0), lsn: 9) == delete)
  }

  @Test func everyFlippedByteIsDetected() throws {
    let repository = try #require(Self.repositories.first { $0.description != nil })
    let event = upsert(repository, lsn: 77, time: 1, ends: true, row: 300, previous: 12)
    for collectionID: UInt32 in [0, 1] {
      let encoded = try EventCodec.encode(event, collectionID: collectionID)
      var random = SplitMix64(seed: 3)
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
  }

  @Test func anUnknownFormatVersionIsRejectedByName() throws {
    var encoded = EventCodec.beginDelete(
      .integer(5), time: CommitTime(microsecondsSince1970: 0),
      .init(collection: 1, schemaVersion: 1, row: 3, previous: 0))
    encoded[0] = 3
    EventCodec.seal(&encoded, lsn: 1, endsCommit: true)
    do {
      _ = try decode(encoded, lsn: 1)
      Issue.record("version 3 was accepted")
    } catch let error as StoreError {
      #expect(error.description.contains("version 3"))
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
  @Test func repositoriesRoundTripThroughTheirFieldValues() throws {
    let schema = Repository.schema.declaration
    for repository in EventCodecTests.repositories {
      let bytes = RecordCodec.encode(repository.fieldValues)
      let decoded = try bytes.withUnsafeBytes { try RecordCodec.decode($0, schema: schema) }
      #expect(decoded == repository.fieldValues)
      #expect(try Repository(values: RecordValues(schema: schema, values: decoded)) == repository)
    }
  }

  @Test func everyValueKindRoundTrips() throws {
    let schema = CollectionSchema(
      name: "kinds", primaryKey: "k",
      fields: [
        Field(position: 0, name: "k", type: .string, isOptional: false),
        Field(position: 0, name: "i", type: .integer), Field(position: 0, name: "d", type: .double),
        Field(position: 0, name: "b", type: .bool), Field(position: 0, name: "t", type: .date),
        Field(position: 0, name: "s", type: .stringList), Field(position: 0, name: "n", type: .integerList),
      ])
    let samples: [[FieldValue]] = [
      [
        .string("a"), .integer(-7), .double(-0.5), .bool(true),
        .date(Timestamp(secondsSince1970: -1, nanoseconds: 5)),
        .strings(["x", ""]), .integers([Int64.min, 0, Int64.max]),
      ],
      [
        .string("b"), .null, .double(.infinity), .bool(false),
        .date(Timestamp(secondsSince1970: 1_700_000_000)),
        .strings([]), .integers([]),
      ],
      [.string("c"), .integer(0), .null, .null, .null, .null, .null],
    ]
    for values in samples {
      let bytes = RecordCodec.encode(values)
      #expect(try bytes.withUnsafeBytes { try RecordCodec.decode($0, schema: schema) } == values)
    }
  }
}

@Suite struct RecordCheckingTests {
  /// What reading `bytes` under `schema` comes to: nil when accepted, else the error.
  static func outcome(_ bytes: [UInt8], _ body: (UnsafeRawBufferPointer) throws(MalformedBytes) -> Void)
    -> String?
  {
    bytes.withUnsafeBytes { raw -> String? in
      do {
        try body(raw)
        return nil
      } catch {
        return String(describing: error)
      }
    }
  }

  /// `check` accepts exactly the bytes `decode` accepts, failing with the same error, on records
  /// of every value kind damaged at random (a byte changed, the end cut, a byte of a multi-byte
  /// sequence put in), each read under its own schema, one whose types are shifted by a slot (most
  /// values then have the wrong type) and one with fewer slots.
  @Test(arguments: [UInt64(1), 2, 3])
  func checkingAgreesWithDecodingOnDamagedRecords(seed: UInt64) {
    let schema = GeneratedCollection.schema
    let fields = schema.fields
    let shifted = CollectionSchema(
      name: "shifted", primaryKey: "key",
      fields: fields.indices.map { index in
        Field(position: 0, name: fields[index].name, type: index == 0 ? .string : fields[index - 1].type)
      })
    let fewer = CollectionSchema(name: "fewer", primaryKey: "key", fields: Array(fields.prefix(5)))
    var random = SplitMix64(seed: seed)
    var accepted = 0
    var rejected = 0
    for values in GeneratedCollection.records(count: 300, seed: seed) {
      let clean = RecordCodec.encode(values)
      for _ in 0..<20 {
        var bytes = clean
        let at = Int(random.next() % UInt64(bytes.count))
        switch random.next() % 4 {
        case 0: bytes[at] = UInt8(truncatingIfNeeded: random.next())
        case 1: bytes.removeSubrange(at...)
        case 2: bytes.insert(0x80 | UInt8(truncatingIfNeeded: random.next()), at: at)
        default: break
        }
        for reading in [schema, shifted, fewer] {
          let decoded = Self.outcome(bytes) { raw throws(MalformedBytes) in
            _ = try RecordCodec.decode(raw, schema: reading)
          }
          let checked = Self.outcome(bytes) { raw throws(MalformedBytes) in
            try RecordCodec.check(raw, schema: reading)
          }
          #expect(checked == decoded, "\(bytes) under \(reading.name)")
          if decoded == nil { accepted += 1 } else { rejected += 1 }
        }
      }
    }
    // Both outcomes are common, so that agreeing means something either way.
    #expect(accepted > 1_000 && rejected > 1_000, "\(accepted) accepted, \(rejected) rejected")
  }

  @Test func validUTF8IsTheStandardLibrarysAcrossTheASCIIFastPath() {
    var random = SplitMix64(seed: 8)
    for _ in 0..<5_000 {
      let count = Int(random.next() % 24)
      // Mostly ASCII, so that both the word-at-a-time path and the full check run.
      let bytes = (0..<count).map { _ in
        random.next() % 5 == 0 ? UInt8(truncatingIfNeeded: random.next()) : UInt8(random.next() % 128)
      }
      let valid = bytes.withUnsafeBufferPointer { String.isValid(utf8: $0) }
      #expect(valid == (String(validating: bytes, as: UTF8.self) != nil), "\(bytes)")
    }
  }
}
