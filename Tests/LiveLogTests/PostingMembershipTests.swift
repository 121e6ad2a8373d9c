import Testing

@testable import LiveLog

/// `PostingPage.appendRows(of:segment:members:next:to:)`, the read an `AND` makes of a long
/// equality list among a few candidates, keeps exactly the members the list holds: checked
/// against a set intersection, over lists whose steps mix the one-byte runs it steps over eight at
/// a time with longer numbers, and over damaged lists, which it must refuse as the full read does
/// wherever it reads that far.
@Suite struct PostingMembershipTests {
  /// Writes `rows` as one list of `segment` and returns its pages' bytes.
  private func pages(of rows: [Row], segment: Row) -> [[UInt8]] {
    var writer = PostingPageWriter(segment: segment, kind: .term)
    rows.withUnsafeBufferPointer { writer.add(key: [9, 0, 0], PostingListSource(rows: $0)) }
    writer.flush()
    return writer.takePages().map(\.value)
  }

  /// Writes `rows`, with the positions of row `i` at `positions[bounds[i]..<bounds[i + 1]]`, as
  /// one trigram list of `segment` and returns its pages' bytes.
  private func trigramPages(rows: [Row], bounds: [Int], positions: [UInt32], segment: Row) -> [[UInt8]] {
    var writer = PostingPageWriter(segment: segment, kind: .trigram)
    rows.withUnsafeBufferPointer { rowBuffer in
      bounds.withUnsafeBufferPointer { boundBuffer in
        positions.withUnsafeBufferPointer { positionBuffer in
          writer.add(
            key: [1, 2, 3, 4],
            PostingListSource(rows: rowBuffer, bounds: boundBuffer, positions: positionBuffer))
        }
      }
    }
    writer.flush()
    return writer.takePages().map(\.value)
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

  private func randomList(_ random: inout SplitMix64, count: Int, segment: Row) -> [Row] {
    var rows: [Row] = []
    var row = segment + Row(random.next() % 3)
    for _ in 0..<count {
      rows.append(row)
      // Mostly one-byte steps (1...127), some of exactly 127 and 128 (the edge of one byte),
      // some long.
      switch random.next() % 20 {
      case 0: row += 128
      case 1: row += 127
      case 2: row += Row(200 + random.next() % 100_000)
      default: row += Row(1 + random.next() % (random.next() % 2 == 0 ? 4 : 127))
      }
    }
    return rows
  }

  @Test(arguments: [1, 2, 3])
  func keepsExactlyTheMembersTheListHolds(seed: UInt64) throws {
    var random = SplitMix64(seed: seed)
    for round in 0..<60 {
      let segment: Row = Row(random.next() % 4) << 20
      let list = randomList(&random, count: 1 + Int(random.next() % 20_000), segment: segment)
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

  /// The same for trigram lists, whose read among members also steps over eight rows at once
  /// when each has one small position: the starts it finds are those of the whole list's rows
  /// that are members.
  @Test(arguments: [6, 7])
  func findsTheMembersStartsAsTheWholeListDoes(seed: UInt64) throws {
    var random = SplitMix64(seed: seed)
    for round in 0..<40 {
      let segment: Row = Row(random.next() % 4) << 20
      let rows = randomList(&random, count: 1 + Int(random.next() % 10_000), segment: segment)
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
      let pages = trigramPages(rows: rows, bounds: bounds, positions: positions, segment: segment)
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
    }
  }

  /// A step of zero repeats a row: the full read refuses it, and so does the read among members
  /// whenever it reads that far, whether or not the zero sits in a run it would step over.
  @Test(arguments: [4, 5])
  func refusesARepeatedRowAsTheFullReadDoes(seed: UInt64) throws {
    var random = SplitMix64(seed: seed)
    var refused = 0
    for _ in 0..<200 {
      let segment: Row = 1 << 20
      var rows: [Row] = []
      var row = segment
      for _ in 0..<(50 + Int(random.next() % 500)) {
        rows.append(row)
        row += Row(1 + random.next() % 100)
      }
      var page = pages(of: rows, segment: segment)[0]
      // The first entry's rows start after its header; any byte after the first row's may
      // become a zero step.
      let (start, length) = try page.withUnsafeBytes { bytes in
        let entry = try PostingPage.View(bytes, positional: false).entry(0)
        return (entry.rows.baseAddress! - bytes.baseAddress!, entry.rows.count)
      }
      let damaged = start + 1 + Int(random.next() % UInt64(length - 1))
      page[damaged] = 0
      let full = Result { () throws -> [Row] in
        try page.withUnsafeBytes { bytes in
          var found: [Row] = []
          try PostingPage.appendRows(
            of: try PostingPage.View(bytes, positional: false).entry(0), segment: segment, to: &found)
          return found
        }
      }
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
  /// over whole or in part. Neither read traps.
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
        // Mostly one small position, so that runs of eight are stepped over; some far or several.
        var position = UInt32(random.next() % (random.next() % 6 == 0 ? 300 : 64))
        for _ in 0...(random.next() % 8 == 0 ? 1 + random.next() % 2 : 0) {
          positions.append(position)
          position += 1 + UInt32(random.next() % 20)
        }
        bounds.append(positions.count)
      }
      var page = trigramPages(rows: rows, bounds: bounds, positions: positions, segment: segment)[0]
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
      if case .success(let all) = full {
        let memberSet = Set(members)
        let expected = all.filter { memberSet.contains(Row(truncatingIfNeeded: $0 >> 32)) }
        #expect(
          (try? among.get()) == expected, "seed \(seed), round \(round): byte \(damaged) of a readable page")
      }
      if isZeroStep {
        #expect(
          full.isFailure && among.isFailure, "seed \(seed), round \(round): a zero step at byte \(damaged)")
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
