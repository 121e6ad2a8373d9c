/// A check of a data file's whole structure without LMDB, reading every page of every tree with
/// `pread`: what `livelog verify` runs before LMDB reads anything, so that damage is reported
/// rather than met by LMDB, which trusts its pages and faults (or fails an assertion) on a bad one.
///
/// It checks both meta pages and the file's size; every page of the free list, the main database
/// and each named database (see `TreeWalker`); that each tree's page and entry counts and depth
/// agree with its record; that the free list names only pages no tree uses, each once; and that
/// every page of the file is either in a tree or free.
public struct StructureCheck: Sendable {
  /// One named database, as its record in the main database describes it.
  public struct NamedDatabase: Sendable, Hashable {
    public var name: String
    public var record: DatabaseRecord
  }

  public var health: DataFileHealth
  /// Every problem found, one sentence each.
  public var damage: [String] = []
  /// The named databases of the current state.
  public var databases: [NamedDatabase] = []
  /// Pages of the current state (`lastPage + 1`), and of them those on the free list.
  public var pages: UInt64 = 0
  public var freePages: UInt64 = 0
  /// Byte ranges of the file whose change changes what the file holds (see `Page.meaningfulRanges`),
  /// when asked for.
  public var meaningfulRanges: [Range<Int>] = []

  public var isSound: Bool { damage.isEmpty }

  /// Checks the file at `path`. With `collectMeaningfulRanges`, also records which bytes of the
  /// file are meaningful (for tests that damage a file and must know whether the damage matters).
  public static func run(path: String, collectMeaningfulRanges: Bool = false) throws(LMDBError)
    -> StructureCheck
  {
    guard let health = try DataFileHealth.examineSettled(path: path) else {
      throw LMDBError(code: 2, operation: "open(\(path))", message: "No such file or directory")
    }
    var check = StructureCheck(health: health)
    check.damage.append(contentsOf: health.harmless)
    if let damage = health.damage {
      check.damage.insert(damage, at: 0)
      return check
    }
    guard let meta = health.current else { return check }
    let file = try DataFile(path: path)
    check.walk(file, meta: meta, collect: collectMeaningfulRanges)
    // The state one commit older is whole too until the next commit (LMDB reuses a page only once
    // no reader can see it): a fall-back when the current meta page is lost, and so checked.
    if let older = zip(health.metaPages, health.metaDefects).compactMap({ $1 == nil ? $0 : nil })
      .first(where: { $0.transactionID < meta.transactionID })
    {
      var other = StructureCheck(health: health)
      if older.lastPage > meta.lastPage {
        other.damage.append("its last page \(older.lastPage) is past the current state's \(meta.lastPage)")
      }
      other.walk(file, meta: older, collect: false)
      check.damage += other.damage.map {
        "the older state (meta page \(older.slot), transaction \(older.transactionID)): \($0)"
      }
    }
    return check
  }

  /// Checks the state of `meta`: its trees, its free list, and that they account for every page
  /// up to its last. (For the older state too: the pages its free list names may be in use by
  /// the current state, but its own trees and free list are still whole, and account for its
  /// pages as they did.)
  private mutating func walk(_ file: DataFile, meta: MetaPage, collect: Bool) {
    let lastPage = meta.lastPage
    pages = lastPage + 1
    var seen = [Bool](repeating: false, count: Int(pages))
    seen[0] = true
    seen[1] = true
    if collect {
      for slot in 0..<2 {
        let base = slot * meta.pageSize
        meaningfulRanges += [
          base..<base + 8, base + 10..<base + 12, base + 16..<base + 32, base + 40..<base + 152,
        ]
      }
    }
    var damage: [String] = []
    func mark(_ page: UInt64, _ count: UInt64) -> Bool {
      guard page + count - 1 <= lastPage else { return false }
      for index in page..<page + count where seen[Int(index)] { return false }
      for index in page..<page + count { seen[Int(index)] = true }
      return true
    }
    func tree(
      _ name: String, _ record: DatabaseRecord, onEntry: (TreeWalker.Entry, TreeWalker) -> Void
    ) {
      let walker = TreeWalker(
        file: file, pageSize: meta.pageSize, lastPage: lastPage,
        integerKeys: record.flags & PageFormat.DatabaseFlag.integerKey != 0,
        leafFlags: name == "(main)" ? [PageFormat.NodeFlag.subData] : [0, PageFormat.NodeFlag.bigData])
      var found: [String] = []
      let tally = walker.walk(
        root: record.root,
        onPage: { page, count in
          guard mark(page, count) else { return false }
          if collect, count == 1, let bytes = file.page(page, pageSize: meta.pageSize),
            let parsed = try? Page(number: page, bytes: bytes, lastPage: lastPage)
          {
            let base = Int(page) * meta.pageSize
            meaningfulRanges += parsed.meaningfulRanges.map { base + $0.lowerBound..<base + $0.upperBound }
          }
          return true
        },
        onEntry: { entry in
          if collect, case .overflow(let page, let count) = entry.value {
            let base = Int(page) * meta.pageSize
            meaningfulRanges += [base..<base + 8, base + 10..<base + 16, base + 16..<base + 16 + count]
          }
          onEntry(entry, walker)
        },
        onDamage: { found.append($0.description) })
      damage += found.prefix(20).map { "database \(name): \($0)" }
      if found.count > 20 { damage.append("database \(name): \(found.count - 20) more damaged pages") }
      guard found.isEmpty, !record.isEmpty else { return }
      var mismatches: [String] = []
      if tally.entries != record.entries {
        mismatches.append("\(tally.entries) entries, not \(record.entries)")
      }
      if tally.branchPages != record.branchPages {
        mismatches.append("\(tally.branchPages) branch pages, not \(record.branchPages)")
      }
      if tally.leafPages != record.leafPages {
        mismatches.append("\(tally.leafPages) leaf pages, not \(record.leafPages)")
      }
      if tally.overflowPages != record.overflowPages {
        mismatches.append("\(tally.overflowPages) overflow pages, not \(record.overflowPages)")
      }
      if tally.deepestLevel != Int(record.depth) || tally.shallowestLeaf != Int(record.depth) {
        mismatches.append(
          "leaves at levels \(tally.shallowestLeaf)–\(tally.deepestLevel), not \(record.depth)")
      }
      if !mismatches.isEmpty {
        damage.append(
          "database \(name): its tree has \(mismatches.joined(separator: ", ")) (as its record says)")
      }
    }
    var free: [UInt64] = []
    tree("(free list)", meta.freeDatabase) { entry, walker in
      guard let bytes = walker.read(entry.value), let count = bytes.littleEndianUInt64(at: 0),
        count < UInt64(bytes.count), bytes.count == (Int(count) + 1) * 8
      else {
        damage.append("the free list: an entry of \(entry.key.count)-byte key holds no page list")
        return
      }
      var previous = UInt64.max
      for index in 0..<Int(count) {
        let page = bytes.littleEndianUInt64(at: 8 + 8 * index) ?? 0
        guard page >= 2, page <= lastPage, page < previous else {
          damage.append("the free list: page number \(page) is out of order or outside 2–\(lastPage)")
          return
        }
        previous = page
        free.append(page)
      }
    }
    // The main database's pages are checked and marked by `tree`; its entries are read again by
    // `NamedDatabases`, which knows what they must be.
    tree("(main)", meta.mainDatabase) { _, _ in }
    let (named, namedDamage) = NamedDatabases.read(file, meta: meta)
    damage += namedDamage.filter { !$0.hasPrefix("database (main): ") }
    for database in named { tree(database.name, database.record) { _, _ in } }
    databases = named
    for page in free {
      if seen[Int(page)] {
        damage.append("the free list names page \(page), which is in use or named twice")
      } else {
        seen[Int(page)] = true
      }
    }
    freePages = UInt64(free.count)
    let missing = seen.indices.filter { !seen[$0] }
    if !missing.isEmpty {
      damage.append(
        "\(missing.count) pages are neither in a tree nor on the free list (first: page \(missing[0]))")
    }
    self.damage += damage
  }
}
