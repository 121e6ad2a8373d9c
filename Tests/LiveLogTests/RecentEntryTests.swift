import Foundation
import Synchronization
import Testing

@testable import LiveLog

/// A recent row's entry against what `IndexEntries` lists for its record: a filter that every
/// code of the record passes and few others do, the terms and the ordered values, for texts of
/// few codes, codes spread over many first bytes or crowded on a few, and for fields listed out
/// of slot order; and an entry of format 8, which lists its codes, read as it is.
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

  static let indexed = fields.compactMap(IndexedField.init)

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
    var (absentTested, absentPassed) = (0, 0)
    for round in 0..<600 {
      let values = Self.values(&random)
      let fields = (round % 3 == 0 ? Self.fields.reversed() : Self.fields).compactMap(IndexedField.init)
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
        let filter = try #require(view.trigramFilter)
        #expect(filter.elementsEqual(TrigramFilter.filter(of: expected.trigrams)), "round \(round)")
        #expect(view.trigramCount == 0)
        let codes = Set(expected.trigrams.map { UInt32(truncatingIfNeeded: $0 >> 32) })
        for code in codes { #expect(view.mayHave(code), "round \(round): \(code) of \(values)") }
        // Codes of the same fields that the record lacks, near its own and anywhere.
        for code in codes.prefix(20) {
          let others = [
            code ^ 1, code &+ 0x100, code ^ 0x1_0000, code & 0xFF00_0000 | UInt32(random.next() & 0xFF_FFFF),
          ]
          for other in others where !codes.contains(other) {
            absentTested += 1
            if view.mayHave(other) { absentPassed += 1 }
          }
        }
        var terms: [[UInt8]] = []
        try view.forEachTerm { terms.append(Array($0)) }
        #expect(terms == expected.terms, "round \(round)")
        let ordered = (0..<view.orderedCount).map { view.orderedField($0) }
        #expect(ordered == expected.ordered.map(\.field))
        for entry in expected.ordered { #expect(view.orderedKey(field: entry.field) == entry.key) }
      }
    }
    // About 1.7% at `TrigramFilter.bitsPerPosting` bits a code (fewer where a text repeats
    // trigrams, which adds bits): a filter with too few bits, or a hash that sets the same few,
    // passes far more.
    let rate = Double(absentPassed) / Double(max(absentTested, 1))
    #expect(absentTested > 20_000 && rate < 0.03, "\(absentPassed) of \(absentTested) absent codes passed")
  }

  /// The filter on its own, over code sets of every size: no code it holds fails, and codes it
  /// lacks pass at about the rate its size promises, (1 - e^(-3/10))^3 ≈ 1.7%, not far below (a
  /// filter that holds nothing would fail them all, which no code it holds may see).
  @Test func aFilterPassesItsCodesAndFewOthers() {
    var random = SplitMix64(seed: 41)
    var (tested, passed) = (0, 0)
    for round in 0..<300 {
      let count = [0, 1, 2, 7, 30, 110, 500, 3_000][round % 8]
      let codes = Set((0..<count).map { _ in UInt32(truncatingIfNeeded: random.next()) })
      let filter = TrigramFilter.filter(of: codes.map { UInt64($0) << 32 })
      #expect(filter.count == TrigramFilter.byteCount(postings: codes.count))
      #expect(TrigramFilter.isWellSized(filter.count) && (count == 0) == filter.isEmpty)
      filter.withUnsafeBytes { filter in
        for code in codes { #expect(TrigramFilter.mayContain(code, in: filter), "round \(round)") }
        for _ in 0..<200 {
          let other = UInt32(truncatingIfNeeded: random.next())
          guard !codes.contains(other), count > 0 else { continue }
          tested += 1
          if TrigramFilter.mayContain(other, in: filter) { passed += 1 }
        }
        if count == 0 { #expect(!TrigramFilter.mayContain(7, in: filter)) }
      }
    }
    let rate = Double(passed) / Double(tested)
    #expect(rate > 0.008 && rate < 0.03, "\(passed) of \(tested) absent codes passed")
  }

  /// A text that repeats its trigrams, or a very long one, gets a filter of at most
  /// `TrigramFilter.maximumByteCount` bytes (one character a million times: 4,096 bytes, not
  /// 1.25 MB), through which every code of its own still passes; any count of postings is sized
  /// without a trap.
  @Test func aLongTextsFilterIsCapped() {
    #expect(TrigramFilter.byteCount(postings: 3_276) == 4_096)
    #expect(TrigramFilter.byteCount(postings: 1_000_000) == TrigramFilter.maximumByteCount)
    #expect(TrigramFilter.byteCount(postings: Int.max) == TrigramFilter.maximumByteCount)
    let field = Field(position: 0, name: "text", type: .string, indexes: .substring)
    let repeated = IndexEntries(
      [.string(String(repeating: "a", count: 1_000_000))], fields: [field].compactMap(IndexedField.init))
    #expect(TrigramFilter.filter(of: repeated.trigrams).count == TrigramFilter.maximumByteCount)
    var random = SplitMix64(seed: 3)
    let codes = Set((0..<20_000).map { _ in UInt32(truncatingIfNeeded: random.next()) })
    let filter = TrigramFilter.filter(of: codes.map { UInt64($0) << 32 })
    #expect(filter.count == TrigramFilter.maximumByteCount)
    filter.withUnsafeBytes { filter in
      #expect(codes.allSatisfy { TrigramFilter.mayContain($0, in: filter) })
    }
  }

  /// An entry of format 8, which lists its distinct codes ascending (`format8Entry`), reads as it
  /// is: exactly its codes pass, and its terms and ordered values read as a later entry's do.
  @Test func anEntryOfFormat8ReadsItsCodes() throws {
    var random = SplitMix64(seed: 29)
    var encoder = RecentEntry.Encoder()
    for round in 0..<200 {
      let values = Self.values(&random)
      let expected = IndexEntries(values, fields: Self.indexed)
      let key: [UInt8] = [UInt8(round % 256)]
      let current = key.withUnsafeBytes {
        RecentEntry.entry(
          isNew: round % 2 == 0, lsn: UInt64(round), key: $0,
          indexes: encoder.indexes(values: values, fields: Self.indexed))
      }
      let codes = Set(expected.trigrams.map { UInt32(truncatingIfNeeded: $0 >> 32) })
      let old = try Self.format8Entry(current, codes: codes)
      try old.withUnsafeBytes { stored in
        let view = try RecentEntry.View(stored)
        #expect(view.trigramFilter == nil && view.trigramCount == codes.count)
        #expect(!view.isDeleted && view.isNew == (round % 2 == 0) && view.lsn == UInt64(round))
        for code in codes { #expect(view.mayHave(code)) }
        for code in codes.prefix(10) where !codes.contains(code ^ 1) { #expect(!view.mayHave(code ^ 1)) }
        var terms: [[UInt8]] = []
        try view.forEachTerm { terms.append(Array($0)) }
        #expect(terms == expected.terms, "round \(round)")
        for entry in expected.ordered { #expect(view.orderedKey(field: entry.field) == entry.key) }
      }
    }
  }

  /// Where the trigram filter of `entry` (of the current format, not deleted) lies in it.
  static func filterRange(in entry: [UInt8]) throws -> Range<Int> {
    try entry.withUnsafeBytes { bytes in
      let filter = try #require(try RecentEntry.View(bytes).trigramFilter)
      let start = try #require(bytes.baseAddress).distance(to: try #require(filter.baseAddress))
      return start..<(start + filter.count)
    }
  }

  /// `entry` (of the current format, not deleted) as format 8 wrote it: bit 2 of its flags
  /// clear, and `codes`, distinct and ascending, four bytes each, in place of its filter.
  static func format8Entry(_ entry: [UInt8], codes: Set<UInt32>) throws -> [UInt8] {
    let filter = try filterRange(in: entry)
    return try entry.withUnsafeBytes { bytes in
      let view = try RecentEntry.View(bytes)
      var old: [UInt8] = [entry[0] & ~4]
      PageBytes.appendVarint(view.lsn, to: &old)
      PageBytes.appendVarint(UInt64(view.key.count), to: &old)
      old += view.key
      PageBytes.appendVarint(UInt64(codes.count), to: &old)
      for code in codes.sorted() { withUnsafeBytes(of: code.littleEndian) { old += $0 } }
      // Terms and ordered values follow the filter, as they followed the codes.
      old += entry[filter.upperBound...]
      return old
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
        return skipped.contains(index) ? nil : encoder.indexes(values: records[index], fields: Self.indexed)
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
          skipped.contains(index) ? nil : alone.indexes(values: records[index], fields: Self.indexed)
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

  @Test func aDeletedRowsEntryHoldsItsKeyAlone() throws {
    let key: [UInt8] = [9, 8]
    let bytes = key.withUnsafeBytes { RecentEntry.encodeDeleted(lsn: 0, key: $0) }
    try bytes.withUnsafeBytes { stored in
      let view = try RecentEntry.View(stored)
      #expect(view.isDeleted && !view.isNew && view.trigramCount == 0 && view.trigramFilter == nil)
      #expect(Array(view.key) == key)
    }
  }
}
