/// The keys under which the three kinds of index file a record's values.
///
/// - **substring** (`trigrams` database): every distinct 3-byte run of the field's `[cd]`-folded
///   UTF-8 text; prefix `[field, b0, b1, b2]`.
/// - **equality** (`terms` database): the value itself, grouped under its folded form so that a
///   `[c]`/`[d]` lookup scans one key range; prefix
///   `[field] ++ escaped(fold(v, [cd])) ++ [0, 0] ++ escaped(v) ++ [0, 0]`, and `[field, 0xFF]` for
///   nil (no UTF-8 text holds the byte 0xFF). Lists (`topics`) file each element; booleans file
///   `true` / `false`.
/// - **ordered** (`ordered` database): one key per record and field,
///   `[field, 0 nil | 1 value, value as 8 bytes big-endian with the sign bit flipped, row]`, so that
///   keys sort by value, then by insertion order.
///
/// The substring and equality prefixes are followed by a block's first row (`PostingBlocks`).
enum IndexKeys {
  /// Packs a field and a trigram into one integer: `field << 24 | b0 << 16 | b1 << 8 | b2`.
  static func trigramCode(field: Int, _ b0: UInt8, _ b1: UInt8, _ b2: UInt8) -> UInt32 {
    UInt32(field) << 24 | UInt32(b0) << 16 | UInt32(b1) << 8 | UInt32(b2)
  }

  static func trigramPrefix(_ code: UInt32) -> [UInt8] {
    [
      UInt8(code >> 24), UInt8(truncatingIfNeeded: code >> 16), UInt8(truncatingIfNeeded: code >> 8),
      UInt8(truncatingIfNeeded: code),
    ]
  }

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
    var key = termGroupPrefix(field: field, folded: TextFolding.fold(value, TextFolding.all))
    appendEscaped(Array(value.utf8), to: &key)
    key.append(0)
    key.append(0)
    return key
  }

  static func nullTermPrefix(field: Int) -> [UInt8] { [UInt8(field), 0xFF] }

  /// The exact value of an equality prefix made by `termPrefix`, or `nil` for another shape.
  static func exactValue(ofTermPrefix prefix: UnsafeRawBufferPointer, groupCount: Int) -> String? {
    var bytes: [UInt8] = []
    var index = groupCount
    while index + 1 < prefix.count {
      let byte = prefix[index]
      if byte == 0 {
        if prefix[index + 1] == 0 { return String(validating: bytes, as: UTF8.self) }
        index += 2
        bytes.append(0)
        continue
      }
      bytes.append(byte)
      index += 1
    }
    return nil
  }

  /// 8 bytes that sort like the signed integer.
  static func appendOrdered(_ value: Int64, to key: inout [UInt8]) {
    let flipped = UInt64(bitPattern: value) ^ (1 << 63)
    for shift in stride(from: 56, through: 0, by: -8) {
      key.append(UInt8(truncatingIfNeeded: flipped >> UInt64(shift)))
    }
  }

  /// The ordered-index key of a value (without the row): `[field, flag, 8 bytes]`.
  static func orderedPrefix(field: Int, value: Int64?) -> [UInt8] {
    var key: [UInt8] = [UInt8(field), value == nil ? 0 : 1]
    key.reserveCapacity(14)
    appendOrdered(value ?? 0, to: &key)
    return key
  }

  static func orderedKey(field: Int, value: Int64?, row: Row) -> [UInt8] {
    var key = orderedPrefix(field: field, value: value)
    key.append(UInt8(truncatingIfNeeded: row >> 24))
    key.append(UInt8(truncatingIfNeeded: row >> 16))
    key.append(UInt8(truncatingIfNeeded: row >> 8))
    key.append(UInt8(truncatingIfNeeded: row))
    return key
  }

  /// The value a numeric or date field orders by.
  static func orderedValue(_ value: FieldValue) -> Int64? {
    switch value {
    case .integer(let number): number
    case .date(let date): date.secondsSince1970
    default: nil
    }
  }
}

/// Everything the indexes file for one record.
struct IndexEntries: Equatable {
  /// Trigram codes, ascending, distinct.
  var trigrams: [UInt32] = []
  /// Equality prefixes, ascending bytewise, distinct.
  var terms: [[UInt8]] = []
  /// Ordered-index values, one per ordered field.
  var ordered: [OrderedEntry] = []

  init() {}

  init(_ values: [FieldValue], schema: Schema) {
    for field in schema.fields {
      let value = field.position < values.count ? values[field.position] : .null
      if field.indexes.contains(.substring), case .string(let text) = value {
        IndexKeys.trigrams(
          of: TextFolding.fold(text, TextFolding.all), field: field.position, into: &trigrams)
      }
      if field.indexes.contains(.equality) {
        switch value {
        case .null: terms.append(IndexKeys.nullTermPrefix(field: field.position))
        case .string(let text): terms.append(IndexKeys.termPrefix(field: field.position, value: text))
        case .strings(let list):
          for element in list { terms.append(IndexKeys.termPrefix(field: field.position, value: element)) }
        case .bool(let flag):
          terms.append(IndexKeys.termPrefix(field: field.position, value: flag ? "true" : "false"))
        case .integer(let number):
          terms.append(IndexKeys.termPrefix(field: field.position, value: String(number)))
        case .date(let date): terms.append(IndexKeys.termPrefix(field: field.position, value: date.iso8601))
        }
      }
      if field.indexes.contains(.ordered) {
        ordered.append(
          OrderedEntry(field: UInt8(field.position), value: IndexKeys.orderedValue(value), row: 0))
      }
    }
    trigrams = RowSet.normalized(trigrams)
    // Most records file one term per field, already in field order; lists may repeat a value.
    if !terms.indices.dropFirst().allSatisfy({ TextMatching.compare(terms[$0 - 1], terms[$0]) < 0 }) {
      terms.sort { TextMatching.compare($0, $1) < 0 }
      terms = terms.indices.compactMap { $0 > 0 && terms[$0 - 1] == terms[$0] ? nil : terms[$0] }
    }
  }
}

/// One ordered-index entry as a small value, sorted like its key: field, nil before values,
/// value, row. Its bytes are made only when it is written.
struct OrderedEntry: Hashable, Comparable {
  var field: UInt8
  var value: Int64?
  var row: Row

  static func < (a: OrderedEntry, b: OrderedEntry) -> Bool {
    if a.field != b.field { return a.field < b.field }
    switch (a.value, b.value) {
    case (nil, nil): break
    case (nil, _): return true
    case (_, nil): return false
    case (let x?, let y?) where x != y: return x < y
    default: break
    }
    return a.row < b.row
  }

  func with(row: Row) -> OrderedEntry { OrderedEntry(field: field, value: value, row: row) }

  var key: [UInt8] { IndexKeys.orderedKey(field: Int(field), value: value, row: row) }
}
