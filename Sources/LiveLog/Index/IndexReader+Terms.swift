import LMDB

/// Which exact values of an equality index a term lookup accepts.
enum TermMatch {
  /// Those equal to the value under the options: the values of one folded group.
  case equal
  /// Those that begin with the value under the options: the groups whose fold begins with its
  /// fold. No other group holds one: a value that begins with the prefix under any options
  /// begins with it under `[cd]`, since each scalar folds alone and a `[cd]` fold of any fold is
  /// the `[cd]` fold (`TextFolding`).
  case prefix
}

extension IndexReader {
  /// The rows of every exact value of `field` whose `[cd]` fold is `folded` (or, for `.prefix`,
  /// begins with it) and that equals (begins with) `value` under `options`, ascending; with
  /// `countOnly`, only how many (from page headers, capped past `limit`).
  func termGroupRows(
    field: Field, folded: [UInt8], value: String, options: StringOptions, match: TermMatch, countOnly: Bool,
    limit: Int
  ) throws -> (rows: [Row], count: Int) {
    var group = IndexKeys.termGroupPrefix(field: field.position, folded: folded)
    // A prefix's group is open: its fold, escaped, without the zeros that end a fold.
    if match == .prefix { group.removeLast(2) }
    let target = TextFolding.fold(value, options)
    var exact: [UInt8] = []
    var exactFolded: [UInt8] = []
    let lower = options.contains(.caseInsensitive)
    func malformedTerm() -> any Error {
      collection.damaged("the equality index of \(field.name)", PageDamage("a malformed term"))
    }
    func accepts(_ key: UnsafeRawBufferPointer) throws -> Bool {
      // The value follows the group's fold: right after the group for `.equal`, past the rest of
      // the fold for `.prefix` (whose group ends between escaped bytes).
      guard
        let start = match == .equal
          ? group.count : IndexKeys.exactValueStart(ofTermPrefix: key, from: group.count)
      else {
        throw malformedTerm()
      }
      // Most values are ASCII, whose fold is at most a lowercasing: compared in place, byte by
      // byte, up to the first byte that is not (a zero is escaped, a byte past 0x7F starts a
      // scalar); the rest go the general way.
      var index = start
      var matched = 0
      while index < key.count {
        let byte = key[index]
        if matched == target.count {
          // The value ends here (two zeros), or goes on: then only a prefix matches, but for a
          // rest that is not ASCII, which may fold to nothing (`[d]` drops a combining accent).
          if match == .prefix { return true }
          if byte == 0 { return index + 1 < key.count && key[index + 1] == 0 }
          if byte < 0x80 { return false }
          break
        }
        if byte == 0 || byte >= 0x80 { break }
        if (lower && byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte) != target[matched] { return false }
        matched += 1
        index += 1
      }
      guard IndexKeys.exactValue(ofTermPrefix: key, from: start, into: &exact),
        exact.withUnsafeBufferPointer({ String.isValid(utf8: $0) })
      else {
        throw malformedTerm()
      }
      exact.withUnsafeBytes { TextFolding.fold(utf8: $0, options, into: &exactFolded) }
      return match == .prefix ? exactFolded.starts(with: target) : exactFolded == target
    }
    var count = 0
    var lists: [[Row]] = []
    try withIndex { cursor in
      for segment in directory.starts where count <= limit || !countOnly {
        var rows: [Row] = []
        let start = IndexPageKey.make(segment: segment, kind: .term, entryKey: group, row: 0)
        let found = try cursor.seek(atLeast: start)
        var page: Entry?
        if let before = found == nil ? try cursor.last() : try cursor.previous(),
          IndexPageKey.belongs(before.key, segment: segment, kind: .term)
        {
          page = before
        } else {
          page = try cursor.seek(atLeast: start)
        }
        scan: while let current = page, IndexPageKey.belongs(current.key, segment: segment, kind: .term) {
          let view = try PostingPage.View(current.value, positional: false)
          for position in 0..<view.count {
            let entry = try view.entry(position)
            let order = ByteOrder.compare(
              UnsafeRawBufferPointer(rebasing: entry.key.prefix(group.count)), group)
            if order < 0 { continue }
            if order > 0 { break scan }
            guard try accepts(entry.key) else { continue }
            if countOnly {
              count += entry.rowCount
              // An estimate: a prefix's range may be long, and past the limit it is only "many".
              if count > limit { break scan }
            } else {
              try PostingPage.appendRows(of: entry, segment: segment, to: &rows)
            }
          }
          page = try cursor.next()
        }
        // Several exact values of one segment each list their rows: put them in order.
        if !rows.isEmpty { lists.append(RowSet.ascending(rows)) }
      }
    }
    var rows = RowSet.union(lists)
    if !recent.isEmpty {
      let matching = try recent.rows { entry in
        var found = false
        try entry.forEachTerm { term in
          guard !found, term.count > group.count,
            ByteOrder.compare(UnsafeRawBufferPointer(rebasing: term.prefix(group.count)), group) == 0
          else { return }
          found = try accepts(term)
        }
        return found
      }
      rows = recent.overlay(rows, matching: matching)
      count += matching.count
    }
    return (rows, count)
  }
}
