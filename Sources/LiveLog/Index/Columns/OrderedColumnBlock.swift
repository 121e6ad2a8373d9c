/// One ordered field's keys for a block of 64 rows, as `OrderedColumns` stores them:
///
/// ```
/// rows      UInt64 LE: bit i set when row (block << 6) + i is present (as in the row table)
/// absent    UInt64 LE: of those, the rows whose value is nil or NaN (flag 0 or 2)
/// nans      UInt64 LE: of those, the NaNs
/// base      UInt64 LE, UInt32 LE: the least `high` and the least `low` of the other rows' keys
/// widths    UInt8, UInt8: bytes of each row's `high - base` and `low - base` (0 to 8, 0 to 4)
/// deltas    for each present row in order: its two differences, little-endian, in those widths
///           (zero for an absent row)
/// ```
///
/// Why deltas from the block's least key: the rows of a block were mostly written together, so
/// their values are near one another (counts a byte or two apart, dates within a few years), and a
/// field costs two or three bytes a row rather than the thirteen of its key. Every row has one
/// width, so a row's key is found by a popcount and read in place.
struct OrderedColumnBlock {
  static let headerSize = 38

  let mask: UInt64
  private let absent: UInt64
  private let nans: UInt64
  private let baseHigh: UInt64
  private let baseLow: UInt32
  private let highWidth: Int
  private let lowWidth: Int
  private let value: UnsafeRawBufferPointer

  /// A stored block, read in place and checked to be whole.
  init(_ value: UnsafeRawBufferPointer) throws {
    guard value.count >= Self.headerSize else {
      throw PageDamage("an ordered column block of \(value.count) bytes")
    }
    mask = UInt64(littleEndian: value.loadUnaligned(as: UInt64.self))
    absent = UInt64(littleEndian: value.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
    nans = UInt64(littleEndian: value.loadUnaligned(fromByteOffset: 16, as: UInt64.self))
    baseHigh = UInt64(littleEndian: value.loadUnaligned(fromByteOffset: 24, as: UInt64.self))
    baseLow = UInt32(littleEndian: value.loadUnaligned(fromByteOffset: 32, as: UInt32.self))
    highWidth = Int(value[36])
    lowWidth = Int(value[37])
    self.value = value
    guard highWidth <= 8, lowWidth <= 4, absent & ~mask == 0, nans & ~absent == 0,
      value.count == Self.headerSize + mask.nonzeroBitCount * (highWidth + lowWidth)
    else {
      throw PageDamage(
        "an ordered column block of \(value.count) bytes for \(mask.nonzeroBitCount) rows, "
          + "widths \(highWidth) and \(lowWidth)")
    }
  }

  /// The key of the row at bit `bit` (0 to 63) of the block, or `nil` when the row is absent.
  @inline(__always)
  func key(atBit bit: Int) -> OrderedKey? {
    let flag: UInt64 = 1 << UInt64(bit)
    guard mask & flag != 0 else { return nil }
    if absent & flag != 0 { return nans & flag != 0 ? OrderedColumnBlock.nan : .null }
    let rank = (mask & (flag - 1)).nonzeroBitCount
    let start = Self.headerSize + rank * (highWidth + lowWidth)
    return OrderedKey(
      flag: 1, high: baseHigh &+ read(at: start, width: highWidth),
      low: baseLow &+ UInt32(truncatingIfNeeded: read(at: start + highWidth, width: lowWidth)))
  }

  /// Calls `body` with the bit and key of each present row, in order.
  func forEach(_ body: (Int, OrderedKey) throws -> Void) rethrows {
    var bits = mask
    while bits != 0 {
      let bit = bits.trailingZeroBitCount
      bits &= bits - 1
      if let key = key(atBit: bit) { try body(bit, key) }
    }
  }

  @inline(__always)
  private func read(at start: Int, width: Int) -> UInt64 {
    var result: UInt64 = 0
    for index in 0..<width { result |= UInt64(value[start + index]) << UInt64(8 * index) }
    return result
  }

  /// The key every NaN has (`OrderedKey.double`).
  static let nan = OrderedKey(flag: 2, high: 0, low: 0)

  /// The bytes of a block whose rows are the bits set in `rows` (bit i for row i of the block),
  /// each with the key `key(i)`. A key that is not a value is stored as the nil or NaN key (the
  /// only ones `OrderedKey` makes).
  static func encode(rows mask: UInt64, key: (Int) -> OrderedKey) -> [UInt8] {
    var absent: UInt64 = 0
    var nans: UInt64 = 0
    var baseHigh = UInt64.max
    var baseLow = UInt32.max
    var topHigh: UInt64 = 0
    var topLow: UInt32 = 0
    var bits = mask
    while bits != 0 {
      let bit = bits.trailingZeroBitCount
      bits &= bits - 1
      let key = key(bit)
      guard key.flag == 1 else {
        absent |= 1 << UInt64(bit)
        if key.flag == 2 { nans |= 1 << UInt64(bit) }
        continue
      }
      baseHigh = min(baseHigh, key.high)
      topHigh = max(topHigh, key.high)
      baseLow = min(baseLow, key.low)
      topLow = max(topLow, key.low)
    }
    if baseHigh > topHigh { (baseHigh, topHigh, baseLow, topLow) = (0, 0, 0, 0) }
    let highWidth = (64 - (topHigh - baseHigh).leadingZeroBitCount + 7) / 8
    let lowWidth = (32 - (topLow - baseLow).leadingZeroBitCount + 7) / 8
    var bytes: [UInt8] = []
    bytes.reserveCapacity(headerSize + mask.nonzeroBitCount * (highWidth + lowWidth))
    func append(_ word: UInt64, _ width: Int) {
      for index in 0..<width { bytes.append(UInt8(truncatingIfNeeded: word >> UInt64(8 * index))) }
    }
    append(mask, 8)
    append(absent, 8)
    append(nans, 8)
    append(baseHigh, 8)
    append(UInt64(baseLow), 4)
    bytes.append(UInt8(highWidth))
    bytes.append(UInt8(lowWidth))
    bits = mask
    while bits != 0 {
      let key = key(bits.trailingZeroBitCount)
      bits &= bits - 1
      let (high, low) = key.flag == 1 ? (key.high - baseHigh, UInt64(key.low - baseLow)) : (0, 0)
      append(high, highWidth)
      append(low, lowWidth)
    }
    return bytes
  }
}
