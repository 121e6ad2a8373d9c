import Foundation
import LMDB
import Testing

@testable import LiveLog

/// Where things are in a store's data file, found with the LMDB layer's own reader of the format:
/// the pages of the log's tree, and every intact copy of every event (for what a salvage must
/// find again after the file is damaged).
enum DataFileLayout {
  /// The leaf pages of the log's tree in the current state, in key order.
  static func logLeafPages(_ dataFile: String) throws -> [UInt64] {
    try leafPages(of: StoreLayout.log, in: dataFile)
  }

  /// The leaf pages of the database `name`'s tree in the current state, in key order.
  static func leafPages(of name: String, in dataFile: String) throws -> [UInt64] {
    let file = try DataFile(path: dataFile)
    let meta = try #require(try DataFileHealth.examine(path: dataFile)?.current)
    let database = try #require(NamedDatabases.read(file, meta: meta).databases.first { $0.name == name })
    var leaves: [UInt64] = []
    let walker = TreeWalker(
      file: file, pageSize: meta.pageSize, lastPage: meta.lastPage,
      integerKeys: database.record.flags & PageFormat.DatabaseFlag.integerKey != 0)
    _ = walker.walk(
      root: database.record.root,
      onPage: { page, count in
        if count == 1, let bytes = file.page(page, pageSize: meta.pageSize),
          let parsed = try? Page(number: page, bytes: bytes, lastPage: meta.lastPage), parsed.isLeaf
        {
          leaves.append(page)
        }
        return true
      }, onEntry: { _ in }, onDamage: { _ in })
    return leaves
  }

  /// The LSNs whose event lies on `page` (in the node itself).
  static func lsns(onPage page: UInt64, of dataFile: String) throws -> Set<UInt64> {
    Set(try eventCopies(dataFile).filter { $0.value.contains { $0.page == page } }.keys)
  }

  /// A copy of an event: the page of its node and the byte ranges of the file it needs (the node
  /// header, the key and the value, or the overflow page number and the value's bytes).
  struct Copy {
    var page: UInt64
    var ranges: [Range<Int>]
  }

  /// Every intact copy of every event in the file: current pages, pages of older states, free
  /// pages. An event is intact when its checksum, which covers its LSN, holds.
  static func eventCopies(_ dataFile: String) throws -> [UInt64: [Copy]] {
    let file = try DataFile(path: dataFile)
    let pageSize = try #require(try DataFileHealth.examine(path: dataFile)?.pageSize)
    let walker = TreeWalker(
      file: file, pageSize: pageSize, lastPage: file.pageCount(pageSize: pageSize), integerKeys: true)
    var copies: [UInt64: [Copy]] = [:]
    RawPageScan(file: file, pageSize: pageSize).forEachNode(keySize: 8) { found in
      let lsn = found.key.withUnsafeBytes { UInt64(littleEndian: $0.loadUnaligned(as: UInt64.self)) }
      guard lsn >= 1, let bytes = found.inlineValue.map(Array.init) ?? walker.read(found.value),
        (try? bytes.withUnsafeBytes { try EventCodec.header($0, lsn: lsn) }) != nil
      else { return }
      let node = Int(found.page) * pageSize + found.offset
      switch found.value {
      case .inline(let offset, let count):
        copies[lsn, default: []].append(Copy(page: found.page, ranges: [node..<offset + count]))
      case .overflow(let page, let count):
        let data = Int(page) * pageSize + PageFormat.pageHeaderSize
        copies[lsn, default: []].append(
          Copy(page: found.page, ranges: [node..<node + 24, data..<data + count]))
      }
    }
    return copies
  }
}
