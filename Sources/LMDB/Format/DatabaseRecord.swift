/// A database's record (`MDB_db`, 48 bytes): in a meta page for the free list and the main
/// database, and as the value of a named database's entry in the main database.
public struct DatabaseRecord: Sendable, Hashable {
  public static let size = 48

  /// `md_pad`: the page size in the free list's record, otherwise 0.
  public var pad: UInt32
  public var flags: UInt16
  /// Levels of the tree, 0 when it is empty.
  public var depth: UInt16
  public var branchPages: UInt64
  public var leafPages: UInt64
  public var overflowPages: UInt64
  public var entries: UInt64
  /// The root page, `PageFormat.invalidPage` when the tree is empty.
  public var root: UInt64

  /// Reads the record at `offset` of `bytes`; nil when the bytes end first.
  public init?(_ bytes: [UInt8], at offset: Int) {
    guard let pad = bytes.littleEndianUInt32(at: offset),
      let flags = bytes.littleEndianUInt16(at: offset + 4),
      let depth = bytes.littleEndianUInt16(at: offset + 6),
      let branch = bytes.littleEndianUInt64(at: offset + 8),
      let leaf = bytes.littleEndianUInt64(at: offset + 16),
      let overflow = bytes.littleEndianUInt64(at: offset + 24),
      let entries = bytes.littleEndianUInt64(at: offset + 32),
      let root = bytes.littleEndianUInt64(at: offset + 40)
    else { return nil }
    self.pad = pad
    self.flags = flags
    self.depth = depth
    branchPages = branch
    leafPages = leaf
    overflowPages = overflow
    self.entries = entries
    self.root = root
  }

  /// Whether the tree is empty.
  public var isEmpty: Bool { root == PageFormat.invalidPage }

  /// Pages of the tree: branch, leaf and overflow.
  public var pages: UInt64 {
    let (sum, overflowed) = branchPages.addingReportingOverflow(leafPages)
    let (total, overflowedAgain) = sum.addingReportingOverflow(overflowPages)
    return overflowed || overflowedAgain ? UInt64.max : total
  }

  /// What makes the record impossible in a file whose last page is `lastPage`, or nil.
  public func defect(lastPage: UInt64) -> String? {
    guard flags & ~PageFormat.DatabaseFlag.persistent == 0 else {
      return "unknown flags 0x\(String(flags, radix: 16))"
    }
    if isEmpty {
      guard depth == 0, entries == 0, pages == 0 else {
        return "an empty tree that claims \(depth) levels, \(entries) entries and \(pages) pages"
      }
      return nil
    }
    guard root >= 2, root <= lastPage else {
      return "root page \(root) is outside the file's pages 2–\(lastPage)"
    }
    guard depth >= 1, Int(depth) <= PageFormat.maximumDepth else { return "a depth of \(depth) levels" }
    guard leafPages >= 1, entries >= 1 else {
      return "a tree with a root but \(leafPages) leaf pages and \(entries) entries"
    }
    guard pages <= lastPage - 1 else { return "\(pages) pages in a file of \(lastPage + 1)" }
    guard depth == 1 || branchPages >= UInt64(depth) - 1 else {
      return "\(depth) levels but \(branchPages) branch pages"
    }
    return nil
  }
}
