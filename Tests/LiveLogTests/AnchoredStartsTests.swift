import TestSupport
import Testing

@testable import LiveLog

/// The read of a `BEGINSWITH` pattern's trigram lists (`PostingPage.appendAnchoredStarts`), which
/// looks at each row's first position eight bytes at a time: it finds exactly the rows whose
/// positions hold the offset, checked against the positions written (an oracle that reads no
/// page), whatever comes before the offset in a row (the same trigram earlier, read the slow
/// way), for offsets from 0 to 63 and positions of one byte and more; on a page with one or two
/// bytes damaged it never traps, finds what the general read finds wherever that succeeds, and
/// refuses a repeated row.
/// The store answers `BEGINSWITH` from these reads as a brute-force filter does.
@Suite struct AnchoredStartsTests {
  /// Rows mostly one-byte steps apart (some of 127, 128 and longer, the edges of the eight-byte
  /// reads), each with positions around `offset`: the offset alone, before it, after it, far
  /// past 64, several.
  private static func list(_ random: inout SplitMix64, offset: UInt32, segment: Row)
    -> (rows: [Row], bounds: [Int], positions: [UInt32])
  {
    var rows: [Row] = []
    var bounds = [0]
    var positions: [UInt32] = []
    var row = segment + Row(random.next() % 3)
    for _ in 0..<(1 + Int(random.next() % 3_000)) {
      rows.append(row)
      switch random.next() % 20 {
      case 0: row += 128
      case 1: row += 127
      case 2: row += Row(200 + random.next() % 100_000)
      default: row += Row(1 + random.next() % 4)
      }
      var held = Set<UInt32>()
      switch random.next() % 6 {
      case 0: held = [offset]
      case 1: held = [UInt32(random.next() % 64)]
      case 2: held = [UInt32(random.next() % 10_000)]
      default:
        for _ in 0...(random.next() % 4) {
          let near = Int(offset) + Int(random.next() % 9) - 4
          held.insert(random.next() % 5 == 0 ? UInt32(random.next() % 300) : UInt32(max(0, near)))
        }
      }
      positions += held.sorted()
      bounds.append(positions.count)
    }
    return (rows, bounds, positions)
  }

  /// Every entry of `pages` read by `read`, in order.
  private static func read(
    _ pages: [[UInt8]], _ read: (PostingPage.Entry, inout [UInt64]) throws -> Void
  ) throws -> [UInt64] {
    var starts: [UInt64] = []
    for page in pages {
      try page.withUnsafeBytes { bytes in
        let view = try PostingPage.View(bytes, positional: true)
        for index in 0..<view.count { try read(try view.entry(index), &starts) }
      }
    }
    return starts
  }

  @Test(arguments: [1, 2])
  func findsTheRowsHoldingTheTrigramAtTheOffset(seed: UInt64) throws {
    var random = SplitMix64(seed: seed)
    var laterInTheirRow = 0
    var pagesWritten = 0
    for round in 0..<120 {
      let segment: Row = random.next() % 2 == 0 ? 0 : 1 << 20
      let offsets: [UInt32] = [0, 1, 2, 3, 5, 31, 62, 63]
      let offset = offsets[round % offsets.count]
      let (rows, bounds, positions) = Self.list(&random, offset: offset, segment: segment)
      var expected: [UInt64] = []
      for index in rows.indices {
        let held = positions[bounds[index]..<bounds[index + 1]]
        guard held.contains(offset) else { continue }
        expected.append(UInt64(rows[index]) << 32)
        if held.first != offset { laterInTheirRow += 1 }
      }
      let pages = TrigramPages.write(rows: rows, bounds: bounds, positions: positions, segment: segment)
      pagesWritten += pages.count
      let found = try Self.read(pages) {
        try PostingPage.appendAnchoredStarts(of: $0, segment: segment, offset: offset, to: &$1)
      }
      #expect(found == expected, "seed \(seed), round \(round), offset \(offset)")
      let general = try Self.read(pages) {
        try PostingPage.appendStarts(of: $0, segment: segment, offset: offset, anchored: true, to: &$1)
      }
      #expect(general == expected, "seed \(seed), round \(round), offset \(offset): the general read")
    }
    // The premises: rows holding the offset after a smaller first position, lists of many pages.
    #expect(laterInTheirRow > 500)
    #expect(pagesWritten > 150)
  }

  @Test(arguments: [3, 4])
  func readsADamagedPageAsTheGeneralReadDoes(seed: UInt64) throws {
    var random = SplitMix64(seed: seed)
    var agreed = 0
    var zeroSteps = 0
    for round in 0..<400 {
      let segment: Row = 1 << 20
      let offsets: [UInt32] = [0, 1, 2, 3, 31, 63]
      let offset = offsets[Int(random.next() % UInt64(offsets.count))]
      var (rows, bounds, positions) = Self.list(&random, offset: offset, segment: segment)
      // One page, so that each damage falls in the entry read.
      let kept = min(rows.count, 300)
      rows = Array(rows.prefix(kept))
      positions = Array(positions.prefix(bounds[kept]))
      bounds = Array(bounds.prefix(kept + 1))
      var page = TrigramPages.write(rows: rows, bounds: bounds, positions: positions, segment: segment)[0]
      let (rowBytes, positionBytes) = try page.withUnsafeBytes { bytes in
        let entry = try PostingPage.View(bytes, positional: true).entry(0)
        let rowsStart = entry.rows.baseAddress! - bytes.baseAddress!
        let positionsStart = entry.positions.baseAddress! - bytes.baseAddress!
        return (
          rowsStart..<rowsStart + entry.rows.count, positionsStart..<positionsStart + entry.positions.count
        )
      }
      guard rowBytes.count > 1 else { continue }
      // A byte of the rows after the first row's, or of the positions.
      let inRows = random.next() % 2 == 0
      let damaged =
        inRows
        ? rowBytes.lowerBound + 1 + Int(random.next() % UInt64(rowBytes.count - 1))
        : positionBytes.lowerBound + Int(random.next() % UInt64(positionBytes.count))
      // Bytes that end or continue a row or a number, and numbers written longer than they need
      // (0xC0 | low bits, then a zero group), which the general read accepts.
      let values: [UInt8] = [0, 0x01, 0x02, 0x1F, 0x3F, 0x40, 0x7F, 0x80, 0x81, 0xC0, 0xC1, 0xDF, 0xFF]
      page[damaged] = values[Int(random.next() % UInt64(values.count))]
      if random.next() % 3 == 0 && damaged + 1 < positionBytes.upperBound {
        page[damaged + 1] = [0x00, 0x80, 0xC0][Int(random.next() % 3)]
      }
      let read = { (body: (PostingPage.Entry, inout [UInt64]) throws -> Void) in
        Result { try Self.read([page], body) }
      }
      let found = read {
        try PostingPage.appendAnchoredStarts(of: $0, segment: segment, offset: offset, to: &$1)
      }
      let general = read {
        try PostingPage.appendStarts(of: $0, segment: segment, offset: offset, anchored: true, to: &$1)
      }
      if case .success(let starts) = general {
        #expect(
          (try? found.get()) == starts, "seed \(seed), round \(round): byte \(damaged) of a readable page")
        agreed += 1
      }
      // A zero that begins a step (the byte before ends one) repeats a row.
      if inRows && page[damaged] == 0 && page[damaged - 1] < 0x80 {
        zeroSteps += 1
        #expect(
          (try? found.get()) == nil && (try? general.get()) == nil,
          "seed \(seed), round \(round): a zero step at byte \(damaged)")
      }
    }
    #expect(agreed > 100 && zeroSteps > 10)
  }

  /// Names of a two-letter alphabet repeat their trigrams at many positions (so a pattern's
  /// trigram is often found before its offset in a row), run past 64 bytes, and some hold
  /// capitals and letters a `[d]` fold changes; prefixes up to 80 characters (those past 66 are
  /// read the general way). Alone, among a language's rows, and negated.
  @Test func answersBeginsWithAsABruteForceFilterDoes() throws {
    let directory = try TemporaryDirectory()
    let modelled = try ModelledStore(in: directory)
    var random = SplitMix64(seed: 7)
    var names: [String] = []
    for batch in 0..<3 {
      var repositories: [Repository] = []
      for index in 0..<700 {
        let id = Int64(batch * 700 + index + 1)
        var repository = Repository(id: id, fullName: "owner/r\(id)")
        let length = random.next() % 4 == 0 ? 60 + Int(random.next() % 40) : Int(random.next() % 12)
        var name = String((0..<length).map { _ in random.next() % 3 == 0 ? "b" : "a" })
        switch random.next() % 8 {
        case 0: name = name.uppercased()
        case 1: name = "é" + name
        case 2: name = "AB" + name
        default: break
        }
        repository.name = random.next() % 20 == 0 ? nil : name
        repository.language = random.next() % 2 == 0 ? "Swift" : "Go"
        repositories.append(repository)
        names.append(name)
      }
      try modelled.upsert(repositories)
    }
    // The premise: every row's trigrams are in segments, with their positions.
    #expect(try RecentRowsTests.recentCount(modelled.store) == 0)
    var prefixes: Set<String> = ["aaa", "aab", "aba", "bbb", "AAB", "ée", "éaa", "zzz"]
    for _ in 0..<40 {
      let name = names[Int(random.next() % UInt64(names.count))]
      prefixes.insert(String(name.prefix(3 + Int(random.next() % 78))))
    }
    for prefix in prefixes.sorted() {
      for text in [
        "name BEGINSWITH[c] %@", "name BEGINSWITH[cd] %@", "name BEGINSWITH %@",
        "name BEGINSWITH[c] %@ AND language == 'Swift'", "NOT name BEGINSWITH[c] %@",
      ] {
        let query = try Query(parsing: text, for: Repository.self, arguments: [prefix])
        #expect(try modelled.store.results(query).ids() == modelled.expectedIDs(query), "\(text) \(prefix)")
      }
    }
  }
}
