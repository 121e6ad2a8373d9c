/// The keys under which the three kinds of index file a record's values, in the pages of a
/// collection's `indexes` database (`IndexKind`; a page's own key is `IndexPageKey`):
///
/// - **substring** (`IndexKind.trigram`): every distinct 3-byte run of the field's `[cd]`-folded
///   UTF-8 text, with its positions; key `[field, b0, b1, b2]` (`trigramCode`).
/// - **equality** (`IndexKind.term`): the value itself, grouped under its folded form so that a
///   `[c]`/`[d]` lookup scans one key range, and a `BEGINSWITH` the groups whose fold begins with
///   the prefix's (escaping keeps prefixes: a prefix's escape is a prefix of the escape); key
///   `[field] ++ escaped(fold(v, [cd])) ++ [0, 0] ++ escaped(v) ++ [0, 0]`, and `[field, 0xFF]` for
///   nil (no UTF-8 text holds the byte 0xFF). Lists (`topics`) file each element; booleans file
///   `true` / `false`.
/// - **ordered** (`IndexKind.ordered`): one entry per record and field, `[field] ++ OrderedKey`
///   (see `OrderedKey`), so that entries sort by value, then by row (insertion order).
///
/// Every key starts with its field's slot, so one field's entries of a kind are one key range.
enum IndexKeys {
  /// Packs a field and a trigram into one integer: `field << 24 | b0 << 16 | b1 << 8 | b2`.
  static func trigramCode(field: Int, _ b0: UInt8, _ b1: UInt8, _ b2: UInt8) -> UInt32 {
    UInt32(field) << 24 | UInt32(b0) << 16 | UInt32(b1) << 8 | UInt32(b2)
  }

  /// The code's four bytes, big-endian: how a trigram is written in an index key.
  static func trigramPrefix(_ code: UInt32) -> [UInt8] {
    withTrigramPrefix(code) { Array($0) }
  }

  /// `trigramPrefix(code)` lent to `body` without an array, for hot loops.
  static func withTrigramPrefix<Result>(_ code: UInt32, _ body: (UnsafeRawBufferPointer) -> Result) -> Result
  {
    withUnsafeBytes(of: code.bigEndian, body)
  }

  /// The code under which a field files the rows whose text a `[d]` fold changes (its `[c]` fold
  /// differs from its `[cd]` fold): a `[c]` match found by position on such a row must still be
  /// checked. No folded text holds the byte 0xFF, so no trigram has this code.
  static func unplainCode(field: Int) -> UInt32 { trigramCode(field: field, 0xFF, 0xFF, 0xFF) }

  /// The distinct trigrams of folded text, as codes for `field`.
  static func trigrams(of folded: [UInt8], field: Int, into codes: inout [UInt32]) {
    guard folded.count >= 3 else { return }
    for index in 0..<(folded.count - 2) {
      codes.append(trigramCode(field: field, folded[index], folded[index + 1], folded[index + 2]))
    }
  }

  /// `0x00` becomes `0x00 0xFF`, so that `0x00 0x00` can end a part of a key.
  static func appendEscaped(_ bytes: [UInt8], to key: inout [UInt8]) {
    for byte in bytes {
      key.append(byte)
      if byte == 0 { key.append(0xFF) }
    }
  }

  /// The prefix grouping every exact value whose `[cd]` fold is `folded`.
  static func termGroupPrefix(field: Int, folded: [UInt8]) -> [UInt8] {
    var key: [UInt8] = [UInt8(field)]
    appendEscaped(folded, to: &key)
    key.append(0)
    key.append(0)
    return key
  }

  /// The equality prefix of one exact string value.
  static func termPrefix(field: Int, value: String) -> [UInt8] {
    var key: [UInt8] = []
    appendTermPrefix(field: field, value: value, to: &key)
    return key
  }

  /// Appends the equality prefix of `value` to `key`; ASCII text is folded on the way, without
  /// allocating.
  static func appendTermPrefix(field: Int, value: String, to key: inout [UInt8]) {
    var value = value
    let ascii: Bool = value.withUTF8 { bytes in
      let bytes = UnsafeRawBufferPointer(bytes)
      guard String.isASCII(utf8: bytes) else { return false }
      appendTermPrefix(field: field, ascii: bytes, to: &key)
      return true
    }
    guard !ascii else { return }
    key.append(UInt8(truncatingIfNeeded: field))
    appendEscaped(TextFolding.fold(value, TextFolding.all), to: &key)
    key.append(0)
    key.append(0)
    value.withUTF8 { bytes in
      for byte in bytes {
        key.append(byte)
        if byte == 0 { key.append(0xFF) }
      }
    }
    key.append(0)
    key.append(0)
  }

  /// `appendTermPrefix(field:value:to:)` of a value whose UTF-8 `bytes` are all ASCII: its `[cd]`
  /// fold is a lowercasing, written in one pass into room made once (the prefixes of every record
  /// are built this way when the indexes are laid out or fingerprinted).
  static func appendTermPrefix(field: Int, ascii bytes: UnsafeRawBufferPointer, to key: inout [UInt8]) {
    var zeros = 0
    for byte in bytes where byte == 0 { zeros += 1 }
    let start = key.count
    let length = 1 + 2 * (bytes.count + zeros) + 4
    key.append(contentsOf: repeatElement(0, count: length))
    key.withUnsafeMutableBufferPointer { out in
      var index = start
      out[index] = UInt8(truncatingIfNeeded: field)
      index += 1
      for byte in bytes {
        out[index] = byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
        index += 1
        if byte == 0 {
          out[index] = 0xFF
          index += 1
        }
      }
      // Two zeros end the fold (already there), then the exact value, then two zeros.
      index += 2
      for byte in bytes {
        out[index] = byte
        index += 1
        if byte == 0 {
          out[index] = 0xFF
          index += 1
        }
      }
    }
  }

  /// Calls `body` with the equality prefix of each term `value` files for `field` (each element
  /// of a list; `true`/`false` for booleans; numbers and dates as text), built in `scratch`.
  static func forEachTerm(
    of value: FieldValue, field: Int, scratch: inout [UInt8], _ body: (UnsafeRawBufferPointer) -> Void
  ) {
    func emit(_ text: String) {
      scratch.removeAll(keepingCapacity: true)
      appendTermPrefix(field: field, value: text, to: &scratch)
      scratch.withUnsafeBytes(body)
    }
    switch value {
    case .null:
      scratch.removeAll(keepingCapacity: true)
      scratch.append(contentsOf: nullTermPrefix(field: field))
      scratch.withUnsafeBytes(body)
    case .string(let text): emit(text)
    case .strings(let list): for element in list { emit(element) }
    case .integers(let list): for element in list { emit(String(element)) }
    case .bool(let flag): emit(flag ? "true" : "false")
    case .integer(let number): emit(String(number))
    case .date(let date): emit(date.iso8601)
    case .double(let number): emit(String(number))
    }
  }

  static func nullTermPrefix(field: Int) -> [UInt8] { [UInt8(field), 0xFF] }

  /// Where the exact value of an equality prefix made by `termPrefix` starts: just past the two
  /// zeros that end its escaped fold, looked for from `start` (past the field, or past a stretch
  /// of the fold already matched, never inside an escaped byte); `nil` for another shape.
  static func exactValueStart(ofTermPrefix prefix: UnsafeRawBufferPointer, from start: Int) -> Int? {
    endOfEscaped(prefix, from: start, keeping: nil)
  }

  /// Writes the exact value of an equality prefix made by `termPrefix`, which starts at `start`
  /// (`exactValueStart`), into `bytes` (its UTF-8, unescaped) and returns `true`, or returns
  /// `false` when no two zeros end it.
  static func exactValue(
    ofTermPrefix prefix: UnsafeRawBufferPointer, from start: Int, into bytes: inout [UInt8]
  )
    -> Bool
  {
    bytes.removeAll(keepingCapacity: true)
    return endOfEscaped(prefix, from: start, keeping: &bytes) != nil
  }

  /// The index just past the two zeros that end the escaped part of `key` starting at `start`
  /// (`appendEscaped`), or `nil` when none do; the part's bytes, unescaped, are appended to `kept`.
  private static func endOfEscaped(
    _ key: UnsafeRawBufferPointer, from start: Int, keeping kept: UnsafeMutablePointer<[UInt8]>?
  ) -> Int? {
    var index = start
    while index + 1 < key.count {
      let byte = key[index]
      if byte == 0 {
        if key[index + 1] == 0 { return index + 2 }
        index += 2
        kept?.pointee.append(0)
        continue
      }
      kept?.pointee.append(byte)
      index += 1
    }
    return nil
  }

}

/// The part of an ordered-index key between the field and the row: a flag (0 nil, 1 a value, 2
/// a NaN, which no range holds) and the value, in bytes that sort as the values do:
///
/// - integers (and bools, 0 or 1): 8 bytes big-endian with the sign bit flipped;
/// - doubles: 8 bytes big-endian of the bit pattern, with the sign bit flipped for positive
///   numbers and every bit flipped for negative ones (-0.0 is stored as 0.0);
/// - dates: 8 bytes of the seconds as for integers, then 4 bytes big-endian of the nanoseconds.
///
/// A field's keys all have one width (`width(of:)`), nil ones included.
struct OrderedKey: Hashable, Comparable {
  var flag: UInt8
  var high: UInt64
  var low: UInt32

  /// A nil value. Its value bytes are those of the integer 0, as format 1 wrote them.
  static let null = OrderedKey(flag: 0, high: 1 << 63, low: 0)

  init(flag: UInt8, high: UInt64, low: UInt32) {
    self.flag = flag
    self.high = high
    self.low = low
  }

  init(_ value: FieldValue, type: FieldType) {
    switch value {
    case .integer(let number): self = .integer(number)
    case .bool(let flag): self = .integer(flag ? 1 : 0)
    case .date(let date): self = .date(date)
    case .double(let number): self = .double(number)
    default: self = .null
    }
  }

  static func integer(_ value: Int64) -> OrderedKey {
    OrderedKey(flag: 1, high: UInt64(bitPattern: value) ^ (1 << 63), low: 0)
  }

  static func date(_ value: Timestamp) -> OrderedKey {
    OrderedKey(
      flag: 1, high: UInt64(bitPattern: value.secondsSince1970) ^ (1 << 63), low: UInt32(value.nanoseconds))
  }

  static func double(_ value: Double) -> OrderedKey {
    if value.isNaN { return OrderedKey(flag: 2, high: 0, low: 0) }
    let bits = (value == 0 ? 0.0 : value).bitPattern
    return OrderedKey(flag: 1, high: bits & (1 << 63) != 0 ? ~bits : bits | (1 << 63), low: 0)
  }

  /// The bytes of the value part (flag included) of a field of `type`.
  static func width(of type: FieldType) -> Int { type == .date ? 13 : 9 }

  /// Appends the key's bytes, `width` of them (the layout `withBytes` writes).
  func append(to key: inout [UInt8], width: Int) {
    withBytes(field: 0, width: width) { key.append(contentsOf: $0.dropFirst()) }
  }

  /// Calls `body` with `field` followed by the key's bytes, `width` of them: the flag, then the
  /// high word and (13 bytes) the low one, big-endian, so that byte order is the keys' order.
  /// Laid out on the stack: digests build one for every ordered entry they read, tens of
  /// millions, where an array's upkeep cost more than the bytes.
  @inline(__always)
  func withBytes<T>(field: UInt8, width: Int, _ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
    var words: (UInt64, UInt64) = (0, 0)
    return try withUnsafeMutableBytes(of: &words) { raw in
      raw[0] = field
      raw[1] = flag
      raw.storeBytes(of: high.bigEndian, toByteOffset: 2, as: UInt64.self)
      raw.storeBytes(of: low.bigEndian, toByteOffset: 10, as: UInt32.self)
      return try body(UnsafeRawBufferPointer(rebasing: raw[0..<(width == 13 ? 14 : 10)]))
    }
  }

  /// Reads the value part of a stored key (after the field byte), or `nil` for another width.
  init?(_ bytes: UnsafeRawBufferPointer, at offset: Int, width: Int) {
    guard offset + width <= bytes.count else { return nil }
    flag = bytes[offset]
    var high: UInt64 = 0
    for index in 1...8 { high = high << 8 | UInt64(bytes[offset + index]) }
    var low: UInt32 = 0
    if width == 13 { for index in 9...12 { low = low << 8 | UInt32(bytes[offset + index]) } }
    self.high = high
    self.low = low
  }

  static func < (a: OrderedKey, b: OrderedKey) -> Bool { (a.flag, a.high, a.low) < (b.flag, b.high, b.low) }
}

/// The layout of one field's ordered-index keys: `[slot] ++ OrderedKey ++ row (4 bytes)`.
struct OrderedLayout {
  let slot: UInt8
  /// Bytes of the `OrderedKey` part.
  let width: Int

  init(_ field: Field) {
    slot = UInt8(truncatingIfNeeded: field.position)
    width = OrderedKey.width(of: field.type)
  }

  var keyLength: Int { 1 + width + 4 }

  /// The key's bytes without the row: where a range of `key` begins.
  func prefix(_ key: OrderedKey) -> [UInt8] {
    var bytes: [UInt8] = [slot]
    bytes.reserveCapacity(keyLength)
    key.append(to: &bytes, width: width)
    return bytes
  }

  func key(_ key: OrderedKey, row: Row) -> [UInt8] {
    var bytes = prefix(key)
    bytes.append(UInt8(truncatingIfNeeded: row >> 24))
    bytes.append(UInt8(truncatingIfNeeded: row >> 16))
    bytes.append(UInt8(truncatingIfNeeded: row >> 8))
    bytes.append(UInt8(truncatingIfNeeded: row))
    return bytes
  }

  /// Whether a stored key belongs to this field.
  func holds(_ key: UnsafeRawBufferPointer) -> Bool { key.count == keyLength && key[0] == slot }

  /// The value part of a stored key of this field.
  func value(_ key: UnsafeRawBufferPointer) -> OrderedKey? { OrderedKey(key, at: 1, width: width) }

  /// Whether a stored key's field and value come at or before `prefix` (a `prefix(_:)`): keys
  /// sort as their bytes, so this compares them in place rather than decoding the value.
  func key(_ key: UnsafeRawBufferPointer, isAtMost prefix: [UInt8]) -> Bool {
    for index in prefix.indices where index < key.count && key[index] != prefix[index] {
      return key[index] < prefix[index]
    }
    return true
  }

  /// Whether a stored key sorts before `prefix` (a `prefix(_:)`, or a field byte alone).
  func key(_ key: UnsafeRawBufferPointer, isBefore prefix: [UInt8]) -> Bool {
    for index in prefix.indices {
      guard index < key.count else { return true }
      if key[index] != prefix[index] { return key[index] < prefix[index] }
    }
    return false
  }

  /// The row of a stored key of this field.
  func row(_ key: UnsafeRawBufferPointer) -> Row {
    let n = keyLength - 4
    return Row(key[n]) << 24 | Row(key[n + 1]) << 16 | Row(key[n + 2]) << 8 | Row(key[n + 3])
  }
}

/// One ordered-index entry as a small value, sorted like its key: field, value, row. Its bytes
/// are made only when it is written.
struct OrderedEntry: Hashable, Comparable {
  var field: UInt8
  var key: OrderedKey
  var row: Row
  /// Bytes of the value part: 13 for dates, 9 otherwise (`OrderedKey.width(of:)`).
  var width: UInt8 = 9
  /// The row's primary key, for covering pages (`OrderedPage`); 0 where pages do not cover keys.
  /// A function of the row, so it takes no part in the order.
  var id: Int64 = 0

  init(field: UInt8, key: OrderedKey, row: Row, width: Int = 9, id: Int64 = 0) {
    self.field = field
    self.key = key
    self.row = row
    self.width = UInt8(width)
    self.id = id
  }

  static func < (a: OrderedEntry, b: OrderedEntry) -> Bool {
    if a.field != b.field { return a.field < b.field }
    if a.key != b.key { return a.key < b.key }
    return a.row < b.row
  }

  func with(row: Row, id: Int64) -> OrderedEntry {
    OrderedEntry(field: field, key: key, row: row, width: Int(width), id: id)
  }

  var bytes: [UInt8] {
    var bytes: [UInt8] = [field]
    bytes.reserveCapacity(1 + Int(width) + 4)
    key.append(to: &bytes, width: Int(width))
    bytes.append(UInt8(truncatingIfNeeded: row >> 24))
    bytes.append(UInt8(truncatingIfNeeded: row >> 16))
    bytes.append(UInt8(truncatingIfNeeded: row >> 8))
    bytes.append(UInt8(truncatingIfNeeded: row))
    return bytes
  }
}
