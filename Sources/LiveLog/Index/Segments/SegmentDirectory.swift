import LMDB

/// Which segments a collection's `indexes` database holds: consecutive runs of rows, each with its
/// own pages of every index kind.
///
/// Segments tile the rows from the first to `end`: segment `i` holds the entries of the rows in
/// `starts[i] ..< starts[i + 1]` (the last one up to `end`). Rows at or past `end` have not been
/// folded into a segment yet: they are in the collection's recent rows (`RecentRows`), as are
/// the later versions of folded rows that small commits changed.
///
/// Stored in `meta` under `segments:NAME`: `varint(count)`, the starts as varints (the first,
/// then the gaps), then `varint(end - last start)`, then, when any is set, `varint(flags)`:
/// bit 0 `coversKeys`. A directory without flags is one of format 5, or of a collection whose keys
/// are strings.
struct SegmentDirectory: Equatable, Sendable {
  var starts: [Row] = []
  /// One past the last row the segments cover; 1 (the first row) when there are none.
  var end: Row = 1
  /// Whether the ordered pages carry each row's key (covering pages, `OrderedPage`). Set when
  /// the index starts empty (`begin(for:)`), for integer keys. An index without them (format 5's,
  /// which format 7 rebuilds before reading; string keys') is read and edited as it is.
  var coversKeys = false

  /// Starts the index of a collection that has no segment yet: covering when its keys are
  /// integers.
  mutating func begin(for schema: CollectionSchema) {
    guard starts.isEmpty else { return }
    coversKeys = schema.primaryKey.type == .integer
  }

  var count: Int { starts.count }

  /// The rows of segment `index`.
  func rows(of index: Int) -> Range<Row> {
    starts[index]..<(index + 1 < starts.count ? starts[index + 1] : end)
  }

  /// The segment holding `row`'s entries, if a segment covers it.
  func segment(of row: Row) -> Int? {
    guard let first = starts.first, row >= first, row < end else { return nil }
    var low = 0
    var high = starts.count
    while high - low > 1 {
      let middle = (low + high) / 2
      if starts[middle] <= row { low = middle } else { high = middle }
    }
    return low
  }

  static func key(of collection: String) -> [UInt8] { Array("segments:\(collection)".utf8) }

  /// The directory of `collection` in `meta` (none stored: no segments, from row 1).
  static func read(_ collection: String, meta: Database, _ txn: some ReadableTransaction) throws
    -> SegmentDirectory
  {
    guard let bytes = try txn.get(meta, key(of: collection)) else { return SegmentDirectory() }
    do {
      var reader = PageReader(bytes, at: 0)
      let count = try reader.count()
      var directory = SegmentDirectory()
      var row: UInt64 = 0
      for _ in 0..<count {
        row += try reader.varint()
        guard row <= UInt64(Row.max), directory.starts.last.map({ UInt64($0) < row }) ?? (row >= 1) else {
          throw PageDamage("segment starts out of order")
        }
        directory.starts.append(Row(row))
      }
      let end = (count == 0 ? 0 : row) + (try reader.varint())
      guard end <= UInt64(Row.max), end >= 1, directory.starts.last.map({ UInt64($0) < end }) ?? true
      else { throw PageDamage("a segment directory ends at \(end)") }
      directory.end = Row(end)
      if !reader.isAtEnd {
        let flags = try reader.varint()
        guard flags == 1, reader.isAtEnd else { throw PageDamage("segment directory flags \(flags)") }
        directory.coversKeys = true
      }
      return directory
    } catch let damage as PageDamage {
      throw StoreError.corruptState(
        reason: "\(collection): the segment directory is damaged (\(damage))")
    }
  }

  func write(_ collection: String, meta: Database, _ txn: WriteTransaction) throws {
    var bytes: [UInt8] = []
    PageBytes.appendVarint(UInt64(starts.count), to: &bytes)
    var previous: Row = 0
    for start in starts {
      PageBytes.appendVarint(UInt64(start - previous), to: &bytes)
      previous = start
    }
    PageBytes.appendVarint(UInt64(end - previous), to: &bytes)
    if coversKeys { PageBytes.appendVarint(1, to: &bytes) }
    try txn.put(meta, Self.key(of: collection), bytes)
  }
}
