/// The state of one row that a small commit changed, as the `NAME.recent` database holds it
/// until the next fold: the row's current version and every index entry it has.
///
/// ```
/// flags     UInt8: bit 0 deleted, bit 1 new (past the segments: not in the row table),
///           bit 2 the trigrams are a filter (every entry of a row not deleted since format 9)
/// lsn       varint: the current version's upsert event (0 for a deleted row)
/// key       varint length, the key's bytes (as the keys database stores them)
/// when not deleted:
///   trigrams  with bit 2: varint byte count, then a Bloom filter of the codes (`TrigramFilter`);
///             without (format 8): varint count, then count × UInt32 LE: the distinct codes,
///             ascending
///   terms     varint count, then each: varint length, bytes; ascending
///   ordered   varint count, then each: field UInt8, flag UInt8, high UInt64 LE, low UInt32 LE
/// ```
///
/// Trigrams say only which codes a row may hold, without positions: a row that may hold every
/// trigram of a pattern is checked against its record, and a fold reads each row's full entries
/// from its record. Positions would take most of an entry's bytes for what a handful of recent
/// rows' checks cost. `RecentEntry.entry` and `RecentEntry.Encoder` write entries; an entry of
/// format 8, with its codes, still reads.
enum RecentEntry {
  /// A stored entry, read in place: its sections are found once, and lookups read them there.
  struct View {
    let isDeleted: Bool
    let isNew: Bool
    let lsn: UInt64
    let key: UnsafeRawBufferPointer
    /// The codes' filter (`TrigramFilter`); `nil` in an entry of format 8, which lists them.
    let trigramFilter: UnsafeRawBufferPointer?
    /// An entry of format 8's `trigramCount` UInt32 LE codes, ascending; none in a later one.
    let trigrams: UnsafeRawBufferPointer
    let trigramCount: Int
    let terms: UnsafeRawBufferPointer
    let termCount: Int
    let ordered: UnsafeRawBufferPointer
    let orderedCount: Int

    init(_ bytes: UnsafeRawBufferPointer) throws {
      var reader = PageReader(bytes, at: 0)
      let flags = try reader.take(1)[0]
      guard flags & ~7 == 0 else { throw PageDamage("a recent row's flags \(flags)") }
      isDeleted = flags & 1 != 0
      isNew = flags & 2 != 0
      lsn = try reader.varint()
      key = try reader.take(try reader.count())
      if isDeleted {
        guard reader.isAtEnd else { throw PageDamage("a deleted recent row holds entries") }
        trigrams = UnsafeRawBufferPointer(start: nil, count: 0)
        trigramFilter = nil
        trigramCount = 0
        terms = trigrams
        termCount = 0
        ordered = trigrams
        orderedCount = 0
        return
      }
      if flags & 4 != 0 {
        let size = try reader.count()
        guard TrigramFilter.isWellSized(size) else {
          throw PageDamage("a recent row's filter of \(size) bytes")
        }
        trigramFilter = try reader.take(size)
        trigramCount = 0
        trigrams = UnsafeRawBufferPointer(start: nil, count: 0)
      } else {
        trigramFilter = nil
        trigramCount = try reader.count()
        trigrams = try reader.take(trigramCount * 4)
      }
      termCount = try reader.count()
      let termStart = reader.offset
      for _ in 0..<termCount { _ = try reader.take(try reader.count()) }
      terms = UnsafeRawBufferPointer(rebasing: bytes[termStart..<reader.offset])
      orderedCount = try reader.count()
      ordered = try reader.take(orderedCount * 14)
      guard reader.isAtEnd else { throw PageDamage("a recent row has bytes after its entries") }
    }

    func code(_ index: Int) -> UInt32 {
      UInt32(littleEndian: trigrams.loadUnaligned(fromByteOffset: index * 4, as: UInt32.self))
    }

    /// Whether the row's text may have the trigram `code`: false only when it lacks it, so that
    /// the rows this finds are candidates to check against their records.
    func mayHave(_ code: UInt32) -> Bool {
      if let trigramFilter { return TrigramFilter.mayContain(code, in: trigramFilter) }
      var low = 0
      var high = trigramCount
      while low < high {
        let middle = (low + high) / 2
        let found = self.code(middle)
        if found == code { return true }
        if found < code { low = middle + 1 } else { high = middle }
      }
      return false
    }

    /// Calls `body` with each term prefix.
    func forEachTerm(_ body: (UnsafeRawBufferPointer) throws -> Void) throws {
      var reader = PageReader(terms, at: 0)
      for _ in 0..<termCount { try body(try reader.take(try reader.count())) }
    }

    func hasTerm(_ term: [UInt8]) throws -> Bool {
      var found = false
      try term.withUnsafeBytes { wanted in
        try forEachTerm { if !found && ByteOrder.compare($0, wanted) == 0 { found = true } }
      }
      return found
    }

    /// The field of the `index`-th ordered value.
    func orderedField(_ index: Int) -> UInt8 { ordered[index * 14] }

    /// The ordered value of field `slot`, if the entry has one.
    func orderedKey(field slot: UInt8) -> OrderedKey? {
      for index in 0..<orderedCount {
        let offset = index * 14
        guard ordered[offset] == slot else { continue }
        return OrderedKey(
          flag: ordered[offset + 1],
          high: UInt64(littleEndian: ordered.loadUnaligned(fromByteOffset: offset + 2, as: UInt64.self)),
          low: UInt32(littleEndian: ordered.loadUnaligned(fromByteOffset: offset + 10, as: UInt32.self)))
      }
      return nil
    }
  }
}
