import LMDB

/// One collection's indexes as one read transaction sees them: every segment, with the recent
/// rows on top (a recent row's entries replace what the segments hold for it).
///
/// Each lookup visits the segments in row order, so the rows it gathers come out ascending
/// without a sort across segments.
struct IndexReader<Txn: ReadableTransaction> {
  let collection: StoredCollection
  let txn: Txn
  let directory: SegmentDirectory
  let recent: RecentRows

  init(collection: StoredCollection, txn: Txn) throws {
    self.collection = collection
    self.txn = txn
    directory = try collection.directory(txn)
    recent = try RecentRows.load(collection, txn)
  }

  var index: Database { collection.databases.index }

  /// Runs `body` with a cursor over the index, turning damaged pages into `corruptState`.
  func withIndex<R>(_ body: (inout Cursor) throws -> R) throws -> R {
    do {
      return try txn.withCursor(index, body)
    } catch let damage as PageDamage {
      throw collection.damaged("the index", damage)
    }
  }

  // MARK: Postings

  /// The rows of the posting list `key` of `kind`, ascending; only those of `members`
  /// (ascending), when given. For a trigram, the recent rows among them are those that may hold
  /// it (`RecentEntry.View.mayHave`), a few more than hold it: its callers check their rows'
  /// records.
  ///
  /// Why `members`: an `AND` whose other parts found a few hundred rows asks a list of tens of
  /// thousands which of them it holds. Decoding the list and keeping the members as it goes
  /// costs a few nanoseconds a row and builds nothing; reading it whole and intersecting costs
  /// several times that, and checking each member's record a microsecond or more each. A
  /// segment without members is not read, and a segment's list is decoded no further than its last
  /// member.
  ///
  /// `counted`, the list's parts from `count(_:limit:)`, spares finding them again in the
  /// segments it covers.
  func rows(of key: [UInt8], kind: IndexKind, within members: [Row]? = nil, counted: PostingListParts? = nil)
    throws
    -> [Row]
  {
    precondition(counted.map { $0.key == key && $0.kind == kind } ?? true, "another list's parts")
    var rows = try withIndex { cursor -> [Row] in
      var rows: [Row] = []
      for (position, segment) in directory.starts.enumerated() {
        func forEachPart(_ body: (PostingPage.Entry) throws -> Void) throws {
          if let counted, position < counted.segments.count {
            try counted.segments[position].forEach(body)
          } else {
            try SegmentLookup.forEachPart(of: key, kind: kind, segment: segment, cursor: &cursor, body)
          }
        }
        guard let members else {
          try forEachPart { try PostingPage.appendRows(of: $0, segment: segment, to: &rows) }
          continue
        }
        let here = self.members(members, inSegmentAt: position)
        guard !here.isEmpty else { continue }
        var next = here.startIndex
        try forEachPart {
          guard next < here.endIndex else { return }
          try PostingPage.appendRows(of: $0, segment: segment, members: here, next: &next, to: &rows)
        }
      }
      return rows
    }
    if !recent.isEmpty {
      let matching: [Row]
      switch kind {
      case .term: matching = try recent.rows { try $0.hasTerm(key) }
      case .trigram:
        let code = key.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        matching = recent.rows { $0.mayHave(code) }
      case .ordered: matching = []
      }
      rows = recent.overlay(rows, matching: members.map { RowSet.intersection(matching, $0) } ?? matching)
    }
    return rows
  }

  /// The rows of `members` (ascending) in the segment at `position` of the directory: the only
  /// ones that segment's lists can hold.
  private func members(_ members: [Row], inSegmentAt position: Int) -> ArraySlice<Row> {
    let starts = directory.starts
    let from = RowSet.gallop(members, from: 0, to: starts[position])
    let to =
      position + 1 < starts.count
      ? RowSet.gallop(members, from: from, to: starts[position + 1]) : members.count
    return members[from..<to]
  }

  /// About how many rows the list `key` has (page headers only), stopping past `limit`.
  func count(of key: [UInt8], kind: IndexKind, limit: Int) throws -> Int {
    var counted = PostingListParts(key: key, kind: kind)
    return try count(&counted, limit: limit)
  }

  /// `count(of:kind:limit:)` of the list `counted` is of, going on from the segments it covers
  /// and adding the parts of those it counts: a later count with a higher limit reads no
  /// segment twice. One with a lower limit counts nothing and returns the count so far, which
  /// may be higher than a fresh count would stop at, but is past the limit all the same.
  func count(_ counted: inout PostingListParts, limit: Int) throws -> Int {
    let starts = directory.starts
    if counted.rowCount <= limit && counted.segments.count < starts.count {
      try withIndex { cursor in
        for segment in starts[counted.segments.count...] where counted.rowCount <= limit {
          let (parts, rowCount) = try SegmentLookup.parts(
            of: counted.key, kind: counted.kind, segment: segment, cursor: &cursor)
          counted.segments.append(parts)
          counted.rowCount += rowCount
        }
      }
    }
    return counted.rowCount + recent.rows.count
  }

  /// The rows holding every trigram of `codes`, at any positions: the candidates of a pattern
  /// the positions cannot decide (`LIKE`, `ENDSWITH`, a case-sensitive `CONTAINS`).
  /// Smallest list first; a list far longer than the candidates left is not read (`fullyRead`
  /// is then false: the rows are a superset of those holding every trigram).
  func rows(holdingAll codes: [UInt32], limit: Int) throws -> [Row] {
    var sized: [(Int, UInt32)] = []
    for code in codes {
      sized.append((try count(of: IndexKeys.trigramPrefix(code), kind: .trigram, limit: limit), code))
    }
    sized.sort { $0.0 < $1.0 }
    var rows: [Row]?
    for (size, code) in sized {
      // Decoding a row of a list costs far less than checking a candidate's record, but not
      // nothing: a list hundreds of times longer than the candidates is left to the check.
      if let current = rows, size > 256 * max(current.count, 1) { break }
      let list = try self.rows(of: IndexKeys.trigramPrefix(code), kind: .trigram)
      rows = rows.map { RowSet.intersection($0, list) } ?? list
      if rows?.isEmpty == true { break }
    }
    return rows ?? []
  }

  // MARK: Positions

  /// The rows whose `[cd]`-folded text of `field` holds `pattern` (already `[cd]`-folded, at
  /// least 3 bytes) — at its start when `anchored` — decided by trigram positions alone; and,
  /// among them, the recent rows (`unsure`), which keep their trigrams without positions and
  /// are checked against their records.
  ///
  /// The trigrams at offsets 0, 3, 6, … and the last one cover every byte of the pattern, so a
  /// row holds the pattern at `s` exactly when each of them sits at `s` plus its offset: the
  /// lists become sets of `row << 32 | start` and intersect. Only the rows of `members`
  /// (ascending), when given, are looked for; and after the smallest list, only the rows whose
  /// starts remain: the other rows' positions are stepped over rather than turned into starts.
  /// An anchored pattern's lists at offsets under 64 are read whole looking at each row's first
  /// position alone (`PostingPage.appendAnchoredStarts`): the first unless `members` are given,
  /// a later one while the starts so far are not far fewer than its rows (`headsReadRatio`).
  func rows(containing pattern: [UInt8], field: Field, anchored: Bool, within members: [Row]? = nil) throws
    -> (rows: [Row], unsure: [Row])
  {
    let offsets = TrigramPostings.coveringOffsets(count: pattern.count)
    let codes = offsets.map {
      IndexKeys.trigramCode(field: field.position, pattern[$0], pattern[$0 + 1], pattern[$0 + 2])
    }
    let rows = try withIndex { cursor -> [Row] in
      var rows: [Row] = []
      for (position, segment) in directory.starts.enumerated() {
        // The caller's rows in this segment, whose lists hold its rows alone.
        var here = members
        if let members {
          let slice = self.members(members, inSegmentAt: position)
          guard !slice.isEmpty else { continue }
          here = Array(slice)
        }
        // Smallest list of this segment first: it bounds the starts.
        var sized: [(count: Int, index: Int, parts: [PostingPage.Entry])] = []
        for index in codes.indices {
          let (parts, count) = try SegmentLookup.parts(
            of: IndexKeys.trigramPrefix(codes[index]), kind: .trigram, segment: segment, cursor: &cursor)
          sized.append((count, index, parts))
          if count == 0 { break }
        }
        guard !sized.contains(where: { $0.count == 0 }) else { continue }
        sized.sort { $0.count < $1.count }
        var starts: [UInt64]?
        var list: [UInt64] = []
        for (listCount, index, parts) in sized {
          list.removeAll(keepingCapacity: true)
          let offset = UInt32(offsets[index])
          // An anchored pattern's lists are read whole, looking at each row's first position,
          // and intersected with the starts so far, when those are not far fewer than the list's
          // rows (`headsReadRatio`); the first list among the caller's rows is read for them.
          let readsHeads =
            anchored && offset < 64
            && (starts.map { $0.count * Self.headsReadRatio >= listCount } ?? (here == nil))
          // The rows a list may add starts for: those of the starts so far, or the caller's.
          var filter = here
          if let starts, !readsHeads {
            var rows: [Row] = []
            StartSet.appendRows(of: starts, to: &rows)
            filter = rows
          }
          // The caller's rows, when about as dense as the list's, are asked as bits rather than
          // merged with it (`askedMembersRatio`).
          var membership: RowMembership?
          if starts == nil, let here, here.count * Self.askedMembersRatio >= listCount {
            let asked = RowMembership(here, questions: listCount)
            if asked.isBitmap { membership = asked }
          }
          var next = 0
          for part in parts {
            if readsHeads {
              try PostingPage.appendAnchoredStarts(of: part, segment: segment, offset: offset, to: &list)
            } else if let membership {
              try PostingPage.appendStarts(
                of: part, segment: segment, offset: offset, anchored: anchored, members: membership, to: &list
              )
            } else if let filter {
              try PostingPage.appendStarts(
                of: part, segment: segment, offset: offset, anchored: anchored, members: filter, next: &next,
                to: &list)
            } else {
              try PostingPage.appendStarts(
                of: part, segment: segment, offset: offset, anchored: anchored, to: &list)
            }
          }
          starts = starts.map { StartSet.intersection($0, list) } ?? list
          if starts?.isEmpty == true { break }
        }
        StartSet.appendRows(of: starts ?? [], to: &rows)
      }
      return rows
    }
    guard !recent.isEmpty else { return (rows, []) }
    let candidates = recent.rows { entry in codes.allSatisfy { entry.mayHave($0) } }
    return (recent.overlay(rows, matching: candidates), candidates)
  }

  /// A list at most this many times longer than the caller's rows (those of another part of an
  /// `AND`: a language's among a common trigram's) asks each of its rows whether it is one of
  /// them, a bitmap, rather than merging with them: the next one is then mostly within eight
  /// list rows, where the merge cannot step over eight at once, and mostly not in the list, so
  /// that the merge mispredicts its comparison at nearly every row (`'learning'` among Swift's
  /// rows at 1M, the fastest of 300 runs: 1.45–1.53 ms merged, 1.24–1.32 ms asked). The rows of
  /// the starts found so far are always merged: they are the list's own rows mostly, which the
  /// merge takes in stride (`'learning'` alone, its later lists asked: 7.3 ms merged, 7.9 ms
  /// asked).
  static var askedMembersRatio: Int { 16 }

  /// A list at most this many times longer than the starts found so far is read whole for an
  /// anchored pattern, looking at each row's first position alone, rather than merged with their
  /// rows, reading each one's positions. At 1M records, `name BEGINSWITH[c] 'react'` has 6,769
  /// starts before a list of 32,518 rows: read whole, 205 µs; every position read, 470 µs.
  /// `AND language == 'Swift'` leaves about 200 starts before it: merged, 285 µs; read whole,
  /// 325 µs.
  static var headsReadRatio: Int { 16 }

  /// Rows of `members` (ascending) whose text of `field` a `[d]` fold changes: a `[c]` match of
  /// theirs found by position must still be checked against the record.
  func unplainRows(of field: Field, within members: [Row]) throws -> [Row] {
    try rows(
      of: IndexKeys.trigramPrefix(IndexKeys.unplainCode(field: field.position)), kind: .trigram,
      within: members)
  }
}

/// Sets of pattern starts, `row << 32 | start`, ascending.
enum StartSet {
  /// Starts in both; galloping through the longer one when the lengths differ much.
  static func intersection(_ a: [UInt64], _ b: [UInt64]) -> [UInt64] {
    let (small, large) = a.count <= b.count ? (a, b) : (b, a)
    guard !small.isEmpty else { return [] }
    var result: [UInt64] = []
    result.reserveCapacity(small.count)
    var low = 0
    if large.count / small.count < 8 {
      var j = 0
      for value in small {
        while j < large.count && large[j] < value { j += 1 }
        if j == large.count { break }
        if large[j] == value { result.append(value) }
      }
      return result
    }
    for value in small {
      var bound = 1
      while low + bound < large.count && large[low + bound] < value { bound *= 2 }
      var high = min(low + bound, large.count)
      while low < high {
        let middle = (low + high) / 2
        if large[middle] < value { low = middle + 1 } else { high = middle }
      }
      if low == large.count { break }
      if large[low] == value { result.append(value) }
    }
    return result
  }

  /// The distinct rows of `starts`, appended in order.
  static func appendRows(of starts: [UInt64], to rows: inout [Row]) {
    for start in starts {
      let row = Row(truncatingIfNeeded: start >> 32)
      if rows.last != row { rows.append(row) }
    }
  }
}

/// A posting list's parts in the segments counted so far (the first ones), kept by an `AND`
/// that counts a list to order its parts and then reads it among the candidates: each of the
/// counts and the read found the list's pages again, a seek and a cursor step per page (a
/// language a sixth of a million rows have spans some forty pages). The parts point into the
/// map, as `SegmentLookup.parts(of:kind:segment:cursor:)` says.
struct PostingListParts {
  let key: [UInt8]
  let kind: IndexKind
  /// Each counted segment's parts, in row order.
  fileprivate(set) var segments: [[PostingPage.Entry]] = []
  /// Rows in those parts.
  fileprivate(set) var rowCount = 0
}
