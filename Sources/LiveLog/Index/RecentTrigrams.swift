import LMDB

/// The trigram index's segment of recent rows: the trigrams of rows inserted by small commits,
/// filed by row rather than by trigram, until enough of them make folding them into the posting
/// lists worth its cost.
///
/// Why: a posting list per trigram puts the ~100 trigrams of one new record on ~100 different
/// pages of the B-tree, so a commit of 30 search results dirtied ~450 pages (1.8 MB written and
/// fsynced) for its trigrams alone. Filed by row, the same record's trigrams are one value on
/// the segment's last page. Queries read the segment beside the posting lists; it holds at most
/// `capacity` rows, which bounds what each substring lookup pays for it.
///
/// Layout, in the `index.trigrams` database, under the slot `0xFF` that no field has
/// (`CollectionSchema.maximumSlots` is 255, slots 0–254):
///
/// ```
/// [0xFF]                 → rows in the segment: UInt32 LE
/// [0xFF] ++ row (4, BE)  → the row's trigram codes, ascending, distinct: UInt32 LE each
/// ```
///
/// A row is in the segment with *every* trigram it has, or not at all: its trigrams are never
/// split between the segment and the posting lists. Only rows inserted by a commit of at most
/// `smallCommit` new rows enter it; a larger write, an index built or dropped for a field, and a
/// segment past `capacity` rows fold it into the posting lists first (`fold`).
enum RecentTrigrams {
  static let slot: UInt8 = 0xFF
  /// Rows the segment holds before it is folded into the posting lists. Each substring lookup
  /// checks every row of the segment (a binary search per trigram of the pattern), and a fold
  /// rewrites about every page of the lists it touches, so this trades one against the other.
  static let capacity = 1_024
  /// Commits inserting more rows than this write straight to the posting lists.
  static let smallCommit = 256

  static let headerKey: [UInt8] = [slot]

  static func key(_ row: Row) -> [UInt8] {
    [
      slot, UInt8(truncatingIfNeeded: row >> 24), UInt8(truncatingIfNeeded: row >> 16),
      UInt8(truncatingIfNeeded: row >> 8), UInt8(truncatingIfNeeded: row),
    ]
  }

  /// Rows in the segment.
  static func count(in database: Database, _ txn: some ReadableTransaction) throws -> Int {
    guard let bytes = try txn.get(database, headerKey) else { return 0 }
    guard bytes.count == 4 else {
      throw StoreError.corruptState(reason: "the trigram index's recent-row count is \(bytes.count) bytes")
    }
    return Int(UInt32(littleEndian: bytes.loadUnaligned(as: UInt32.self)))
  }

  private static func setCount(_ count: Int, in database: Database, _ txn: WriteTransaction) throws {
    if count == 0 {
      try txn.delete(database, headerKey)
      return
    }
    var value = UInt32(count).littleEndian
    try withUnsafeBytes(of: &value) { try txn.put(database, headerKey, Array($0)) }
  }

  /// Calls `body` with each row of the segment and its codes, in row order.
  static func forEach(
    in database: Database, _ txn: some ReadableTransaction,
    _ body: (Row, UnsafeRawBufferPointer) throws -> Void
  ) throws {
    try txn.withCursor(database) { cursor in
      var entry = try cursor.seek(atLeast: key(0))
      while let current = entry, current.key.count == 5, current.key[0] == slot {
        guard current.value.count % 4 == 0 else {
          throw StoreError.corruptState(
            reason:
              "the trigram index's recent row \(row(of: current.key)) holds \(current.value.count) bytes")
        }
        try body(row(of: current.key), current.value)
        entry = try cursor.next()
      }
    }
  }

  private static func row(of key: UnsafeRawBufferPointer) -> Row {
    Row(key[1]) << 24 | Row(key[2]) << 16 | Row(key[3]) << 8 | Row(key[4])
  }

  private static func code(_ codes: UnsafeRawBufferPointer, _ index: Int) -> UInt32 {
    UInt32(littleEndian: codes.loadUnaligned(fromByteOffset: index * 4, as: UInt32.self))
  }

  private static func holds(_ codes: UnsafeRawBufferPointer, _ wanted: UInt32) -> Bool {
    var low = 0
    var high = codes.count / 4
    while low < high {
      let middle = (low + high) / 2
      let found = code(codes, middle)
      if found == wanted { return true }
      if found < wanted { low = middle + 1 } else { high = middle }
    }
    return false
  }

  /// The segment's rows that hold every one of `codes`, ascending.
  static func rows(holdingAll codes: [UInt32], in database: Database, _ txn: some ReadableTransaction) throws
    -> [Row]
  {
    guard try count(in: database, txn) > 0 else { return [] }
    var rows: [Row] = []
    try forEach(in: database, txn) { row, stored in
      if codes.allSatisfy({ holds(stored, $0) }) { rows.append(row) }
    }
    return rows
  }

  /// The codes of `row`, or `nil` when it is not in the segment.
  static func codes(of row: Row, in database: Database, _ txn: some ReadableTransaction) throws -> [UInt32]? {
    guard let bytes = try txn.get(database, key(row)) else { return nil }
    return (0..<(bytes.count / 4)).map { code(bytes, $0) }
  }

  /// Files `codes` (ascending, distinct; empty: removes the row) as the row's trigrams;
  /// `wasStored` says whether the row was in the segment already.
  static func set(
    _ codes: [UInt32], of row: Row, wasStored: Bool, in database: Database, _ txn: WriteTransaction
  ) throws {
    let before = try count(in: database, txn)
    if codes.isEmpty {
      guard wasStored else { return }
      try txn.delete(database, key(row))
      try setCount(before - 1, in: database, txn)
      return
    }
    var value: [UInt8] = []
    value.reserveCapacity(codes.count * 4)
    for code in codes { withUnsafeBytes(of: code.littleEndian) { value.append(contentsOf: $0) } }
    try txn.put(database, key(row), value)
    if !wasStored { try setCount(before + 1, in: database, txn) }
  }

  /// Every posting of the segment as `code << 32 | row`, unsorted.
  static func pairs(in database: Database, _ txn: some ReadableTransaction) throws -> [UInt64] {
    var pairs: [UInt64] = []
    try forEach(in: database, txn) { row, stored in
      for index in 0..<(stored.count / 4) { pairs.append(UInt64(code(stored, index)) << 32 | UInt64(row)) }
    }
    return pairs
  }

  /// Empties the segment, returning its postings (`code << 32 | row`, unsorted) for the caller
  /// to add to the posting lists in the same transaction.
  static func takeAll(from database: Database, _ txn: WriteTransaction) throws -> [UInt64] {
    guard try count(in: database, txn) > 0 else { return [] }
    let taken = try pairs(in: database, txn)
    try txn.withCursor(database) { cursor in
      var entry = try cursor.seek(atLeast: headerKey)
      while let current = entry, current.key.first == slot {
        try cursor.deleteCurrent(in: txn)
        entry = try cursor.next()
      }
    }
    return taken
  }
}
