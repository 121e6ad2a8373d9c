import Testing

@testable import LiveLog

/// The reads of posting lists that step over or read several one-byte steps from one word:
/// `PostingPage.appendRows(of:segment:members:next:to:)`, the read an `AND` makes of a long
/// equality list among a few candidates, keeps exactly the members the list holds; the trigram
/// reads among members, merged or asked row by row (`RowMembership`), find the starts the whole
/// list's read finds for them; the full read gives back every row. Checked against set
/// intersections and the lists written, over lists whose steps mix one-byte runs with longer
/// numbers, and over damaged lists, which each must refuse as the full read does wherever it reads
/// that far, and never trap.
@Suite struct PostingMembershipTests {
  /// Writes `rows` as one list of `segment` and returns its pages' bytes.
  private func pages(of rows: [Row], segment: Row) -> [[UInt8]] {
    var writer = PostingPageWriter(segment: segment, kind: .term)
    rows.withUnsafeBufferPointer { writer.add(key: [9, 0, 0], PostingListSource(rows: $0)) }
    writer.flush()
    return writer.takePages().map(\.value)
  }

  /// `count` ascending rows from `segment`, each `step()` past the one before.
  private func rows(from segment: Row, count: Int, step: () -> Row) -> [Row] {
    var rows: [Row] = []
    var row = segment
    for _ in 0..<count {
      rows.append(row)
      row += step()
    }
    return rows
  }

  /// Where the rows of a term page's first entry lie in the page.
  private func rowBytes(of page: [UInt8]) throws -> Range<Int> {
    try page.withUnsafeBytes { bytes in
      let entry = try PostingPage.View(bytes, positional: false).entry(0)
      let start = entry.rows.baseAddress! - bytes.baseAddress!
      return start..<start + entry.rows.count
    }
  }

  /// Every row of a term page's first entry, read whole.
  private func fullRead(of page: [UInt8], segment: Row) -> Result<[Row], any Error> {
    Result {
      try page.withUnsafeBytes { bytes in
        var found: [Row] = []
        try PostingPage.appendRows(
          of: try PostingPage.View(bytes, positional: false).entry(0), segment: segment, to: &found)
        return found
      }
    }
  }

  /// The list's rows among `members`, its parts read in order with `next` carried between them.
  private func members(_ members: [Row], in pages: [[UInt8]], segment: Row) throws -> [Row] {
    var found: [Row] = []
    // A slice that does not start at 0, as a segment's share of the candidates does not.
    let padding = [Row](repeating: 0, count: 3)
    let slice = (padding + members)[padding.count...]
    var next = slice.startIndex
    for page in pages {
      try page.withUnsafeBytes { bytes in
        let view = try PostingPage.View(bytes, positional: false)
        for index in 0..<view.count {
          try PostingPage.appendRows(
            of: try view.entry(index), segment: segment, members: slice, next: &next, to: &found)
        }
      }
    }
    return found
  }

  /// A list of `count` rows from about `segment`; without `longSteps`, no step is longer than 128
  /// (dense enough for its members to be held as a bitmap). Two steps in `edgesEvery` are not one
  /// byte: 20 leaves few runs of 32 one-byte steps, 600 many.
  private func randomList(
    _ random: inout SplitMix64, count: Int, segment: Row, longSteps: Bool = true, edgesEvery: UInt64 = 20
  ) -> [Row] {
    var rows: [Row] = []
    var row = segment + Row(random.next() % 3)
    for _ in 0..<count {
      rows.append(row)
      // Mostly one-byte steps (1...127), some of exactly 127 and 128 (the edge of one byte),
      // some long.
      switch random.next() % edgesEvery {
      case 0: row += 128
      case 1: row += 127
      case 2 where longSteps: row += Row(200 + random.next() % 100_000)
      default: row += Row(1 + random.next() % (random.next() % 2 == 0 ? 4 : 127))
      }
    }
    return rows
  }

  /// Also over lists of long runs of one-byte steps, which the read passes 32 steps at a time
  /// between members far apart.
  @Test(arguments: [1, 2, 3])
  func keepsExactlyTheMembersTheListHolds(seed: UInt64) throws {
    var random = SplitMix64(seed: seed)
    for round in 0..<60 {
      let segment: Row = Row(random.next() % 4) << 20
      let list = randomList(
        &random, count: 1 + Int(random.next() % 20_000), segment: segment,
        edgesEvery: round % 2 == 0 ? 20 : 600)
      let pages = pages(of: list, segment: segment)
      let last = list.last ?? segment
      // Members: some of the list's rows, some rows near them, some past its end.
      var members = Set<Row>()
      let wanted = Int(random.next() % 400)
      for _ in 0..<wanted {
        switch random.next() % 3 {
        case 0: members.insert(list[Int(random.next() % UInt64(list.count))])
        case 1: members.insert(segment + Row(random.next() % UInt64(last - segment + 2)))
        default: members.insert(last + Row(random.next() % 1_000))
        }
      }
      let sorted = members.sorted()
      let listed = Set(list)
      let expected = sorted.filter { listed.contains($0) }
      #expect(
        try self.members(sorted, in: pages, segment: segment) == expected, "seed \(seed), round \(round)")
    }
  }

  /// The sum of the one-byte numbers of a few words, read in place, is the sum of the bytes when
  /// each is from 1 to 127, and nil when any is not (a zero, a byte with its high bit) or fewer
  /// bytes are left; against a byte-by-byte sum, with the bytes and their edges at every place.
  @Test(arguments: [20, 21])
  func sumsTheSmallNumbersOfWords(seed: UInt64) throws {
    var random = SplitMix64(seed: seed)
    let edges: [UInt8] = [0, 1, 126, 127, 128, 129, 255]
    for round in 0..<4_000 {
      let count = Int(random.next() % 80)
      // Mostly small numbers, so that the sums are found; an edge byte in some rounds.
      var bytes = (0..<count).map { _ in UInt8(1 + random.next() % 127) }
      if round % 2 == 0, count > 0 {
        bytes[Int(random.next() % UInt64(count))] = edges[Int(random.next() % UInt64(edges.count))]
      }
      let offset = count == 0 ? 0 : Int(random.next() % UInt64(count + 1))
      let words = 1 + Int(random.next() % 8)
      let end = offset + 8 * words
      let expected: UInt64? =
        end <= count && bytes[offset..<end].allSatisfy { (1...127).contains($0) }
        ? bytes[offset..<end].reduce(0) { $0 + UInt64($1) } : nil
      let sum = bytes.withUnsafeBytes { PageReader($0, at: offset).sumOfSmallNumbers(inWords: words) }
      #expect(sum == expected, "seed \(seed), round \(round): \(words) words at \(offset) of \(count)")
    }
    // The most the lanes hold: 64 words of 127s.
    let most = [UInt8](repeating: 127, count: 512)
    #expect(most.withUnsafeBytes { PageReader($0, at: 0).sumOfSmallNumbers(inWords: 64) } == 512 * 127)
  }

  /// Where the read steps over 32 rows at once, a member exactly at the 32nd row on, just before
  /// it and just past it, with 32, 33 and more rows left in the entry, and rows up to `Row.max`:
  /// each member the list holds is kept, and no other. Every step is one byte, so the wide
  /// look never fails for a longer step.
  @Test func keepsTheMembersAtTheEdgesOfAThirtyTwoRowStep() throws {
    for segment: Row in [0, 1 << 20, Row.max - 600] {
      for count in [33, 34, 40, 41, 64, 72, 200] {
        let list = rows(from: segment, count: count) { 2 }
        let pages = pages(of: list, segment: segment)
        for target in 8..<count {
          for delta in [-1, 0, 1] {
            // A member near the row `target` steps on, and one at the list's end or past it.
            let members = [Row(Int(list[target]) + delta), list[count - 1], list[count - 1] + 1].filter {
              $0 > list[0]
            }
            let sorted = Array(Set(members)).sorted()
            let expected = sorted.filter { Set(list).contains($0) }
            #expect(
              try self.members(sorted, in: pages, segment: segment) == expected,
              "segment \(segment), \(count) rows, member at row \(target) \(delta)")
          }
        }
      }
    }
  }

  /// The full read, which takes up to eight one-byte steps from one word, gives back every row
  /// of lists of mostly one-byte steps, with and without long ones: of each length from 1 to 24
  /// (every length modulo eight, short of a word and past it), then of random ones.
  @Test(arguments: [10, 11])
  func readsEveryRowOfTheList(seed: UInt64) throws {
    var random = SplitMix64(seed: seed)
    for round in 0..<80 {
      let segment: Row = Row(random.next() % 4) << 20
      let count = round < 48 ? 1 + round / 2 : 1 + Int(random.next() % 5_000)
      let list = randomList(&random, count: count, segment: segment, longSteps: round % 2 == 0)
      var found: [Row] = []
      for page in pages(of: list, segment: segment) {
        try page.withUnsafeBytes { bytes in
          let view = try PostingPage.View(bytes, positional: false)
          for index in 0..<view.count {
            try PostingPage.appendRows(of: try view.entry(index), segment: segment, to: &found)
          }
        }
      }
      #expect(found == list, "seed \(seed), round \(round)")
    }
  }

  /// A damaged entry whose rows hold more one-byte steps than its count (a longer step's first
  /// byte turned into a one-byte number) is refused by the full read, which never writes past
  /// the rows it was asked for: damage near the end of the rows, where a run of eight would
  /// reach past the count.
  @Test(arguments: [12, 13])
  func refusesMoreRowsThanTheCount(seed: UInt64) throws {
    var random = SplitMix64(seed: seed)
    var damaged = 0
    for round in 0..<200 {
      let segment: Row = 1 << 20
      // One-byte steps, and a two-byte one every few rows.
      let rows = rows(from: segment, count: 20 + Int(random.next() % 200)) {
        Row(random.next() % 5 == 0 ? 128 + random.next() % 1_000 : 1 + random.next() % 127)
      }
      var page = pages(of: rows, segment: segment)[0]
      let rowBytes = try rowBytes(of: page)
      // One of the last few longer steps' first bytes (after the first row's), made a one-byte
      // step: the rows' bytes then hold one row more than the count.
      let continued = rowBytes.dropFirst(3).filter { page[$0] >= 0x80 }.suffix(3)
      guard let target = continued.randomElement(using: &random) else { continue }
      page[target] = 1
      damaged += 1
      #expect(
        fullRead(of: page, segment: segment).isFailure,
        "seed \(seed), round \(round): byte \(target - rowBytes.lowerBound) of the rows")
    }
    #expect(damaged > 150)
  }

  /// The same for trigram lists, whose read among members steps over the rows before the next
  /// member eight at once and then over their positions by counting row ends: the starts it finds
  /// are those of the whole list's rows that are members. So does the read that asks each row
  /// whether it is a member.
  @Test(arguments: [6, 7])
  func findsTheMembersStartsAsTheWholeListDoes(seed: UInt64) throws {
    var random = SplitMix64(seed: seed)
    var bitmaps = 0
    for round in 0..<40 {
      let segment: Row = Row(random.next() % 4) << 20
      let rows = randomList(
        &random, count: 1 + Int(random.next() % 10_000), segment: segment, longSteps: round % 2 == 0)
      var bounds: [Int] = [0]
      var positions: [UInt32] = []
      for _ in rows {
        // Mostly one position under 64 (a one-byte head); some larger, some several.
        var position = UInt32(random.next() % (random.next() % 8 == 0 ? 500 : 64))
        for _ in 0...(random.next() % 10 == 0 ? random.next() % 4 : 0) {
          positions.append(position)
          position += 1 + UInt32(random.next() % 30)
        }
        bounds.append(positions.count)
      }
      let pages = TrigramPages.write(rows: rows, bounds: bounds, positions: positions, segment: segment)
      var members = Set<Row>()
      for _ in 0..<Int(random.next() % 300) {
        members.insert(
          random.next() % 2 == 0
            ? rows[Int(random.next() % UInt64(rows.count))]
            : segment + Row(random.next() % UInt64((rows.last ?? segment) - segment + 2)))
      }
      let sorted = members.sorted()
      let offset = UInt32(random.next() % 4)
      let anchored = random.next() % 4 == 0
      var all: [UInt64] = []
      var among: [UInt64] = []
      var next = 0
      for page in pages {
        try page.withUnsafeBytes { bytes in
          let view = try PostingPage.View(bytes, positional: true)
          for index in 0..<view.count {
            let entry = try view.entry(index)
            try PostingPage.appendStarts(
              of: entry, segment: segment, offset: offset, anchored: anchored, to: &all)
            try PostingPage.appendStarts(
              of: entry, segment: segment, offset: offset, anchored: anchored, members: sorted, next: &next,
              to: &among)
          }
        }
      }
      let expected = all.filter { members.contains(Row(truncatingIfNeeded: $0 >> 32)) }
      #expect(among == expected, "seed \(seed), round \(round)")

      // Members about as dense as the list's rows, asked row by row (as an `AND` reads a common
      // trigram's list among a language's rows): a third of its rows and some others.
      let dense = Set(
        rows.filter { _ in random.next() % 3 == 0 }
          + (0..<50).map { _ in segment + Row(random.next() % UInt64((rows.last ?? segment) - segment + 2)) })
      let membership = RowMembership(dense.sorted(), questions: rows.count)
      if membership.isBitmap { bitmaps += 1 }
      var asked: [UInt64] = []
      for page in pages {
        try page.withUnsafeBytes { bytes in
          let view = try PostingPage.View(bytes, positional: true)
          for index in 0..<view.count {
            try PostingPage.appendStarts(
              of: try view.entry(index), segment: segment, offset: offset, anchored: anchored,
              members: membership, to: &asked)
          }
        }
      }
      #expect(
        asked == all.filter { dense.contains(Row(truncatingIfNeeded: $0 >> 32)) },
        "seed \(seed), round \(round), dense members")
    }
    // The rounds without long steps (half) hold their dense members as bitmaps.
    #expect(bitmaps > 15)
  }

  /// A step of zero repeats a row: the full read refuses it, and so does the read among members
  /// whenever it reads that far, whether or not the zero sits in a run it would step over.
  @Test(arguments: [4, 5])
  func refusesARepeatedRowAsTheFullReadDoes(seed: UInt64) throws {
    var random = SplitMix64(seed: seed)
    var refused = 0
    for _ in 0..<200 {
      let segment: Row = 1 << 20
      let rows = rows(from: segment, count: 50 + Int(random.next() % 500)) { Row(1 + random.next() % 100) }
      var page = pages(of: rows, segment: segment)[0]
      // The first entry's rows start after its header; any byte after the first row's may
      // become a zero step.
      let rowBytes = try rowBytes(of: page)
      let damaged = rowBytes.lowerBound + 1 + Int(random.next() % UInt64(rowBytes.count - 1))
      page[damaged] = 0
      let full = fullRead(of: page, segment: segment)
      // A member past the list's end makes the read go through every row.
      let among = Result { try members([Row.max], in: [page], segment: segment) }
      switch (full, among) {
      case (.failure, .failure): refused += 1
      case (.success, .success): break
      default: Issue.record("the full read and the read among members disagree at byte \(damaged)")
      }
    }
    #expect(refused > 150)
  }

  /// A damaged trigram page, read among members as an `AND` reads it: wherever the full read
  /// succeeds, the read among members finds the same starts of its members (it parses rows and
  /// positions as the full read does, only checking less of the positions it steps over); a zero
  /// step among the rows, which the full read refuses, it refuses too when it reads that far (a
  /// member past the list's end makes it), whether or not the zero sits in a run it would step
  /// over whole or in part. So does the read that asks each row whether it is a member. Neither
  /// read traps.
  @Test(arguments: [8, 9])
  func readsADamagedTrigramPageAsTheFullReadDoes(seed: UInt64) throws {
    var random = SplitMix64(seed: seed)
    var refused = 0
    var zeroSteps = 0
    for round in 0..<300 {
      let segment: Row = 1 << 20
      var rows: [Row] = []
      var bounds: [Int] = [0]
      var positions: [UInt32] = []
      var row = segment
      for _ in 0..<(50 + Int(random.next() % 400)) {
        rows.append(row)
        row += Row(1 + random.next() % 100)
        // Mostly one small position; some far (two bytes) or several, whose ends are counted alike.
        var position = UInt32(random.next() % (random.next() % 6 == 0 ? 300 : 64))
        for _ in 0...(random.next() % 8 == 0 ? 1 + random.next() % 2 : 0) {
          positions.append(position)
          position += 1 + UInt32(random.next() % 20)
        }
        bounds.append(positions.count)
      }
      var page = TrigramPages.write(rows: rows, bounds: bounds, positions: positions, segment: segment)[0]
      let (rowsStart, rowsLength, positionsStart, positionsLength) = try page.withUnsafeBytes { bytes in
        let entry = try PostingPage.View(bytes, positional: true).entry(0)
        return (
          entry.rows.baseAddress! - bytes.baseAddress!, entry.rows.count,
          entry.positions.baseAddress! - bytes.baseAddress!, entry.positions.count
        )
      }
      // A byte of the rows after the first row's (whose steps are all one byte), or of the positions.
      let inRows = random.next() % 2 == 0
      let damaged =
        inRows
        ? rowsStart + 1 + Int(random.next() % UInt64(rowsLength - 1))
        : positionsStart + Int(random.next() % UInt64(positionsLength))
      let values: [UInt8] = [0, 0x01, 0x7F, 0x80, 0x81, 0xFF, UInt8(truncatingIfNeeded: random.next())]
      page[damaged] = values[Int(random.next() % UInt64(values.count))]
      let isZeroStep = inRows && page[damaged] == 0
      if isZeroStep { zeroSteps += 1 }
      let members =
        rows.filter { _ in random.next() % 16 == 0 } + [Row.max]
      let offset = UInt32(random.next() % 3)
      let read = { (members: [Row]?) in
        Result { () throws -> [UInt64] in
          try page.withUnsafeBytes { bytes in
            let entry = try PostingPage.View(bytes, positional: true).entry(0)
            var starts: [UInt64] = []
            if let members {
              var next = 0
              try PostingPage.appendStarts(
                of: entry, segment: segment, offset: offset, anchored: false, members: members, next: &next,
                to: &starts)
            } else {
              try PostingPage.appendStarts(
                of: entry, segment: segment, offset: offset, anchored: false, to: &starts)
            }
            return starts
          }
        }
      }
      let full = read(nil)
      let among = read(members)
      // Dense members asked row by row, which reads every row.
      let dense = rows.filter { _ in random.next() % 3 != 0 }
      let asked = Result { () throws -> [UInt64] in
        try page.withUnsafeBytes { bytes in
          var starts: [UInt64] = []
          try PostingPage.appendStarts(
            of: try PostingPage.View(bytes, positional: true).entry(0), segment: segment, offset: offset,
            anchored: false, members: RowMembership(dense, questions: rows.count), to: &starts)
          return starts
        }
      }
      if case .success(let all) = full {
        let memberSet = Set(members)
        let expected = all.filter { memberSet.contains(Row(truncatingIfNeeded: $0 >> 32)) }
        #expect(
          (try? among.get()) == expected, "seed \(seed), round \(round): byte \(damaged) of a readable page")
        let denseSet = Set(dense)
        #expect(
          (try? asked.get()) == all.filter { denseSet.contains(Row(truncatingIfNeeded: $0 >> 32)) },
          "seed \(seed), round \(round): byte \(damaged) of a readable page, dense members")
      }
      if isZeroStep {
        #expect(
          full.isFailure && among.isFailure && asked.isFailure,
          "seed \(seed), round \(round): a zero step at byte \(damaged)")
        if among.isFailure { refused += 1 }
      }
    }
    // About half the rounds damage the rows, a seventh of those with a zero.
    #expect(zeroSteps > 10 && refused == zeroSteps)
  }
}

extension Result {
  fileprivate var isFailure: Bool {
    if case .failure = self { return true }
    return false
  }
}
