import Foundation
import Synchronization
import Testing

@testable import LiveLog

/// A recent row's entry against what `IndexEntries` lists for its record: the distinct trigram
/// codes in ascending order (sorted here by the standard library, from a set), the terms and the
/// ordered values, for texts that send the encoder's sort down each of its ways (few codes, codes
/// spread over many first bytes, codes crowded on a few), and for fields listed out of slot order.
@Suite struct RecentEntryTests {
  static let fields = [
    Field(position: 0, name: "id", type: .integer, isOptional: false),
    Field(position: 1, name: "title", type: .string, indexes: .substring),
    Field(position: 2, name: "owner", type: .string, indexes: [.substring, .equality]),
    Field(position: 3, name: "tags", type: .stringList, indexes: .equality),
    Field(position: 4, name: "stars", type: .integer, indexes: .ordered),
    Field(position: 5, name: "about", type: .string, indexes: .substring),
    Field(position: 6, name: "created", type: .date, indexes: .ordered),
  ]

  /// Text of `length` characters drawn from `alphabet`.
  static func text(_ length: Int, _ alphabet: [Character], _ random: inout SplitMix64) -> String {
    String((0..<length).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] })
  }

  static func values(_ random: inout SplitMix64) -> [FieldValue] {
    let alphabets: [[Character]] = [
      Array("ab"), Array("abc "), Array("abcdefghijklmnopqrstuvwxyz "),
      Array("ABCdefGHIjkl0123456789 -_/.\u{0}"), Array("aéßÜ文字 z"),
    ]
    func someText() -> String {
      let alphabet = alphabets[Int(random.next() % UInt64(alphabets.count))]
      let length = [0, 2, 3, 10, 17, 40, 120, 400, 1_500][Int(random.next() % 9)]
      return text(length, alphabet, &random)
    }
    let tags = (0..<Int(random.next() % 5)).map { _ in
      ["swift", "db", "Swift", "ui", "db"][Int(random.next() % 5)]
    }
    return [
      .integer(Int64(random.next() % 1_000)), .string(someText()), .string(someText()),
      random.next() % 4 == 0 ? .null : .strings(tags), .integer(Int64(bitPattern: random.next())),
      random.next() % 5 == 0 ? .null : .string(someText()),
      .date(Timestamp(secondsSince1970: Int64(random.next() % 2_000_000_000))),
    ]
  }

  @Test func anEntryHoldsItsRecordsEntriesWithoutPositions() throws {
    var random = SplitMix64(seed: 17)
    var encoder = RecentEntry.Encoder()
    let key: [UInt8] = [1, 2, 3]
    for round in 0..<600 {
      let values = Self.values(&random)
      let fields = round % 3 == 0 ? Self.fields.reversed() : Self.fields
      let expected = IndexEntries(values, fields: fields)
      let bytes = key.withUnsafeBytes {
        RecentEntry.entry(
          isNew: round % 2 == 0, lsn: UInt64(round), key: $0,
          indexes: encoder.indexes(values: values, fields: fields))
      }
      try bytes.withUnsafeBytes { stored in
        let view = try RecentEntry.View(stored)
        #expect(!view.isDeleted && view.isNew == (round % 2 == 0) && view.lsn == UInt64(round))
        #expect(Array(view.key) == key)
        let codes = (0..<view.trigramCount).map { view.code($0) }
        let wanted = Set(expected.trigrams.map { UInt32(truncatingIfNeeded: $0 >> 32) }).sorted()
        #expect(codes == wanted, "round \(round): \(values)")
        var terms: [[UInt8]] = []
        try view.forEachTerm { terms.append(Array($0)) }
        #expect(terms == expected.terms, "round \(round)")
        let ordered = (0..<view.orderedCount).map { view.orderedField($0) }
        #expect(ordered == expected.ordered.map(\.field))
        for entry in expected.ordered { #expect(view.orderedKey(field: entry.field) == entry.key) }
      }
    }
  }

  /// A job's index parts, each encoded by whichever thread claimed it (with that thread's own
  /// encoder, its buffers left by other records), are the parts an encoder of its own makes for
  /// each record alone, `nil` where the job was told to skip: asked for some of the upserts,
  /// early or late (when the worker has done some or all), after a cancel or not. The worker
  /// does encode some, and the asking thread encodes none that it did not ask for.
  @Test func aJobsIndexPartsAreEachRecordsOwn() throws {
    var random = SplitMix64(seed: 23)
    let asker = pthread_self()
    let counts = ThreadCounts()
    for round in 0..<60 {
      let records = (0..<Int(random.next() % 120)).map { _ in Self.values(&random) }
      let skipped = Set(records.indices.filter { _ in random.next() % 7 == 0 })
      let wanted = records.indices.filter { _ in random.next() % 4 != 0 }
      let wantedSet = Set(wanted)
      let job = RecentIndexJob(count: records.count) { index, encoder in
        if pthread_equal(pthread_self(), asker) == 0 {
          counts.byWorker.withLock { $0 += 1 }
        } else if !wantedSet.contains(index) {
          counts.unasked.withLock { $0 += 1 }
        }
        return skipped.contains(index) ? nil : encoder.indexes(values: records[index], fields: Self.fields)
      }
      if round % 3 == 1 && records.count > 1 {
        // Late: once the worker has encoded one (other tests may keep the cores busy a while).
        let (before, deadline) = (counts.byWorker.withLock { $0 }, Date().addingTimeInterval(20))
        while counts.byWorker.withLock({ $0 }) == before && Date() < deadline { usleep(200) }
      }
      if round % 5 == 4 { job.cancel() }
      let found = job.indexes(at: wanted)
      job.cancel()
      for (index, indexes) in zip(wanted, found) {
        var alone = RecentEntry.Encoder()
        let expected =
          skipped.contains(index) ? nil : alone.indexes(values: records[index], fields: Self.fields)
        #expect(indexes == expected, "round \(round), record \(index)")
      }
    }
    #expect(counts.byWorker.withLock { $0 } > 0)
    #expect(counts.unasked.withLock { $0 } == 0)
  }

  /// Index parts a job's worker encoded, and parts the asking thread encoded unasked.
  private final class ThreadCounts: Sendable {
    let byWorker = Mutex(0)
    let unasked = Mutex(0)
  }

  /// The sort of one field's codes on each of its ways (by insertion, by bucket, by byte)
  /// against the standard library's, on its own: the encoder sorts whatever it finds unsorted
  /// afterwards, which would hide a wrong order here.
  @Test func oneFieldsCodesSortAsTheStandardLibrarySortsThem() {
    var random = SplitMix64(seed: 5)
    var spare = [UInt32](repeating: 0, count: 3_000)
    var counts = [Int32](repeating: 0, count: 3 * 256)
    for round in 0..<400 {
      let count = [0, 1, 2, 16, 17, 40, 300, 3_000][round % 8]
      let spread: UInt32 = [1, 2, 26, 256][(round / 8) % 4]
      var codes = (0..<count).map { _ in
        let first = (0x61 + UInt32(random.next() % UInt64(spread))) % 256
        // Low bytes from a narrow range in some rounds, so that a pass skipped for one of them
        // leaves the codes out of order.
        let low = UInt32(random.next() % (round % 3 == 0 ? 4 : 1 << 16))
        return 6 << 24 | first << 16 | low << (round % 2 == 0 ? 0 : 8) & 0xFFFF
      }
      if round % 5 == 0 { codes.sort(by: >) }
      let expected = codes.sorted()
      codes.withUnsafeMutableBufferPointer { codes in
        spare.withUnsafeMutableBufferPointer { spare in
          counts.withUnsafeMutableBufferPointer { counts in
            RecentEntry.Encoder.sortTrigrams(
              codes, spare: UnsafeMutableBufferPointer(rebasing: spare[0..<codes.count]), counts: counts)
          }
        }
      }
      #expect(codes == expected, "round \(round): \(count) codes over \(spread) first bytes")
    }
  }

  @Test func aDeletedRowsEntryHoldsItsKeyAlone() throws {
    let key: [UInt8] = [9, 8]
    let bytes = key.withUnsafeBytes { RecentEntry.encodeDeleted(lsn: 0, key: $0) }
    try bytes.withUnsafeBytes { stored in
      let view = try RecentEntry.View(stored)
      #expect(view.isDeleted && !view.isNew && view.trigramCount == 0 && Array(view.key) == key)
    }
  }
}
