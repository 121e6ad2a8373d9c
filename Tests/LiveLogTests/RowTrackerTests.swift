import Testing

@testable import LiveLog

/// A replay's `RowTracker` follows where each key's record ends; `survivors` lists them in row
/// order, each put at its rank among the rows that hold a record, whether most rows were kept or
/// most deleted. Held to a model of keys to rows and versions.
@Suite struct RowTrackerTests {
  @Test(arguments: zip([UInt64(11), 12], [UInt64(50), 900]))
  func survivorsComeInRowOrder(seed: UInt64, keptPerMille: UInt64) throws {
    var random = SplitMix64(seed: seed)
    var tracker = RowTracker()
    var model: [Int64: (row: UInt64, lsn: UInt64)] = [:]
    var lsn: UInt64 = 0
    func follow(_ key: Int64, isUpsert: Bool) throws {
      lsn += 1
      let stored = model[key]
      let row = stored?.row ?? tracker.nextRow
      let header = EventHeader(
        lsn: lsn, format: 2, kind: isUpsert ? .upsert : .delete, endsCommit: true,
        time: CommitTime(microsecondsSince1970: 0), collection: 1, schemaVersion: 1, row: row,
        previousLSN: stored?.lsn, payload: UnsafeRawBufferPointer(start: nil, count: 0))
      try tracker.follow(FollowedEvent(header, key: .integer(key)))
      model[key] = isUpsert ? (row, lsn) : nil
    }
    for key in 0..<10_000 { try follow(Int64(key), isUpsert: true) }
    for key in 0..<10_000 where random.next() % 1_000 >= keptPerMille {
      try follow(Int64(key), isUpsert: false)
    }
    // Updates of kept keys, and re-inserts of deleted ones (each at a new row).
    for _ in 0..<200 { try follow(Int64(random.next() % 10_000), isUpsert: true) }
    let expected = model.map { (row: $0.value.row, key: $0.key, lsn: $0.value.lsn) }.sorted {
      $0.row < $1.row
    }
    let survivors = tracker.survivors { (key: $0, row: $1, lsn: $2) }
    #expect(survivors.map(\.row) == expected.map(\.row))
    #expect(survivors.map(\.key) == expected.map { .integer($0.key) })
    #expect(survivors.map(\.lsn) == expected.map(\.lsn))
  }

  /// No records, whether none came or every one went.
  @Test func noSurvivors() throws {
    #expect(RowTracker().survivors { _, row, _ in row }.isEmpty)
    var tracker = RowTracker()
    var lsn: UInt64 = 0
    for isUpsert in [true, false] {
      for key in 0..<100 {
        lsn += 1
        let header = EventHeader(
          lsn: lsn, format: 2, kind: isUpsert ? .upsert : .delete, endsCommit: true,
          time: CommitTime(microsecondsSince1970: 0), collection: 1, schemaVersion: 1, row: UInt64(key + 1),
          previousLSN: isUpsert ? nil : UInt64(key + 1), payload: UnsafeRawBufferPointer(start: nil, count: 0)
        )
        try tracker.follow(FollowedEvent(header, key: .integer(Int64(key))))
      }
    }
    #expect(tracker.count == 0 && tracker.nextRow == 101)
    #expect(tracker.survivors { _, row, _ in row }.isEmpty)
  }
}
