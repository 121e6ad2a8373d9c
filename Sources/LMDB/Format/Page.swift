/// A branch or leaf page of a data file, its nodes checked against the page's bounds.
public struct Page: Sendable {
  /// A node of the page: where its key and value lie in the page, or the child it points to.
  public struct Node: Sendable, Hashable {
    /// Offset of the node header in the page.
    public var offset: Int
    public var flags: UInt16
    /// The key's bytes in the page.
    public var key: Range<Int>
    /// A leaf's value in the page, when it is stored in the node.
    public var value: Range<Int>?
    /// A leaf's value size (also for values on overflow pages).
    public var valueSize: Int
    /// The first page of a leaf's overflow run, or a branch node's child.
    public var page: UInt64?
  }

  public var number: UInt64
  public var flags: UInt16
  public var bytes: [UInt8]
  public var nodes: [Node]

  public var isLeaf: Bool { flags & PageFormat.PageFlag.leaf != 0 }
  public var isBranch: Bool { flags & PageFormat.PageFlag.branch != 0 }

  /// The bytes of `range` of the page.
  public func slice(_ range: Range<Int>) -> ArraySlice<UInt8> { bytes[range] }

  /// Parses page `number` from its bytes; throws a description of what is wrong with it.
  ///
  /// Everything LMDB would follow is checked: the page names itself, is a branch or a leaf page
  /// and nothing else (not a LEAF2 or sub-page, which LiveLog's databases never hold), its free-space
  /// bounds and node offsets lie inside it, every node's key and value end inside it, a branch
  /// node's child and an overflow value's first page are within `lastPage`.
  public init(number: UInt64, bytes: [UInt8], lastPage: UInt64) throws(PageDefect) {
    self.number = number
    self.bytes = bytes
    let size = bytes.count
    guard let header = bytes.littleEndianUInt64(at: 0), let flags = bytes.littleEndianUInt16(at: 10),
      let lower = bytes.littleEndianUInt16(at: 12).map(Int.init),
      let upper = bytes.littleEndianUInt16(at: 14).map(Int.init)
    else { throw PageDefect("the page is shorter than its header") }
    self.flags = flags
    guard header == number else { throw PageDefect("its header names page \(header)") }
    // Exactly one of the two: any other bit is damage (a stray P_DIRTY, say, would make LMDB
    // write into the read-only map when a transaction touches the page).
    let kind = flags
    guard kind == PageFormat.PageFlag.branch || kind == PageFormat.PageFlag.leaf else {
      throw PageDefect("flags 0x\(String(flags, radix: 16)) do not make it a branch or leaf page")
    }
    guard lower >= PageFormat.pageHeaderSize, (lower - PageFormat.pageHeaderSize) % 2 == 0, lower <= upper,
      upper <= size
    else {
      throw PageDefect("its free space runs from byte \(lower) to \(upper) of \(size)")
    }
    let count = (lower - PageFormat.pageHeaderSize) / 2
    guard count >= 1 else { throw PageDefect("it has no nodes") }
    let isBranch = kind == PageFormat.PageFlag.branch
    var nodes: [Node] = []
    nodes.reserveCapacity(count)
    for index in 0..<count {
      let offset = Int(bytes.littleEndianUInt16(at: PageFormat.pageHeaderSize + 2 * index) ?? 0)
      func defect(_ text: String) -> PageDefect {
        PageDefect("node \(index) of \(count) (at byte \(offset)) \(text)")
      }
      guard offset >= upper, offset % 2 == 0, offset + PageFormat.nodeHeaderSize <= size,
        let low = bytes.littleEndianUInt16(at: offset), let high = bytes.littleEndianUInt16(at: offset + 2),
        let nodeFlags = bytes.littleEndianUInt16(at: offset + 4),
        let keySize = bytes.littleEndianUInt16(at: offset + 6).map(Int.init)
      else { throw defect("lies outside the page's node area, bytes \(upper)–\(size)") }
      let keyStart = offset + PageFormat.nodeHeaderSize
      guard keyStart + keySize <= size else {
        throw defect("has a \(keySize)-byte key that ends past the page")
      }
      let key = keyStart..<keyStart + keySize
      if isBranch {
        let child = UInt64(low) | UInt64(high) << 16 | UInt64(nodeFlags) << 32
        guard child >= 2, child <= lastPage else {
          throw defect("points to page \(child), outside 2–\(lastPage)")
        }
        nodes.append(Node(offset: offset, flags: 0, key: key, value: nil, valueSize: 0, page: child))
        continue
      }
      let valueSize = Int(low) | Int(high) << 16
      let known = PageFormat.NodeFlag.bigData | PageFormat.NodeFlag.subData | PageFormat.NodeFlag.dupData
      guard nodeFlags & ~known == 0 else {
        throw defect("has unknown flags 0x\(String(nodeFlags, radix: 16))")
      }
      let valueStart = key.upperBound
      if nodeFlags & PageFormat.NodeFlag.bigData != 0 {
        guard let first = bytes.littleEndianUInt64(at: valueStart), valueStart + 8 <= size else {
          throw defect("has an overflow page number that ends past the page")
        }
        guard first >= 2, first <= lastPage else {
          throw defect("puts its value on page \(first), outside 2–\(lastPage)")
        }
        nodes.append(
          Node(offset: offset, flags: nodeFlags, key: key, value: nil, valueSize: valueSize, page: first))
      } else {
        guard valueStart + valueSize <= size else {
          throw defect("has a \(valueSize)-byte value that ends past the page")
        }
        nodes.append(
          Node(
            offset: offset, flags: nodeFlags, key: key, value: valueStart..<valueStart + valueSize,
            valueSize: valueSize, page: nil))
      }
    }
    // LMDB keeps a page's nodes packed from its upper bound: the lowest node starts there.
    guard nodes.map(\.offset).min() == upper else {
      throw PageDefect(
        "its nodes start at byte \(nodes.map(\.offset).min() ?? 0), not at its upper bound \(upper)")
    }
    self.nodes = nodes
  }

  /// Bytes of the page whose change changes what it holds: the header (less its unused pad), the
  /// node offsets and every node's header, key and stored value — but the key of a branch page's
  /// first node, which LMDB never reads (everything below the second key goes to the first child).
  public var meaningfulRanges: [Range<Int>] {
    var ranges = [0..<8, 10..<(PageFormat.pageHeaderSize + 2 * nodes.count)]
    for (index, node) in nodes.enumerated() {
      let end =
        node.value?.upperBound ?? (node.page != nil && isLeaf ? node.key.upperBound + 8 : node.key.upperBound)
      ranges.append(node.offset..<(isBranch && index == 0 ? node.key.lowerBound : end))
    }
    return ranges
  }
}

/// What is wrong with a page.
public struct PageDefect: Error, Sendable, Hashable, CustomStringConvertible {
  public var description: String
  public init(_ description: String) { self.description = description }
}
