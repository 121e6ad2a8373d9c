/// The state of one row that a small commit changed, as the `NAME.recent` database holds it
/// until the next fold: the row's current version and every index entry it has.
///
/// ```
/// flags     UInt8: bit 0 deleted, bit 1 new (past the segments: not in the row table)
/// lsn       varint: the current version's upsert event (0 for a deleted row)
/// key       varint length, the key's bytes (as the keys database stores them)
/// when not deleted:
///   trigrams  varint count, then count × UInt64 LE: code << 32 | position, ascending
///   terms     varint count, then each: varint length, bytes; ascending
///   ordered   varint count, then each: field UInt8, flag UInt8, high UInt64 LE, low UInt32 LE
/// ```
///
/// Trigrams are fixed-width so that a lookup finds a code by binary search in place.
struct RecentEntry {
  var isDeleted: Bool
  var isNew: Bool
  var lsn: UInt64
  var key: [UInt8]
  var entries: IndexEntries

  static func encode(
    isDeleted: Bool, isNew: Bool, lsn: UInt64, key: UnsafeRawBufferPointer, entries: IndexEntries?
  ) -> [UInt8] {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(32 + (entries?.trigrams.count ?? 0) * 8)
    bytes.append((isDeleted ? 1 : 0) | (isNew ? 2 : 0))
    PageBytes.appendVarint(lsn, to: &bytes)
    PageBytes.appendVarint(UInt64(key.count), to: &bytes)
    bytes.append(contentsOf: key)
    guard !isDeleted, let entries else { return bytes }
    PageBytes.appendVarint(UInt64(entries.trigrams.count), to: &bytes)
    for posting in entries.trigrams { withUnsafeBytes(of: posting.littleEndian) { bytes.append(contentsOf: $0) } }
    PageBytes.appendVarint(UInt64(entries.terms.count), to: &bytes)
    for term in entries.terms {
      PageBytes.appendVarint(UInt64(term.count), to: &bytes)
      bytes.append(contentsOf: term)
    }
    PageBytes.appendVarint(UInt64(entries.ordered.count), to: &bytes)
    for entry in entries.ordered {
      bytes.append(entry.field)
      bytes.append(entry.key.flag)
      withUnsafeBytes(of: entry.key.high.littleEndian) { bytes.append(contentsOf: $0) }
      withUnsafeBytes(of: entry.key.low.littleEndian) { bytes.append(contentsOf: $0) }
    }
    return bytes
  }

  /// A stored entry, read in place: its sections are found once, and lookups read them there.
  struct View {
    let isDeleted: Bool
    let isNew: Bool
    let lsn: UInt64
    let key: UnsafeRawBufferPointer
    /// `count` UInt64 LE postings.
    let trigrams: UnsafeRawBufferPointer
    let trigramCount: Int
    let terms: UnsafeRawBufferPointer
    let termCount: Int
    let ordered: UnsafeRawBufferPointer
    let orderedCount: Int

    init(_ bytes: UnsafeRawBufferPointer) throws {
      var reader = PageReader(bytes, at: 0)
      let flags = try reader.take(1)[0]
      guard flags & ~3 == 0 else { throw PageDamage("a recent row's flags \(flags)") }
      isDeleted = flags & 1 != 0
      isNew = flags & 2 != 0
      lsn = try reader.varint()
      key = try reader.take(try reader.count())
      if isDeleted {
        guard reader.isAtEnd else { throw PageDamage("a deleted recent row holds entries") }
        trigrams = UnsafeRawBufferPointer(start: nil, count: 0)
        trigramCount = 0
        terms = trigrams
        termCount = 0
        ordered = trigrams
        orderedCount = 0
        return
      }
      trigramCount = try reader.count()
      trigrams = try reader.take(trigramCount * 8)
      termCount = try reader.count()
      let termStart = reader.offset
      for _ in 0..<termCount { _ = try reader.take(try reader.count()) }
      terms = UnsafeRawBufferPointer(rebasing: bytes[termStart..<reader.offset])
      orderedCount = try reader.count()
      ordered = try reader.take(orderedCount * 14)
      guard reader.isAtEnd else { throw PageDamage("a recent row has bytes after its entries") }
    }

    func trigram(_ index: Int) -> UInt64 {
      UInt64(littleEndian: trigrams.loadUnaligned(fromByteOffset: index * 8, as: UInt64.self))
    }

    /// The positions of `code`, ascending (empty when the row lacks it).
    func positions(of code: UInt32) -> [UInt32] {
      let target = UInt64(code) << 32
      var low = 0
      var high = trigramCount
      while low < high {
        let middle = (low + high) / 2
        if trigram(middle) < target { low = middle + 1 } else { high = middle }
      }
      var positions: [UInt32] = []
      while low < trigramCount {
        let posting = trigram(low)
        guard posting >> 32 == UInt64(code) else { break }
        positions.append(UInt32(truncatingIfNeeded: posting))
        low += 1
      }
      return positions
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

    /// Every entry, decoded (for a fold); `width` gives each ordered field's key width.
    func entries(width: (UInt8) -> Int) throws -> IndexEntries {
      var result = IndexEntries()
      result.trigrams.reserveCapacity(trigramCount)
      for index in 0..<trigramCount { result.trigrams.append(trigram(index)) }
      try forEachTerm { result.terms.append(Array($0)) }
      for index in 0..<orderedCount {
        let offset = index * 14
        let field = ordered[offset]
        let key = orderedKey(field: field) ?? .null
        result.ordered.append(OrderedEntry(field: field, key: key, row: 0, width: width(field)))
      }
      return result
    }
  }
}
