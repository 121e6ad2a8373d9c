/// The parts of LMDB's data-file format (`data.mdb`) that this layer reads itself, without LMDB:
/// to check a file before LMDB maps it (LMDB trusts every page number and size it finds, so a
/// damaged file makes it fault), and to walk a damaged file page by page.
///
/// The layout is that of LMDB 0.9 on a 64-bit little-endian machine (`mdb.c`): every page starts
/// with a 16-byte header; pages 0 and 1 are the two meta pages, written in turn by successive
/// transactions; branch and leaf pages hold 8-byte node headers reached through an array of
/// 2-byte offsets after the page header; values too large for a leaf live on overflow pages.
public enum PageFormat {
  /// `PAGEHDRSZ`: page number (8), pad (2), flags (2), lower and upper bounds of the free space
  /// (2 + 2), or for an overflow page the number of pages of its run (4).
  public static let pageHeaderSize = 16
  /// `NODESIZE`: data size or child page (lo, hi: 2 + 2), flags (2), key size (2).
  public static let nodeHeaderSize = 8
  /// `MDB_MAGIC`, the first field of a meta page's content.
  public static let magic: UInt32 = 0xBEEF_C0DE
  /// `MDB_DATA_VERSION`.
  public static let dataVersion: UInt32 = 1
  /// `P_INVALID`: the root of an empty tree.
  public static let invalidPage = UInt64.max
  /// The most levels a tree may have (`CURSOR_STACK`).
  public static let maximumDepth = 32

  /// `mp_flags` bits.
  public enum PageFlag {
    public static let branch: UInt16 = 0x01
    public static let leaf: UInt16 = 0x02
    public static let overflow: UInt16 = 0x04
    public static let meta: UInt16 = 0x08
    public static let leaf2: UInt16 = 0x20
    public static let subpage: UInt16 = 0x40
  }

  /// `mn_flags` bits of a leaf node.
  public enum NodeFlag {
    /// The value is on overflow pages; the node holds their first page number.
    public static let bigData: UInt16 = 0x01
    /// The value is a named database's `MDB_db` record (in the main database).
    public static let subData: UInt16 = 0x02
    /// The value is a tree of sorted duplicates (`MDB_DUPSORT`).
    public static let dupData: UInt16 = 0x04
  }

  /// `md_flags` of a database record.
  public enum DatabaseFlag {
    public static let integerKey: UInt16 = 0x08
    /// Every flag LMDB keeps in a record (`PERSISTENT_FLAGS` less `MDB_VALID`).
    public static let persistent: UInt16 = 0x7E
  }

  /// The number of pages an overflow run needs for a value of `size` bytes (`OVPAGES`).
  public static func overflowPages(forValueOf size: Int, pageSize: Int) -> Int {
    (pageHeaderSize - 1 + size) / pageSize + 1
  }

  /// Whether `size` is a page size LMDB can have written: a power of two from 512 to 64 KiB.
  public static func isPlausiblePageSize(_ size: Int) -> Bool {
    size >= 512 && size <= 65_536 && size & (size - 1) == 0
  }
}

/// Little-endian reads from bytes of the file, bounds-checked: a damaged length or offset reads
/// nothing rather than past the end.
extension [UInt8] {
  func littleEndianUInt16(at offset: Int) -> UInt16? {
    guard offset >= 0, offset + 2 <= count else { return nil }
    return UInt16(self[offset]) | UInt16(self[offset + 1]) << 8
  }

  func littleEndianUInt32(at offset: Int) -> UInt32? {
    guard offset >= 0, offset + 4 <= count else { return nil }
    var value: UInt32 = 0
    for index in (0..<4).reversed() { value = value << 8 | UInt32(self[offset + index]) }
    return value
  }

  func littleEndianUInt64(at offset: Int) -> UInt64? {
    guard offset >= 0, offset + 8 <= count else { return nil }
    var value: UInt64 = 0
    for index in (0..<8).reversed() { value = value << 8 | UInt64(self[offset + index]) }
    return value
  }
}
