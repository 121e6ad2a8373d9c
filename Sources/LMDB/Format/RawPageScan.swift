/// Reads every page of a data file for leaf nodes, trusting nothing but each node's own bounds:
/// for a salvage, which looks for intact entries where the trees no longer reach them (a damaged
/// branch page, a damaged meta page), in pages that older states used, and in pages whose header
/// or node offsets are damaged while their nodes are not.
///
/// Neither the page header nor the node offsets are needed: every even offset of every page is
/// tried as a node header with a key of the size asked for, whose key and value (or overflow page
/// number) end inside the page. Most offsets fail at once; what passes may be stale, damaged or
/// not an entry at all, so the caller must check each value by its own means.
public struct RawPageScan {
  /// A possible leaf node.
  public struct Found {
    public var page: UInt64
    /// Offset of the node header in the page.
    public var offset: Int
    public var key: ArraySlice<UInt8>
    public var value: TreeWalker.ValueLocation
    /// The value's bytes when they are in the node.
    public var inlineValue: ArraySlice<UInt8>?
  }

  public let file: DataFile
  public let pageSize: Int

  public init(file: DataFile, pageSize: Int) {
    self.file = file
    self.pageSize = pageSize
  }

  /// Calls `body` with every possible node whose key has `keySize` bytes, in every page from 2
  /// to the end of the file (a last page cut short by a truncation included, as far as it goes),
  /// reading 256 pages at a time.
  public func forEachNode(keySize: Int, _ body: (Found) -> Void) {
    let pages = file.pageCount(pageSize: pageSize)
    let lastPage = pages == 0 ? 0 : pages - 1
    var first: UInt64 = 2
    while first < pages {
      let chunk = file.read(offset: Int(first) * pageSize, count: 256 * pageSize)
      var index = 0
      while index * pageSize < chunk.count {
        let number = first + UInt64(index)
        let bytes = Array(chunk[index * pageSize..<min((index + 1) * pageSize, chunk.count)])
        RawPageScan.nodes(in: bytes, keySize: keySize, lastPage: lastPage) { offset, key, value in
          switch value {
          case .inline(let range):
            body(
              Found(
                page: number, offset: offset, key: bytes[key],
                value: .inline(offset: Int(number) * pageSize + range.lowerBound, count: range.count),
                inlineValue: bytes[range]))
          case .overflow(let page, let count):
            body(
              Found(
                page: number, offset: offset, key: bytes[key], value: .overflow(page: page, count: count),
                inlineValue: nil))
          }
        }
        index += 1
      }
      first += 256
    }
  }

  enum NodeValue {
    case inline(Range<Int>)
    case overflow(page: UInt64, count: Int)
  }

  /// Each even offset of `bytes` that reads as a leaf node header with a `keySize`-byte key,
  /// flags of a plain or overflow value, and a value that ends in the page (or an overflow page
  /// number within the file).
  static func nodes(
    in bytes: [UInt8], keySize: Int, lastPage: UInt64, _ body: (Int, Range<Int>, NodeValue) -> Void
  ) {
    let size = bytes.count
    var offset = PageFormat.pageHeaderSize + 2
    while offset + PageFormat.nodeHeaderSize + keySize <= size {
      defer { offset += 2 }
      guard Int(bytes[offset + 6]) | Int(bytes[offset + 7]) << 8 == keySize else { continue }
      let flags = UInt16(bytes[offset + 4]) | UInt16(bytes[offset + 5]) << 8
      guard flags & ~PageFormat.NodeFlag.bigData == 0 else { continue }
      let valueSize =
        Int(bytes[offset]) | Int(bytes[offset + 1]) << 8 | Int(bytes[offset + 2]) << 16 | Int(
          bytes[offset + 3]) << 24
      let key = offset + PageFormat.nodeHeaderSize..<offset + PageFormat.nodeHeaderSize + keySize
      if flags == PageFormat.NodeFlag.bigData {
        guard valueSize > 0, let page = bytes.littleEndianUInt64(at: key.upperBound), page >= 2,
          page <= lastPage
        else { continue }
        body(offset, key, .overflow(page: page, count: valueSize))
      } else {
        guard key.upperBound + valueSize <= size else { continue }
        body(offset, key, .inline(key.upperBound..<key.upperBound + valueSize))
      }
    }
  }
}
