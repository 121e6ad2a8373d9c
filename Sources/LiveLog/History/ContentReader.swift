import Foundation
import LMDB

/// A database read as what it holds rather than how it is laid out, for digests and comparisons.
///
/// Posting databases (`index.trigrams`, `index.terms`) store each list as blocks of rows, and
/// where a list splits into blocks depends on the commits that built it: a store rebuilt in large
/// transactions splits its lists differently from one that grew commit by commit. Read here,
/// every posting is one entry — key `prefix ++ row` (4 bytes, big-endian), empty value — so both
/// stores read alike. Other databases read entry for entry. A block that does not decode is read
/// as it is stored, so that it differs from any healthy block and is named where it lies.
struct ContentReader {
  private var cursor: Cursor
  private let readsPostings: Bool
  /// The entry under the cursor: a whole stored entry, or the block whose rows are being read.
  private var stored: Entry?
  private var rows: [Row] = []
  private var position = 0
  /// The current posting's key: the block's prefix, then the row.
  private var postingKey: [UInt8] = []
  /// The current entry is a block of a posting database that does not decode.
  private(set) var isDamagedBlock = false
  /// The trigram index's segment of recent rows (`RecentTrigrams`), as `code << 32 | row`
  /// ascending: read as the postings it stands for, in their place among the lists' postings.
  private let recent: [UInt64]
  /// Whether the database is a trigram index, whose entries under `RecentTrigrams.slot` are
  /// read through `recent`.
  private let hasRecentSegment: Bool
  private var recentPosition = 0
  private var recentKey: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 0]
  /// Whether the current entry is `recent[recentPosition]` rather than the cursor's.
  private var readsRecent = false

  init(_ cursor: Cursor, readsPostings: Bool, recent: [UInt64]? = nil) throws {
    self.cursor = cursor
    self.readsPostings = readsPostings
    self.recent = recent ?? []
    self.hasRecentSegment = recent != nil
    try load(self.cursor.first())
    choose()
  }

  /// The postings of the trigram index's segment of recent rows, for `init(_:readsPostings:recent:)`;
  /// `nil` for other databases.
  static func recentPostings(of database: Database, _ txn: some ReadableTransaction) throws -> [UInt64]? {
    guard database.name.hasSuffix(".index.trigrams") else { return nil }
    return PairSort.sorted(try RecentTrigrams.pairs(in: database, txn))
  }

  var isAtEnd: Bool { stored == nil && recentPosition == recent.count }

  /// Calls `body` with the current entry's key and value (`nil` at the end); they are valid
  /// until the reader moves.
  func withEntry<R>(_ body: (UnsafeRawBufferPointer?, UnsafeRawBufferPointer?) throws -> R) rethrows -> R {
    if readsRecent {
      return try recentKey.withUnsafeBytes { try body($0, UnsafeRawBufferPointer(start: nil, count: 0)) }
    }
    guard let stored else { return try body(nil, nil) }
    guard readsPostings, !isDamagedBlock else { return try body(stored.key, stored.value) }
    return try postingKey.withUnsafeBytes { try body($0, UnsafeRawBufferPointer(start: nil, count: 0)) }
  }

  mutating func advance() throws {
    if readsRecent {
      recentPosition += 1
    } else {
      guard stored != nil else { return }
      if readsPostings, !isDamagedBlock, position + 1 < rows.count {
        position += 1
        setRow(rows[position])
      } else {
        try load(cursor.next())
      }
    }
    choose()
  }

  /// Makes the current entry the first, by key, of the cursor's and the segment's.
  private mutating func choose() {
    guard recentPosition < recent.count else {
      readsRecent = false
      return
    }
    let pair = recent[recentPosition]
    for index in 0..<8 { recentKey[index] = UInt8(truncatingIfNeeded: pair >> UInt64(56 - 8 * index)) }
    guard stored != nil else {
      readsRecent = true
      return
    }
    readsRecent = false
    let order = recentKey.withUnsafeBytes { segment in
      withEntry { key, _ in ContentReader.compare(segment, key, integerKeys: false) }
    }
    readsRecent = order < 0
  }

  private mutating func load(_ entry: Entry?) throws {
    stored = entry
    isDamagedBlock = false
    // The segment's own entries are read through `recent`.
    if hasRecentSegment, let entry, entry.key.first == RecentTrigrams.slot {
      stored = nil
      return
    }
    guard readsPostings, let entry else { return }
    rows.removeAll(keepingCapacity: true)
    position = 0
    let prefixCount = entry.key.count - 4
    guard prefixCount >= 0 else {
      isDamagedBlock = true
      return
    }
    let firstRow = entry.key[prefixCount...].reduce(Row(0)) { $0 << 8 | Row($1) }
    do {
      try PostingBlocks.decode(entry.value, firstRow: firstRow, into: &rows)
    } catch {
      isDamagedBlock = true
      return
    }
    postingKey.removeAll(keepingCapacity: true)
    postingKey.append(contentsOf: entry.key[..<prefixCount])
    postingKey.append(contentsOf: [0, 0, 0, 0])
    setRow(firstRow)
  }

  private mutating func setRow(_ row: Row) {
    let end = postingKey.count
    postingKey[end - 4] = UInt8(truncatingIfNeeded: row >> 24)
    postingKey[end - 3] = UInt8(truncatingIfNeeded: row >> 16)
    postingKey[end - 2] = UInt8(truncatingIfNeeded: row >> 8)
    postingKey[end - 1] = UInt8(truncatingIfNeeded: row)
  }
}

extension ContentReader {
  /// Orders keys as a database does: integer keys numerically, others bytewise, a shorter key
  /// before the longer one it begins; the end after every key.
  static func compare(_ a: UnsafeRawBufferPointer?, _ b: UnsafeRawBufferPointer?, integerKeys: Bool) -> Int {
    guard let a else { return b == nil ? 0 : 1 }
    guard let b else { return -1 }
    if integerKeys && a.count == 8 && b.count == 8 {
      let x = a.loadUnaligned(as: UInt64.self)
      let y = b.loadUnaligned(as: UInt64.self)
      return x < y ? -1 : (x > y ? 1 : 0)
    }
    let common = min(a.count, b.count)
    if common > 0, let x = a.baseAddress, let y = b.baseAddress {
      let order = memcmp(x, y, common)
      if order != 0 { return order < 0 ? -1 : 1 }
    }
    return a.count < b.count ? -1 : (a.count > b.count ? 1 : 0)
  }
}
