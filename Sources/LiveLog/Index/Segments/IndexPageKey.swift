#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The kinds of index entry, in the order a segment's pages hold them.
enum IndexKind: UInt8, CaseIterable, Sendable {
  /// Trigram postings with positions (substring indexes); the entry key is the 4-byte code.
  case trigram = 1
  /// Equality postings; the entry key is the term's prefix (`IndexKeys.termPrefix`).
  case term = 2
  /// Ordered values; the entry key is `[field] ++ OrderedKey`, one entry per row.
  case ordered = 3
}

/// The key of one page of the `indexes` database:
///
/// ```
/// segment start   UInt32, big-endian: the first row of the segment the page belongs to
/// kind            UInt8 (IndexKind)
/// entry key       the key of the page's first entry (4 bytes for a trigram, a term's prefix,
///                 or [field] ++ OrderedKey)
/// row             UInt32, big-endian: the first row of that entry in the page
/// ```
///
/// So a segment's pages are one key range, kinds within it, and entries within a kind in their
/// own order (by key, then by row): a lookup seeks to `(segment, kind, key, row 0)`. Entry keys
/// never are a proper prefix of one another within a kind (codes are fixed-size, term prefixes
/// end in `0x00 0x00` and escape other zeros, ordered keys have one width per field), so the row
/// after them sorts pages as their entries sort.
enum IndexPageKey {
  static let headerSize = 5
  static let rowSize = 4

  static func make(segment: Row, kind: IndexKind, entryKey: UnsafeRawBufferPointer, row: Row) -> [UInt8] {
    var key: [UInt8] = []
    key.reserveCapacity(headerSize + entryKey.count + rowSize)
    appendBigEndian(segment, to: &key)
    key.append(kind.rawValue)
    key.append(contentsOf: entryKey)
    appendBigEndian(row, to: &key)
    return key
  }

  static func make(segment: Row, kind: IndexKind, entryKey: [UInt8], row: Row) -> [UInt8] {
    entryKey.withUnsafeBytes { make(segment: segment, kind: kind, entryKey: $0, row: row) }
  }

  /// The first key a segment's pages of `kind` can have.
  static func start(segment: Row, kind: IndexKind) -> [UInt8] {
    var key: [UInt8] = []
    appendBigEndian(segment, to: &key)
    key.append(kind.rawValue)
    return key
  }

  static func appendBigEndian(_ value: UInt32, to key: inout [UInt8]) {
    key.append(UInt8(truncatingIfNeeded: value >> 24))
    key.append(UInt8(truncatingIfNeeded: value >> 16))
    key.append(UInt8(truncatingIfNeeded: value >> 8))
    key.append(UInt8(truncatingIfNeeded: value))
  }

  static func bigEndian(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> UInt32 {
    UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16 | UInt32(bytes[offset + 2]) << 8
      | UInt32(bytes[offset + 3])
  }

  /// Whether `key` is a well-formed page key (room for the header, an entry key and a row).
  static func isWellFormed(_ key: UnsafeRawBufferPointer) -> Bool {
    key.count > headerSize + rowSize && IndexKind(rawValue: key[4]) != nil
  }

  static func segment(of key: UnsafeRawBufferPointer) -> Row { bigEndian(key, at: 0) }
  static func kind(of key: UnsafeRawBufferPointer) -> IndexKind? { IndexKind(rawValue: key[4]) }
  static func row(of key: UnsafeRawBufferPointer) -> Row { bigEndian(key, at: key.count - rowSize) }

  static func entryKey(of key: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
    UnsafeRawBufferPointer(rebasing: key[headerSize..<(key.count - rowSize)])
  }

  /// The field (slot) of a well-formed ordered page's key: its entry key's first byte.
  static func field(of key: UnsafeRawBufferPointer) -> UInt8 { key[headerSize] }

  /// The width of the values in a well-formed ordered page's key: its entry key past the field.
  static func orderedWidth(of key: UnsafeRawBufferPointer) -> Int { key.count - headerSize - rowSize - 1 }

  /// Whether `key` is a page of `segment` and `kind`.
  static func belongs(_ key: UnsafeRawBufferPointer, segment: Row, kind: IndexKind) -> Bool {
    key.count > headerSize + rowSize && bigEndian(key, at: 0) == segment && key[4] == kind.rawValue
  }
}

/// Byte strings compared as unsigned bytes, shorter first on a tie: LMDB's default order.
enum ByteOrder {
  static func compare(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Int {
    let common = min(a.count, b.count)
    if common > 0, let x = a.baseAddress, let y = b.baseAddress {
      let c = memcmp(x, y, common)
      if c != 0 { return c < 0 ? -1 : 1 }
    }
    return a.count == b.count ? 0 : (a.count < b.count ? -1 : 1)
  }

  static func compare(_ a: UnsafeRawBufferPointer, _ b: [UInt8]) -> Int {
    b.withUnsafeBytes { compare(a, $0) }
  }
}
