/// One page of an ordered index's entries — one field's `(value, row)` pairs in order — as the
/// value of an `indexes` key whose entry key is `[field] ++ OrderedKey` of the first pair.
///
/// ```
/// count   varint: entries in the page, the first (in the key) included
/// id      zigzag varint of key - row, for the first entry; covering pages only (below)
/// then each entry after the first, against the one before it:
///   tag   varint: tag & 3 == 0: same flag, high = previous high + tag >> 2
///                 tag & 3 == 1: flag = tag >> 2, then varint high
///                 tag & 3 == 2: same flag, then varint high (a step too large for the tag)
///   low   varint, for dates (13-byte keys) only
///   row   varint: row - previous row when the value equals the previous one, else
///         row - segment start
///   id    zigzag varint of key - row; covering pages only
/// ```
///
/// Values sort by (flag, high, low) and rows ascend within a value, so most steps are a byte or
/// two of value and two or three of row. A page holds one field's entries only.
///
/// **Covering pages** carry each row's primary key beside it, so that a range's ids come from
/// the pages it reads rather than from a row table block per row (a range of 90,000 rows of a
/// million touches nearly every block). Only collections whose keys are integers have them, and
/// only when their segment directory says so (`SegmentDirectory.coversKeys`): a row keeps its
/// key for life, so the copy never goes stale. The key is stored as its distance from the row,
/// a byte when keys count up with insertion (an auto-increment id) and four or five for keys
/// unrelated to it (GitHub's ids).
enum OrderedPage {
  /// Much smaller than a posting page: a top-k walk or a range's first page decodes a page per
  /// segment before its first entry in range, so a page holds a few dozen entries. Measured at 1M
  /// records (eight segments): a top-20 walk of a star range took 26 µs against 46 µs with pages
  /// of 1,008 bytes, for 1.2 MiB more keys (0.4% of the index).
  static let capacity = 256

  /// One entry as read: `id` is the row's key on a covering page, 0 on another.
  struct Entry {
    var key: OrderedKey
    var row: Row
    var id: Int64
  }

  /// The stored form of a covering entry's key: its distance from the row, zigzagged.
  static func storedID(_ id: Int64, row: Row) -> UInt64 {
    let distance = id &- Int64(row)
    return UInt64(bitPattern: (distance << 1) ^ (distance >> 63))
  }

  static func id(stored: UInt64, row: Row) -> Int64 {
    (Int64(bitPattern: stored >> 1) ^ -Int64(bitPattern: stored & 1)) &+ Int64(row)
  }

  /// Reads a stored page's entries in order.
  struct Reader {
    private var reader: PageReader
    private let segment: Row
    private let width: Int
    private let coversKeys: Bool
    private(set) var remaining: Int
    /// The page's first value, from its key.
    let firstKey: OrderedKey
    private var key: OrderedKey
    private var row: Row
    private var isFirst = true

    /// `pageKey` is the page's `indexes` key, `width` the field's `OrderedKey` width; `coversKeys`
    /// whether the page carries keys (the collection's `SegmentDirectory.coversKeys`).
    init(pageKey: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer, width: Int, coversKeys: Bool) throws
    {
      let entry = IndexPageKey.entryKey(of: pageKey)
      guard entry.count == 1 + width, let first = OrderedKey(entry, at: 1, width: width) else {
        throw PageDamage("an ordered page's key of \(pageKey.count) bytes")
      }
      segment = IndexPageKey.segment(of: pageKey)
      self.width = width
      self.coversKeys = coversKeys
      key = first
      firstKey = first
      row = IndexPageKey.row(of: pageKey)
      reader = PageReader(value, at: 0)
      remaining = try reader.count()
      guard remaining >= 1 else { throw PageDamage("an ordered page without entries") }
    }

    /// The next entry, or nil past the last.
    mutating func next() throws -> Entry? {
      guard remaining > 0 else {
        guard reader.isAtEnd else { throw PageDamage("an ordered page has bytes after its last entry") }
        return nil
      }
      remaining -= 1
      if isFirst {
        isFirst = false
        return Entry(
          key: key, row: row, id: coversKeys ? OrderedPage.id(stored: try reader.varint(), row: row) : 0)
      }
      let previous = key
      let tag = try reader.varint()
      switch tag & 3 {
      case 0:
        let (sum, overflow) = key.high.addingReportingOverflow(tag >> 2)
        guard !overflow else { throw PageDamage("an ordered page's value overflows") }
        key.high = sum
      case 1:
        guard tag >> 2 <= UInt64(UInt8.max) else { throw PageDamage("an ordered page's flag \(tag >> 2)") }
        key.flag = UInt8(tag >> 2)
        key.high = try reader.varint()
      case 2: key.high = try reader.varint()
      default: throw PageDamage("an ordered page's tag \(tag)")
      }
      if width == 13 {
        let low = try reader.varint()
        guard low <= UInt64(UInt32.max) else { throw PageDamage("an ordered page's low part \(low)") }
        key.low = UInt32(low)
      } else {
        key.low = 0
      }
      let step = try reader.varint()
      let next: UInt64
      if key == previous {
        guard step > 0 else { throw PageDamage("an ordered page repeats an entry") }
        next = UInt64(row) + step
      } else {
        guard key > previous else { throw PageDamage("an ordered page's entries are out of order") }
        next = UInt64(segment) + step
      }
      guard next <= UInt64(Row.max) else { throw PageDamage("an ordered page's row past 2^32") }
      row = Row(next)
      return Entry(
        key: key, row: row, id: coversKeys ? OrderedPage.id(stored: try reader.varint(), row: row) : 0)
    }
  }
}

/// Lays one field's ordered entries out in pages (`OrderedPage`); entries are added in order.
struct OrderedPageWriter {
  let segment: Row
  let field: UInt8
  let width: Int
  /// Whether each entry's key goes beside it (`OrderedPage`, covering pages).
  let coversKeys: Bool
  private var pages: [(key: [UInt8], value: [UInt8])] = []
  private var body: [UInt8] = []
  private var count = 0
  private var first: (key: OrderedKey, row: Row) = (.null, 0)
  private var previous: (key: OrderedKey, row: Row) = (.null, 0)

  init(segment: Row, field: UInt8, width: Int, coversKeys: Bool) {
    self.segment = segment
    self.field = field
    self.width = width
    self.coversKeys = coversKeys
  }

  /// Adds the entry of `row`, whose key is `id` (read only when the pages cover keys).
  mutating func add(_ key: OrderedKey, row: Row, id: Int64) {
    // An entry takes at most 24 bytes of value and row, and 10 more of key.
    if count > 0
      && body.count + (coversKeys ? 34 : 24) + PageBytes.varintSize(UInt64(count + 1)) > OrderedPage.capacity
    {
      flush()
    }
    guard count > 0 else {
      first = (key, row)
      previous = (key, row)
      count = 1
      if coversKeys { PageBytes.appendVarint(OrderedPage.storedID(id, row: row), to: &body) }
      return
    }
    if key.flag != previous.key.flag {
      PageBytes.appendVarint(UInt64(key.flag) << 2 | 1, to: &body)
      PageBytes.appendVarint(key.high, to: &body)
    } else if key.high - previous.key.high < 1 << 62 {
      PageBytes.appendVarint((key.high - previous.key.high) << 2, to: &body)
    } else {
      PageBytes.appendVarint(2, to: &body)
      PageBytes.appendVarint(key.high, to: &body)
    }
    if width == 13 { PageBytes.appendVarint(UInt64(key.low), to: &body) }
    let step = key == previous.key ? row - previous.row : row - segment
    PageBytes.appendVarint(UInt64(step), to: &body)
    if coversKeys { PageBytes.appendVarint(OrderedPage.storedID(id, row: row), to: &body) }
    previous = (key, row)
    count += 1
  }

  mutating func flush() {
    guard count > 0 else { return }
    var value: [UInt8] = []
    value.reserveCapacity(body.count + 3)
    PageBytes.appendVarint(UInt64(count), to: &value)
    value.append(contentsOf: body)
    var entryKey: [UInt8] = [field]
    first.key.append(to: &entryKey, width: width)
    pages.append(
      (IndexPageKey.make(segment: segment, kind: .ordered, entryKey: entryKey, row: first.row), value))
    body.removeAll(keepingCapacity: true)
    count = 0
  }

  mutating func takePages() -> [(key: [UInt8], value: [UInt8])] {
    defer { pages.removeAll(keepingCapacity: true) }
    return pages
  }
}
