/// One of the two meta pages (pages 0 and 1): the root of one committed state of the file.
/// Transaction N writes meta page N mod 2, so the other holds the state one commit older.
public struct MetaPage: Sendable, Hashable {
  /// The number of the page this was read from: 0 or 1.
  public var slot: Int
  /// The page header's `mp_pgno`, `mp_flags`.
  public var headerPageNumber: UInt64
  public var headerFlags: UInt16
  public var magic: UInt32
  public var version: UInt32
  /// `mm_address`: 0 unless the map was fixed (`MDB_FIXEDMAP`, which LiveLog never uses).
  public var address: UInt64
  /// `mm_mapsize`: the map size when the page was written, a hint LMDB may adopt.
  public var mapSize: UInt64
  public var freeDatabase: DatabaseRecord
  public var mainDatabase: DatabaseRecord
  /// `mm_last_pg`: the highest page number the state uses.
  public var lastPage: UInt64
  /// `mm_txnid`: the transaction that wrote the page.
  public var transactionID: UInt64

  /// Bytes of a meta page LMDB reads: the page header and `MDB_meta` (136 bytes).
  public static let byteCount = PageFormat.pageHeaderSize + 136

  /// Reads the meta page of `slot` from its first bytes; nil when they are too few.
  public init?(_ bytes: [UInt8], slot: Int) {
    let base = PageFormat.pageHeaderSize
    guard bytes.count >= MetaPage.byteCount, let pageNumber = bytes.littleEndianUInt64(at: 0),
      let headerFlags = bytes.littleEndianUInt16(at: 10), let magic = bytes.littleEndianUInt32(at: base),
      let version = bytes.littleEndianUInt32(at: base + 4),
      let address = bytes.littleEndianUInt64(at: base + 8),
      let mapSize = bytes.littleEndianUInt64(at: base + 16),
      let free = DatabaseRecord(bytes, at: base + 24),
      let main = DatabaseRecord(bytes, at: base + 24 + DatabaseRecord.size),
      let lastPage = bytes.littleEndianUInt64(at: base + 120),
      let transactionID = bytes.littleEndianUInt64(at: base + 128)
    else { return nil }
    self.slot = slot
    headerPageNumber = pageNumber
    self.headerFlags = headerFlags
    self.magic = magic
    self.version = version
    self.address = address
    self.mapSize = mapSize
    freeDatabase = free
    mainDatabase = main
    self.lastPage = lastPage
    self.transactionID = transactionID
  }

  /// The page size, which LMDB keeps in the free list's record (`mm_psize`).
  public var pageSize: Int { Int(freeDatabase.pad) }

  /// Bytes of the file the state uses: pages 0 through `lastPage`.
  public var usedBytes: UInt64 {
    let (product, overflow) = (lastPage &+ 1).multipliedReportingOverflow(by: UInt64(pageSize))
    return overflow || lastPage == UInt64.max ? UInt64.max : product
  }

  /// Whether LMDB itself accepts the page as a meta page (it checks the flag, the magic number
  /// and the version, and nothing else).
  public var isRecognizedByLMDB: Bool {
    headerFlags & PageFormat.PageFlag.meta != 0 && magic == PageFormat.magic
      && version == PageFormat.dataVersion
  }

  /// Why the page cannot be the root of a sound state, or nil when every field is consistent.
  public var defect: String? {
    // LMDB reads only the flag; a sound meta page has no other.
    guard headerFlags == PageFormat.PageFlag.meta else {
      return
        "its page header does not mark it as a meta page alone (flags 0x\(String(headerFlags, radix: 16)))"
    }
    guard magic == PageFormat.magic else {
      return "its magic number is 0x\(String(magic, radix: 16)), not LMDB's 0xbeefc0de"
    }
    guard version == PageFormat.dataVersion else { return "it has data format version \(version), not 1" }
    guard headerPageNumber == UInt64(slot) else {
      return "its page header names page \(headerPageNumber)"
    }
    guard PageFormat.isPlausiblePageSize(pageSize) else { return "it gives a page size of \(pageSize) bytes" }
    guard address == 0 else { return "it names a fixed map address 0x\(String(address, radix: 16))" }
    guard lastPage >= 1, lastPage < 1 << 40 else { return "its last page number is \(lastPage)" }
    guard mapSize >= usedBytes, mapSize <= 1 << 50 else {
      return "its map size of \(mapSize) bytes cannot hold its \(lastPage + 1) pages"
    }
    guard freeDatabase.flags == PageFormat.DatabaseFlag.integerKey else {
      return "the free list's record has flags 0x\(String(freeDatabase.flags, radix: 16))"
    }
    if let defect = freeDatabase.defect(lastPage: lastPage) { return "the free list's record: \(defect)" }
    guard mainDatabase.pad == 0 else { return "the main database's record has pad \(mainDatabase.pad)" }
    if let defect = mainDatabase.defect(lastPage: lastPage) { return "the main database's record: \(defect)" }
    return nil
  }
}
