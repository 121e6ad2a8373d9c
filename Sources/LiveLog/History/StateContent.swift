import LMDB

/// A store's state read as what it holds rather than how it is laid out, for digests and
/// comparisons: a store that grew commit by commit and its replay hold the same records, keys and
/// index entries, in different segments, pages and recent rows.
///
/// Each collection reads as three tables:
/// - `NAME.keys`: the keys database, entry for entry (its layout is its content);
/// - `NAME.rows`: every row holding a record, ascending, with the LSN of its version and its key
///   (the row table with the recent rows on top);
/// - `NAME.index`: every index entry — a trigram of a row with its positions, a term of a row, an
///   ordered value of a row — whichever segment, page or recent row holds it. Entries come in no
///   particular order, so the table's digest is a sum of entry hashes.
enum StateContent {
  /// One index entry, as the digest hashes it.
  struct IndexEntry {
    var kind: IndexKind
    var key: [UInt8]
    var row: Row
    var positions: [UInt32]

    var hash: UInt64 {
      var hasher = DigestHasher()
      hasher.combine(UInt64(kind.rawValue))
      hasher.combine(key)
      hasher.combine(UInt64(row))
      hasher.combine(UInt64(positions.count))
      for position in positions { hasher.combine(UInt64(position)) }
      return hasher.value
    }

    /// For people: "trigram 'abc' of full_name at row 12", "term … of language at row 3".
    func describe(_ schema: CollectionSchema) -> String {
      let field = { (slot: UInt8) in schema.field(atSlot: Int(slot))?.name ?? "slot \(slot)" }
      switch kind {
      case .trigram:
        guard key.count == 4 else { return "a trigram entry at row \(row)" }
        if key[1...] == [0xFF, 0xFF, 0xFF] { return "the [d]-fold marker of \(field(key[0])) at row \(row)" }
        return "trigram '\(String(decoding: key[1...], as: UTF8.self))' of \(field(key[0])) at row \(row)"
          + " (positions \(positions.map(String.init).joined(separator: ",")))"
      case .term:
        guard let slot = key.first else { return "a term entry at row \(row)" }
        return "term \(key.dropFirst().map { String($0, radix: 16) }.joined(separator: " ")) of "
          + "\(field(slot)) at row \(row)"
      case .ordered:
        guard let slot = key.first else { return "an ordered entry at row \(row)" }
        return "ordered value \(key.dropFirst().map { String($0, radix: 16) }.joined(separator: " ")) of "
          + "\(field(slot)) at row \(row)"
      }
    }
  }

  /// Calls `body` with every index entry of `collection` (in no particular order); `rows`, when
  /// given, limits them to those rows.
  static func forEachIndexEntry(
    of collection: StoredCollection, _ txn: some ReadableTransaction, onlyRow: Row? = nil,
    _ body: (IndexEntry) throws -> Void
  ) throws {
    let recent = try RecentRows.load(collection, txn)
    let shadowed = Set(recent.rows)
    do {
      try txn.withCursor(collection.databases.index) { cursor in
        var entry = try cursor.first()
        while let page = entry {
          guard IndexPageKey.isWellFormed(page.key), let kind = IndexPageKey.kind(of: page.key) else {
            throw PageDamage("a page key of \(page.key.count) bytes")
          }
          let segment = IndexPageKey.segment(of: page.key)
          switch kind {
          case .trigram, .term:
            let view = try PostingPage.View(page.value, positional: kind == .trigram)
            for position in 0..<view.count {
              let part = try view.entry(position)
              let key = Array(part.key)
              for (row, positions) in try PostingPage.decode(part, segment: segment, positional: kind == .trigram)
              where !shadowed.contains(row) && (onlyRow == nil || onlyRow == row) {
                try body(IndexEntry(kind: kind, key: key, row: row, positions: positions))
              }
            }
          case .ordered:
            let width = page.key.count - IndexPageKey.headerSize - IndexPageKey.rowSize - 1
            let slot = page.key[IndexPageKey.headerSize]
            var reader = try OrderedPage.Reader(pageKey: page.key, value: page.value, width: width)
            while let (value, row) = try reader.next() {
              guard !shadowed.contains(row), onlyRow == nil || onlyRow == row else { continue }
              var key: [UInt8] = [slot]
              value.append(to: &key, width: width)
              try body(IndexEntry(kind: .ordered, key: key, row: row, positions: []))
            }
          }
          entry = try cursor.next()
        }
      }
    } catch let damage as PageDamage {
      throw collection.damaged("the index", damage)
    }
    let width = collection.orderedWidths
    for (row, view) in zip(recent.rows, recent.entries) where !view.isDeleted {
      guard onlyRow == nil || onlyRow == row else { continue }
      // What the recent row holds: its codes (with the positions its record gives them, since it
      // keeps none), terms and ordered values. A code, term or value it lacks or holds wrongly
      // reads differently from the entries a replay builds.
      let record = try collection.entries(
        of: try collection.record(at: UInt64(row), lsn: view.lsn, txn), row: UInt64(row))
      var positions: [UInt32: [UInt32]] = [:]
      for posting in record.trigrams {
        positions[UInt32(truncatingIfNeeded: posting >> 32), default: []].append(UInt32(truncatingIfNeeded: posting))
      }
      for index in 0..<view.trigramCount {
        let code = view.code(index)
        try body(IndexEntry(kind: .trigram, key: IndexKeys.trigramPrefix(code), row: row, positions: positions[code] ?? []))
      }
      try view.forEachTerm { try body(IndexEntry(kind: .term, key: Array($0), row: row, positions: [])) }
      for index in 0..<view.orderedCount {
        let slot = view.orderedField(index)
        guard let value = view.orderedKey(field: slot) else { continue }
        var key: [UInt8] = [slot]
        value.append(to: &key, width: width(slot))
        try body(IndexEntry(kind: .ordered, key: key, row: row, positions: []))
      }
    }
  }

  /// Calls `body` with every row holding a record, ascending, with its version's LSN and its key.
  static func forEachRow(
    of collection: StoredCollection, _ txn: some ReadableTransaction,
    _ body: (Row, UInt64, UnsafeRawBufferPointer) throws -> Void
  ) throws {
    let recent = try RecentRows.load(collection, txn)
    var next = 0
    func flushRecent(before row: Row?) throws {
      while next < recent.rows.count && row.map({ recent.rows[next] < $0 }) ?? true {
        let entry = recent.entries[next]
        if !entry.isDeleted { try body(recent.rows[next], entry.lsn, entry.key) }
        next += 1
      }
    }
    do {
      try collection.rowTable.forEachBlock(txn) { block in
        try block.forEach { row, lsn, key in
          try flushRecent(before: row)
          if recent.entry(of: row) == nil { try body(row, lsn, key) }
          return true
        }
        return true
      }
    } catch let damage as PageDamage {
      throw collection.damaged("the row table", damage)
    }
    try flushRecent(before: nil)
  }
}
