import Foundation
import LMDB
import Testing

@testable import LiveLog

/// The segment layer against a model: rows of random values written as segments (posting lists
/// long enough to run over several pages, in parts), the last four merged, then rows changed in
/// place; every list and every ordered run must read back as the rows' own entries say, and
/// covering ordered pages must carry each row's key.
@Suite struct SegmentTests {
  static let schema = CollectionSchema(
    name: "notes", primaryKey: "id",
    fields: [
      Field(position: 0, name: "id", type: .integer, isOptional: false),
      Field(position: 0, name: "title", type: .string, indexes: .substring),
      Field(position: 0, name: "tag", type: .string, indexes: .equality),
      Field(position: 0, name: "count", type: .integer, indexes: .ordered),
    ])

  static let words = ["alpha", "beta", "gamma", "delta", "aaaa", "Ünïcode", "straße", "kit", "ab"]

  static func values(_ row: Row, _ random: inout SplitMix64) -> [FieldValue] {
    let title = (0..<Int.random(in: 1...4, using: &random)).map { _ in
      words.randomElement(using: &random) ?? "x"
    }.joined(separator: " ")
    let tag: FieldValue =
      Int.random(in: 0..<5, using: &random) == 0
      ? .null : .string("tag\(Int.random(in: 0..<30, using: &random))")
    return [.integer(id(of: row)), .string(title), tag, .integer(Int64.random(in: 0..<50, using: &random))]
  }

  /// A row's key: far from the row and sometimes negative, so that covering pages store more
  /// than a small distance.
  static func id(of row: Row) -> Int64 { Int64(row) * 7_919 - 5_000_000_000 }

  /// What the index should hold: every row's entries.
  static func expected(_ rows: [Row: [FieldValue]], coversKeys: Bool) -> Set<String> {
    var entries = Set<String>()
    for (row, values) in rows {
      let indexed = IndexEntries(values, schema: schema)
      var positions: [UInt32: [UInt32]] = [:]
      for posting in indexed.trigrams {
        positions[UInt32(truncatingIfNeeded: posting >> 32), default: []].append(
          UInt32(truncatingIfNeeded: posting))
      }
      for (code, list) in positions { entries.insert("t \(code) \(row) \(list)") }
      for term in indexed.terms { entries.insert("e \(term) \(row)") }
      for entry in indexed.ordered {
        entries.insert("o \(entry.field) \(entry.key.high) \(row) \(coversKeys ? id(of: row) : 0)")
      }
    }
    return entries
  }

  /// What the index holds, read through the lookups, with a check that each list ascends.
  static func stored(
    _ index: Database, _ segments: [Row], _ txn: some ReadableTransaction, codes: Set<UInt32>,
    terms: Set<[UInt8]>, coversKeys: Bool
  ) throws -> Set<String> {
    var entries = Set<String>()
    try txn.withCursor(index) { cursor in
      for code in codes {
        var order: [Row] = []
        for segment in segments {
          try SegmentLookup.forEachPart(
            of: IndexKeys.trigramPrefix(code), kind: .trigram, segment: segment, cursor: &cursor
          ) { entry in
            for (row, positions) in try PostingPage.decode(entry, segment: segment, positional: true) {
              entries.insert("t \(code) \(row) \(positions)")
              order.append(row)
            }
          }
        }
        #expect(order == order.sorted() && Set(order).count == order.count, "trigram \(code) out of order")
      }
      for term in terms {
        var order: [Row] = []
        for segment in segments {
          try SegmentLookup.forEachPart(of: term, kind: .term, segment: segment, cursor: &cursor) { entry in
            for (row, _) in try PostingPage.decode(entry, segment: segment, positional: false) {
              entries.insert("e \(term) \(row)")
              order.append(row)
            }
          }
        }
        #expect(order == order.sorted() && Set(order).count == order.count, "term \(term) out of order")
      }
      for segment in segments {
        var previous: (OrderedKey, Row)?
        try SegmentLookup.forEachOrdered(
          field: 3, width: 9, segment: segment, from: OrderedKey(flag: 0, high: 0, low: 0),
          coversKeys: coversKeys, cursor: &cursor
        ) { entry in
          if let previous { #expect(previous < (entry.key, entry.row), "ordered entries out of order") }
          previous = (entry.key, entry.row)
          entries.insert("o 3 \(entry.key.high) \(entry.row) \(entry.id)")
          return true
        }
      }
    }
    return entries
  }

  /// Seeds, each with the lanes its segments' layouts and its merge cut the trigram lists into
  /// (1: none; 1,000: more than there are pages, so a cut at every page or code).
  static let seedsAndPieces: [(seed: UInt64, pieces: Int)] = [(1, 1), (2, 2), (3, 7), (4, 1_000)]

  @Test(arguments: seedsAndPieces, [false, true])
  func segmentsMergedAndEditedReadAsTheirRows(seedAndPieces: (seed: UInt64, pieces: Int), coversKeys: Bool)
    throws
  {
    let (seed, pieces) = seedAndPieces
    let directory = try TemporaryDirectory()
    let store = try Store(directory: directory.child("store"))
    try store.write([.upsert(Repository(id: 1, fullName: "a/b"))])
    let index = try store.repositoriesCollection().databases.index
    var random = SplitMix64(seed: seed)
    var rows: [Row: [FieldValue]] = [:]
    // Of unequal sizes, so that the inputs of the merge spread their keys over different pages;
    // the first large enough to be built by two builders, whose lists each lane reads from both.
    let sizes: [Row] = [5_000, 1_500, 700, 1_200, 400]
    let rowCount = sizes.reduce(0, +)
    var segments: [Row] = []
    var start: Row = 1
    for size in sizes {
      defer { start += size }
      let range = Array(start..<(start + size))
      for row in range { rows[row] = Self.values(row, &random) }
      let values = range.map { rows[$0] ?? [] }
      let parts = try SegmentBuilder.build(schema: Self.schema, rows: range) { values[$0] }
      // The trigram codes cut into lanes that follow one another from the first code to the last.
      let trigramLanes = SegmentBuilder.lanes(parts, trigramPieces: pieces).compactMap { lane in
        if case .trigrams(let codes) = lane { codes } else { nil }
      }
      #expect(trigramLanes.first?.lowerBound == 0 && trigramLanes.last?.upperBound == 1 << 32)
      #expect(zip(trigramLanes, trigramLanes.dropFirst()).allSatisfy { $0.upperBound == $1.lowerBound })
      #expect(pieces == 1 ? trigramLanes.count == 1 : (2...pieces).contains(trigramLanes.count))
      try store.environment.write { txn in
        // Appended: a page out of key order would be refused.
        for (key, value) in SegmentBuilder.pages(
          parts, segment: start, coversKeys: coversKeys, trigramPieces: pieces)
        {
          try txn.put(index, key, value, flags: .append)
        }
      }
      segments.append(start)
    }
    // Every code and term any version of a row had: read back, each must hold what the rows say.
    var codes = Set<UInt32>()
    var terms = Set<[UInt8]>()
    func note(_ values: [FieldValue]) {
      let indexed = IndexEntries(values, schema: Self.schema)
      codes.formUnion(indexed.trigrams.map { UInt32(truncatingIfNeeded: $0 >> 32) })
      terms.formUnion(indexed.terms)
    }
    for values in rows.values { note(values) }
    func check(_ when: String) throws {
      let held = try store.environment.read { txn in
        try Self.stored(index, segments, txn, codes: codes, terms: terms, coversKeys: coversKeys)
      }
      let wanted = Self.expected(rows, coversKeys: coversKeys)
      let extra = held.subtracting(wanted).sorted()
      let missing = wanted.subtracting(held).sorted()
      #expect(
        extra.isEmpty && missing.isEmpty,
        "\(when): \(extra.count) extra \(extra.prefix(3)), \(missing.count) missing \(missing.prefix(3))")
    }
    try check("as built")
    try store.environment.write { txn in
      var merger = SegmentMerger(index: index, txn: txn, coversKeys: coversKeys)
      merger.trigramPieces = pieces
      // The lanes the merge is laid out in: the trigrams cut (a list of many pages takes one cut
      // at most), and a lane for each ordered field.
      let lanes = try merger.lanes(of: Array(segments[1...]))
      let trigramLanes = lanes.filter { $0.kind == .trigram }.count
      #expect(pieces == 1 ? trigramLanes == 1 : (2...pieces).contains(trigramLanes))
      #expect(lanes.filter { $0.kind == .ordered }.count == 1)
      try merger.merge(Array(segments[1...]))
    }
    segments.removeLast(segments.count - 2)
    try check("after the merge")
    for round in 0..<5 {
      var postingEdits: [Int: [PostingEdit]] = [:]
      var orderedEdits: [Int: [OrderedEdit]] = [:]
      for row in Set((0..<400).map { _ in Row.random(in: 1...rowCount, using: &random) }) {
        guard let old = rows[row] else { continue }
        var new = Self.values(row, &random)
        // Now and then one field keeps its value, or the row leaves every list.
        if Bool.random(using: &random) { new[1] = old[1] }
        let (before, after) = StoredCollection.changedEntries(from: old, to: new, schema: Self.schema)
        let segment = row >= segments[1] ? 1 : 0
        note(new)
        StoredCollection.edits(
          row: row, id: coversKeys ? Self.id(of: row) : 0, from: before, to: after,
          postings: &postingEdits[segment, default: []],
          ordered: &orderedEdits[segment, default: []])
        rows[row] = new
      }
      try store.environment.write { txn in
        for (segment, edits) in postingEdits {
          try SegmentEditor(index: index, segment: segments[segment], txn: txn, coversKeys: coversKeys).apply(
            edits.sorted())
        }
        for (segment, edits) in orderedEdits {
          try SegmentEditor(index: index, segment: segments[segment], txn: txn, coversKeys: coversKeys).apply(
            edits.sorted())
        }
      }
      try check("after edits \(round)")
    }
  }

  /// A schema with one of each kind of indexed field, a retired slot (records written before it
  /// retired still hold a value there), the key in a late slot, and a last field added after
  /// some records were written (they stop before it).
  static let mixedSchema = CollectionSchema(
    name: "mixed", primaryKey: "id",
    slotted: [
      Field(position: 0, name: "title", type: .string, indexes: [.substring, .equality]),
      Field(position: 2, name: "tags", type: .stringList, indexes: .equality),
      Field(position: 3, name: "when", type: .date, indexes: [.equality, .ordered]),
      Field(position: 4, name: "score", type: .double, indexes: .ordered),
      Field(position: 5, name: "flag", type: .bool, indexes: .equality),
      Field(position: 6, name: "id", type: .integer, isOptional: false),
      Field(position: 7, name: "url", type: .string),
      Field(position: 8, name: "added", type: .integer, indexes: [.equality, .ordered]),
    ], slotCount: 9)

  static func mixedRecord(_ row: Row, _ random: inout SplitMix64) -> [UInt8] {
    func maybe(_ value: FieldValue) -> FieldValue {
      Int.random(in: 0..<6, using: &random) == 0 ? .null : value
    }
    func text() -> String {
      (0..<Int.random(in: 1...3, using: &random)).map { _ in
        (words + ["nul\u{0}byte", "ÉCOLE", "日本語"]).randomElement(using: &random) ?? "x"
      }.joined(separator: Bool.random(using: &random) ? " " : "-")
    }
    var values: [FieldValue] = [
      maybe(.string(text())),
      .string("retired \(row)"),
      maybe(.strings((0..<Int.random(in: 0...3, using: &random)).map { _ in text() })),
      maybe(.date(Timestamp(secondsSince1970: Int64.random(in: -1_000...2_000_000_000, using: &random)))),
      maybe(.double(Double(Int.random(in: -500...500, using: &random)) / 8)),
      maybe(.bool(Bool.random(using: &random))),
      .integer(id(of: row)),
      maybe(.string("https://example.com/\(row)")),
      maybe(.integer(Int64.random(in: -20...20, using: &random))),
    ]
    // Written before the last field was added.
    if Bool.random(using: &random) { values.removeLast() }
    return RecordCodec.encode(values)
  }

  /// A segment laid out from stored records, read in place (as a replay and an index rebuild lay
  /// theirs out), holds the same pages and ordered columns as one built from the records'
  /// decoded values (as a commit builds its own): ASCII and other text, lists, dates, doubles,
  /// nulls, a retired slot, an unindexed field skipped, an integer key read for the covering
  /// pages wherever its slot is, and records that stop before a field added later.
  /// Sizes for one builder and for two (from 4,096 rows), and one at random.
  @Test(arguments: [(1, 3_000), (2, 9_000), (3, 0)] as [(UInt64, Row)])
  func segmentsLaidOutFromStoredRecordsEqualThoseFromTheirValues(seed: UInt64, size: Row) throws {
    var random = SplitMix64(seed: seed)
    for schema in [Self.mixedSchema, Self.schema] {
      let count = size > 0 ? size : Row.random(in: 1...9_000, using: &random)
      let rows = Array(Row(1)...count)
      let records =
        schema == Self.mixedSchema
        ? rows.map { Self.mixedRecord($0, &random) }
        : rows.map { RecordCodec.encode(Self.values($0, &random)) }
      let values = try records.map { bytes in
        try bytes.withUnsafeBytes { try RecordCodec.decode($0, schema: schema) }
      }
      for coversKeys in [false, true] {
        let parts = try SegmentBuilder.build(schema: schema, rows: rows) { values[$0] }
        let expectedPages = SegmentBuilder.pages(parts, segment: 1, coversKeys: coversKeys)
        let fields = OrderedColumns.orderedFields(of: schema)
        let expectedColumns = rows.indices.map {
          OrderedColumns.change(row: rows[$0], values: values[$0], fields: fields)
        }
        let stored = StoredRecords(records)
        let laidOut = try StoredCollection.rebuiltIndexes(
          schema: schema, rows: rows, segment: 1, coversKeys: coversKeys
        ) { stored[$0] }
        let label = "\(schema.name), \(count) rows, covering \(coversKeys)"
        #expect(laidOut.pages.map(\.key) == expectedPages.map(\.key), "\(label)")
        #expect(laidOut.pages.map(\.value) == expectedPages.map(\.value), "\(label)")
        func text(_ columns: [OrderedColumns.Change]) -> [String] {
          columns.map { "\($0.row) \($0.isRemoval) \($0.keys.map { "\($0.slot)=\($0.key)" })" }
        }
        #expect(text(laidOut.columns) == text(expectedColumns), "\(label)")
      }
    }
  }

  /// A stored record that does not decode (cut short, or an indexed field holding a value of
  /// another type) stops the layout with the collection and the row named.
  @Test(arguments: [false, true])
  func aRecordThatDoesNotDecodeIsNamedWithItsRow(wrongType: Bool) throws {
    var random = SplitMix64(seed: 9)
    let rows = Array(Row(1)...Row(5_000))
    var records = rows.map { Self.mixedRecord($0, &random) }
    if wrongType {
      var values = try records[4_321].withUnsafeBytes { try RecordCodec.decode($0, schema: Self.mixedSchema) }
      values[4] = .string("not a double")
      records[4_321] = RecordCodec.encode(values)
    } else {
      records[4_321].removeLast(3)
    }
    let stored = StoredRecords(records)
    #expect {
      _ = try StoredCollection.rebuiltIndexes(
        schema: Self.mixedSchema, rows: rows, segment: 1, coversKeys: true
      ) {
        stored[$0]
      }
    } throws: { error in
      guard case StoreError.corruptState(let reason) = error else { return false }
      return reason.hasPrefix("mixed: record at row 4322: ")
    }
  }

  /// Segments laid out one after another with buffers handed from each to the next
  /// (`SegmentBuffers`, as a replay does) hold the same pages as segments laid out each with new
  /// buffers: larger and smaller runs in turn (one of two builders, then of one), so that buffers
  /// come back longer and shorter than the next run needs.
  @Test func segmentsLaidOutWithHandedOnBuffersEqualThoseWithNewOnes() throws {
    var random = SplitMix64(seed: 77)
    let buffers = SegmentBuffers()
    var start: Row = 1
    for size in [Row(6_000), 300, 5_000, 9_000, 4_200, 50] {
      defer { start += size }
      let rows = Array(start..<(start + size))
      let records = StoredRecords(rows.map { RecordCodec.encode(Self.values($0, &random)) })
      let handed = try StoredCollection.rebuiltIndexes(
        schema: Self.schema, rows: rows, segment: start, coversKeys: true, buffers: buffers
      ) { records[$0] }
      let fresh = try StoredCollection.rebuiltIndexes(
        schema: Self.schema, rows: rows, segment: start, coversKeys: true
      ) { records[$0] }
      #expect(handed.pages.map(\.key) == fresh.pages.map(\.key), "\(size) rows from \(start)")
      #expect(handed.pages.map(\.value) == fresh.pages.map(\.value), "\(size) rows from \(start)")
    }
  }
}

/// Records in one buffer, as a map holds them: pointers into it stay valid while it lives.
final class StoredRecords: @unchecked Sendable {
  // @unchecked: the buffer is written once, in `init`, and only read after.
  private let memory: UnsafeMutableRawBufferPointer
  private let ranges: [Range<Int>]

  init(_ records: [[UInt8]]) {
    let memory = UnsafeMutableRawBufferPointer.allocate(
      byteCount: max(1, records.reduce(0) { $0 + $1.count }), alignment: 8)
    var ranges: [Range<Int>] = []
    var end = 0
    for record in records {
      record.withUnsafeBytes {
        UnsafeMutableRawBufferPointer(rebasing: memory[end..<(end + $0.count)]).copyMemory(from: $0)
      }
      ranges.append(end..<(end + record.count))
      end += record.count
    }
    self.memory = memory
    self.ranges = ranges
  }

  deinit { memory.deallocate() }

  subscript(index: Int) -> UnsafeRawBufferPointer {
    UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(memory)[ranges[index]])
  }
}
