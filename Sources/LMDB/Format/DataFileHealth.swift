#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// What a data file's size and meta pages say about it, checked before LMDB maps the file.
///
/// LMDB checks a meta page's flag, magic number and version, and then trusts it: a file shorter
/// than the pages its meta page names is mapped anyway, and the first read past the end kills
/// the process with SIGBUS. A zeroed meta page makes LMDB refuse the whole file, although the
/// other meta page may hold the state one commit older, intact.
public struct DataFileHealth: Sendable {
  public var path: String
  public var fileSize: Int
  /// Meta pages 0 and 1 as read (nil: too few bytes), and why each cannot be used.
  public var metaPages: [MetaPage?]
  public var metaDefects: [String?]
  /// The meta page LMDB will use, when the file may be opened.
  public var current: MetaPage?
  /// Why LMDB must not open the file; nil when it may.
  public var damage: String?
  /// Damage that does not keep LMDB from reading the current state (an older meta page that is
  /// unusable; the next commit rewrites it).
  public var harmless: [String] = []

  /// The intact meta page of the highest transaction: where a salvage starts.
  public var newestIntactMetaPage: MetaPage? {
    zip(metaPages, metaDefects).compactMap { $1 == nil ? $0 : nil }.max {
      $0.transactionID < $1.transactionID
    }
  }

  /// Whether the newest intact meta page is known to be the current state's: both are intact,
  /// or the damaged one is of an older transaction. When the damaged one may be the current
  /// one, the last commit's state is not known.
  public var newestIntactIsCurrent: Bool {
    guard let newest = newestIntactMetaPage else { return false }
    return zip(metaPages, metaDefects).allSatisfy { meta, defect in
      defect == nil
        || (meta.map { $0.isRecognizedByLMDB && $0.transactionID < newest.transactionID } ?? false)
    }
  }

  /// The page size of the file, from whichever meta page gives a plausible one.
  public var pageSize: Int? {
    (newestIntactMetaPage ?? metaPages.compactMap { $0 }.first { PageFormat.isPlausiblePageSize($0.pageSize) })?
      .pageSize
  }

  /// Examines the data file at `path`; nil when there is no such file.
  public static func examine(path: String) throws(LMDBError) -> DataFileHealth? {
    let file: DataFile
    do {
      file = try DataFile(path: path)
    } catch let error where error.code == ENOENT {
      return nil
    }
    return DataFileHealth(file)
  }

  /// `examine`, read again when it finds damage: a commit of another process may be rewriting a
  /// meta page at the very moment it is read, and the page then reads torn.
  public static func examineSettled(path: String) throws(LMDBError) -> DataFileHealth? {
    var health = try examine(path: path)
    for _ in 0..<2 where health?.damage != nil {
      usleep(20_000)
      health = try examine(path: path)
    }
    return health
  }

  init(_ file: DataFile) {
    path = file.path
    fileSize = file.size
    let (first, second) = file.metaPages()
    metaPages = [first, second]
    metaDefects = [first, second].map { $0.map { $0.defect } ?? "the file ends before it" }
    guard fileSize > 0 else {
      damage = "the file is empty (0 bytes)"
      return
    }
    let size = metaPages.compactMap { $0?.pageSize }.first(where: PageFormat.isPlausiblePageSize) ?? 4096
    guard fileSize >= 2 * size else {
      damage =
        "the file is \(fileSize) bytes long, shorter than its two meta pages (2 × \(size) bytes): "
        + "it was truncated"
      return
    }
    let intact = zip(metaPages, metaDefects).compactMap { $1 == nil ? $0 : nil }
    switch intact.count {
    case 2:
      let (a, b) = (intact[0], intact[1])
      guard a.pageSize == b.pageSize else {
        damage = "its meta pages give different page sizes (\(a.pageSize) and \(b.pageSize) bytes)"
        return
      }
      let (low, high) = a.transactionID < b.transactionID ? (a, b) : (b, a)
      // Transaction N writes meta page N mod 2: the two pages hold consecutive transactions
      // (both 0 in a file no transaction has committed to).
      guard high.transactionID == low.transactionID + 1 || high.transactionID == 0 else {
        damage =
          "its meta pages name transactions \(low.transactionID) and \(high.transactionID), which are "
          + "not consecutive: one of them is damaged"
        return
      }
      use(high)
    case 1:
      let good = intact[0]
      let badSlot = 1 - good.slot
      let reason = metaDefects[badSlot] ?? "damaged"
      if let bad = metaPages[badSlot], bad.isRecognizedByLMDB, bad.transactionID < good.transactionID {
        // LMDB takes the page of the higher transaction: the damaged older page is never read.
        harmless.append(
          "meta page \(badSlot), the older one (transaction \(bad.transactionID)), is damaged: \(reason); "
            + "the next commit rewrites it")
        use(good)
      } else if let bad = metaPages[badSlot], bad.isRecognizedByLMDB {
        damage =
          "meta page \(badSlot), the current one (transaction \(bad.transactionID)), is damaged: \(reason); "
          + "meta page \(good.slot) (transaction \(good.transactionID), the state one commit older) is intact"
      } else {
        damage =
          "meta page \(badSlot) is damaged: \(reason); meta page \(good.slot) (transaction "
          + "\(good.transactionID)) is intact"
      }
    default:
      damage =
        "both meta pages are damaged (page 0: \(metaDefects[0] ?? "?"); page 1: \(metaDefects[1] ?? "?"))"
    }
  }

  private mutating func use(_ meta: MetaPage) {
    guard UInt64(fileSize) >= meta.usedBytes else {
      damage =
        "the file is \(fileSize) bytes long, but its current meta page (transaction \(meta.transactionID)) "
        + "uses \(meta.lastPage + 1) pages of \(meta.pageSize) bytes (\(meta.usedBytes) bytes): it was truncated"
      return
    }
    current = meta
  }
}
