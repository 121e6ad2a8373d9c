/// Walks one database's B-tree in a data file read with `pread`, checking every page on the way,
/// and reports its entries in key order. A damaged page does not stop the walk: it is reported,
/// and the walk goes on with the next subtree.
public struct TreeWalker {
  /// Where a leaf entry's value lies in the file.
  public enum ValueLocation: Sendable, Hashable {
    /// In the leaf node, at a byte offset of the file.
    case inline(offset: Int, count: Int)
    /// On overflow pages, from `page`'s contents (its header skipped).
    case overflow(page: UInt64, count: Int)
  }

  /// A leaf entry.
  public struct Entry {
    public var key: ArraySlice<UInt8>
    public var flags: UInt16
    public var value: ValueLocation
    /// The value's bytes when they are in the node (small values and named-database records).
    public var inlineValue: ArraySlice<UInt8>?
  }

  /// A damaged page, where the walk met it.
  public struct Damage: Sendable, Hashable, CustomStringConvertible {
    public var page: UInt64
    /// The page that points to it, nil for a root.
    public var parent: UInt64?
    public var defect: String
    public var description: String {
      "page \(page)" + (parent.map { " (reached from page \($0))" } ?? " (the root)") + ": \(defect)"
    }
  }

  /// Figures of a walk, to compare with the database's record.
  public struct Tally: Sendable, Hashable {
    public var branchPages: UInt64 = 0
    public var leafPages: UInt64 = 0
    public var overflowPages: UInt64 = 0
    public var entries: UInt64 = 0
    public var deepestLevel = 0
    public var shallowestLeaf = Int.max
  }

  public let file: DataFile
  public let pageSize: Int
  public let lastPage: UInt64
  /// Whether keys compare as native-endian integers (`MDB_INTEGERKEY`) rather than as bytes.
  public var integerKeys: Bool
  /// The leaf node flags the database's entries may have: plain or overflow values in a data
  /// database, database records in the main one. nil: any.
  public var leafFlags: Set<UInt16>?

  public init(
    file: DataFile, pageSize: Int, lastPage: UInt64, integerKeys: Bool, leafFlags: Set<UInt16>? = nil
  ) {
    self.file = file
    self.pageSize = pageSize
    self.lastPage = lastPage
    self.integerKeys = integerKeys
    self.leafFlags = leafFlags
  }

  /// Walks the tree of `root`, calling `onPage` for each page reached (with its overflow pages)
  /// before reading it, `onEntry` for each entry, `onDamage` for each damaged page. `onPage`
  /// returns false for a page already seen elsewhere, which is then reported and not read again.
  public func walk(
    root: UInt64, onPage: (_ page: UInt64, _ count: UInt64) -> Bool = { _, _ in true },
    onEntry: (Entry) -> Void, onDamage: (Damage) -> Void
  ) -> Tally {
    var tally = Tally()
    guard root != PageFormat.invalidPage else { return tally }
    var previousKey: [UInt8]?
    visit(
      root, parent: nil, level: 1, lowerBound: nil, upperBound: nil, previousKey: &previousKey,
      tally: &tally, onPage: onPage, onEntry: onEntry, onDamage: onDamage)
    return tally
  }

  private func visit(
    _ number: UInt64, parent: UInt64?, level: Int, lowerBound: [UInt8]?, upperBound: [UInt8]?,
    previousKey: inout [UInt8]?, tally: inout Tally, onPage: (UInt64, UInt64) -> Bool,
    onEntry: (Entry) -> Void, onDamage: (Damage) -> Void
  ) {
    func damage(_ text: String) { onDamage(Damage(page: number, parent: parent, defect: text)) }
    guard level <= PageFormat.maximumDepth else { return damage("the tree is deeper than 32 levels") }
    guard onPage(number, 1) else {
      return damage("it is reached twice (from two places of the file's trees)")
    }
    guard let bytes = file.page(number, pageSize: pageSize) else {
      return damage("it lies past the end of the file (\(file.size) bytes)")
    }
    let page: Page
    do {
      page = try Page(number: number, bytes: bytes, lastPage: lastPage)
    } catch {
      return damage(error.description)
    }
    // Keys must ascend within the page and lie within the bounds the parent gives.
    for (index, node) in page.nodes.enumerated() where !(page.isBranch && index == 0) {
      let key = Array(page.slice(node.key))
      if let lowerBound, compare(key, lowerBound) < 0 {
        return damage("key \(index) sorts before the bound its parent gives")
      }
      if let upperBound, compare(key, upperBound) >= 0 {
        return damage("key \(index) sorts after the bound its parent gives")
      }
      if index > (page.isBranch ? 1 : 0), compare(Array(page.slice(page.nodes[index - 1].key)), key) >= 0 {
        return damage("key \(index) does not sort after key \(index - 1)")
      }
    }
    if page.isBranch {
      guard page.nodes.count >= 2 else { return damage("a branch page with \(page.nodes.count) child") }
      tally.branchPages += 1
      for (index, node) in page.nodes.enumerated() {
        let low = index == 0 ? lowerBound : Array(page.slice(node.key))
        let high = index + 1 < page.nodes.count ? Array(page.slice(page.nodes[index + 1].key)) : upperBound
        visit(
          node.page ?? PageFormat.invalidPage, parent: number, level: level + 1, lowerBound: low,
          upperBound: high,
          previousKey: &previousKey, tally: &tally, onPage: onPage, onEntry: onEntry, onDamage: onDamage)
      }
      return
    }
    tally.leafPages += 1
    tally.deepestLevel = max(tally.deepestLevel, level)
    tally.shallowestLeaf = min(tally.shallowestLeaf, level)
    for (index, node) in page.nodes.enumerated() {
      let key = page.slice(node.key)
      if let leafFlags, !leafFlags.contains(node.flags) {
        damage(
          "node \(index) has flags 0x\(String(node.flags, radix: 16)), which no entry of this database has")
        continue
      }
      // An integer-key database's keys are all of one size (8 bytes for LiveLog's).
      if integerKeys, key.count != (previousKey?.count ?? key.count) || (key.count != 8 && key.count != 4) {
        damage("key \(index) is \(key.count) bytes long in a database of integer keys")
        continue
      }
      if let previous = previousKey, compare(previous, Array(key)) >= 0 {
        damage("key \(index) does not sort after the last key of the page before")
        continue
      }
      previousKey = Array(key)
      tally.entries += 1
      if let range = node.value {
        onEntry(
          Entry(
            key: key, flags: node.flags,
            value: .inline(offset: Int(number) * pageSize + range.lowerBound, count: range.count),
            inlineValue: page.slice(range)))
      } else if let first = node.page {
        guard let defect = overflowDefect(first, valueSize: node.valueSize, onPage: onPage, tally: &tally)
        else {
          onEntry(Entry(key: key, flags: node.flags, value: .overflow(page: first, count: node.valueSize)))
          continue
        }
        onDamage(Damage(page: first, parent: number, defect: defect))
      }
    }
  }

  /// Checks the overflow run that starts at `first` for a value of `valueSize` bytes.
  func overflowDefect(_ first: UInt64, valueSize: Int, onPage: (UInt64, UInt64) -> Bool, tally: inout Tally)
    -> String?
  {
    let needed = PageFormat.overflowPages(forValueOf: valueSize, pageSize: pageSize)
    guard let bytes = file.page(first, pageSize: pageSize) else {
      return "the overflow page lies past the end of the file"
    }
    guard bytes.littleEndianUInt64(at: 0) == first,
      bytes.littleEndianUInt16(at: 10) == PageFormat.PageFlag.overflow,
      let pages = bytes.littleEndianUInt32(at: 12)
    else {
      return "it is not the overflow page of a \(valueSize)-byte value (its header is damaged)"
    }
    guard Int(pages) >= needed, first + UInt64(pages) - 1 <= lastPage else {
      return "its overflow run of \(pages) pages cannot hold a \(valueSize)-byte value within the file"
    }
    guard onPage(first, UInt64(pages)) else { return "its overflow pages are reached twice" }
    guard UInt64(file.size) >= (first + UInt64(pages)) * UInt64(pageSize) else {
      return "its overflow run ends past the end of the file"
    }
    tally.overflowPages += UInt64(pages)
    return nil
  }

  /// Reads a value's bytes; nil when the file ends first.
  public func read(_ location: ValueLocation) -> [UInt8]? {
    switch location {
    case .inline(let offset, let count):
      let bytes = file.read(offset: offset, count: count)
      return bytes.count == count ? bytes : nil
    case .overflow(let page, let count):
      let bytes = file.read(offset: Int(page) * pageSize + PageFormat.pageHeaderSize, count: count)
      return bytes.count == count ? bytes : nil
    }
  }

  /// LMDB's order of keys: integers for integer-key databases, bytes (then length) otherwise.
  func compare(_ a: [UInt8], _ b: [UInt8]) -> Int {
    if integerKeys, a.count == b.count, a.count == 8 || a.count == 4 {
      let x = a.count == 8 ? a.littleEndianUInt64(at: 0) ?? 0 : UInt64(a.littleEndianUInt32(at: 0) ?? 0)
      let y = b.count == 8 ? b.littleEndianUInt64(at: 0) ?? 0 : UInt64(b.littleEndianUInt32(at: 0) ?? 0)
      return x < y ? -1 : (x == y ? 0 : 1)
    }
    for (x, y) in zip(a, b) where x != y { return x < y ? -1 : 1 }
    return a.count - b.count
  }
}
