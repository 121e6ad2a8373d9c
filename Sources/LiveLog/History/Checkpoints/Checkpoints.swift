import LMDB

/// Summaries of the log that let an as-of query start from a checkpoint instead of reading every
/// event between its version and now (`Docs/Replay.md`, Checkpoints).
///
/// The log is cut into intervals of `interval` events: interval `k` holds the LSNs
/// `k·interval + 1 ... (k+1)·interval`, and its checkpoint is the LSN `k·interval` just before it.
/// For each interval the `checkpoints` database keeps, per collection, what a query needs to know
/// about the rows the interval changed without reading its events:
///
/// | key | value |
/// | --- | --- |
/// | `[0]` | format `1` (`UInt8`), `interval` and `through` (`UInt64` LE each): events up to `through` are summarized |
/// | `[1] ++ collection ++ row ++ k` | the row's version at the interval's checkpoint (`UInt64` LE), for a row that existed then and an event of the interval touched |
/// | `[2] ++ collection ++ k ++ slot ++ row` | `[1]`: an update of the interval changed the row's value in `slot` (`0xFFFF`: a delete removed the row) |
/// | `[3] ++ collection ++ k` | the first row the interval created (`UInt64` LE) |
///
/// Collections are `UInt32`, rows and intervals `UInt64`, slots `UInt16`, all big-endian so that
/// LMDB's byte order is numeric order: a row's versions lie side by side in interval order, and
/// one interval's rows under one slot side by side in row order.
///
/// Every entry is a function of the log alone (an event, and the record its `previous` names), so
/// a store and its replay hold the same entries whatever commits wrote them; they are derived
/// data, rebuilt by replay and compared by `verify` like the rest of the state. The summary is
/// written as the log grows, each commit adding its own events (`record(through:)`), so it never
/// lags the log in a store this version of LiveLog writes.
struct Checkpoints: Sendable {
  let database: Database

  /// Events per interval unless a store says otherwise; see `Docs/Replay.md` for the measurements
  /// behind it.
  static let defaultInterval: UInt64 = 4_096
  /// The slot under which deleted rows are listed; no field has it (slots are below 4,096).
  static let deletedSlot: UInt16 = 0xFFFF
  static let format: UInt8 = 1

  enum Tag: UInt8 {
    case header = 0
    case version, changed, created
  }

  /// The interval and how far the summary reaches.
  struct Header: Sendable, Hashable {
    var interval: UInt64
    var through: UInt64
  }

  static let headerKey: [UInt8] = [Tag.header.rawValue]

  func header(_ txn: some ReadableTransaction) throws -> Header? {
    guard let bytes = try txn.get(database, Self.headerKey) else { return nil }
    guard bytes.count == 17, bytes[0] == Self.format else {
      throw StoreError.corruptState(
        reason: "the checkpoints' header is \(bytes.count) bytes of format \(bytes.first ?? 0); "
          + "run `livelog replay --in-place` to rebuild them")
    }
    let interval = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: 1, as: UInt64.self))
    let through = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: 9, as: UInt64.self))
    guard interval > 0 else {
      throw StoreError.corruptState(
        reason: "the checkpoints' interval is 0; run `livelog replay --in-place` to rebuild them")
    }
    return Header(interval: interval, through: through)
  }

  func setHeader(_ header: Header, _ txn: WriteTransaction) throws {
    var bytes: [UInt8] = [Self.format]
    bytes.appendLittleEndian(header.interval)
    bytes.appendLittleEndian(header.through)
    try txn.put(database, Self.headerKey, bytes)
  }

  /// The collection id a header names: events of format 1 belong to `repositories`, which is
  /// always collection 1 (`ReplayCatalog.entry(for:)`).
  static func collectionID(_ header: EventHeader) -> UInt32 { header.collection == 0 ? 1 : header.collection }

  static func versionKey(collection: UInt32, row: UInt64, interval: UInt64) -> [UInt8] {
    var key: [UInt8] = []
    appendVersionKey(collection: collection, row: row, interval: interval, to: &key)
    return key
  }

  static func appendVersionKey(collection: UInt32, row: UInt64, interval: UInt64, to key: inout [UInt8]) {
    key.append(Tag.version.rawValue)
    key.appendBigEndian(collection)
    key.appendBigEndian(row)
    key.appendBigEndian(interval)
  }

  static func changedKey(collection: UInt32, interval: UInt64, slot: UInt16, row: UInt64) -> [UInt8] {
    var key: [UInt8] = []
    appendChangedKey(collection: collection, interval: interval, slot: slot, row: row, to: &key)
    return key
  }

  static func appendChangedKey(
    collection: UInt32, interval: UInt64, slot: UInt16, row: UInt64, to key: inout [UInt8]
  ) {
    appendChangedPrefix(collection: collection, interval: interval, slot: slot, to: &key)
    key.appendBigEndian(row)
  }

  static func changedPrefix(collection: UInt32, interval: UInt64, slot: UInt16) -> [UInt8] {
    var key: [UInt8] = []
    appendChangedPrefix(collection: collection, interval: interval, slot: slot, to: &key)
    return key
  }

  private static func appendChangedPrefix(
    collection: UInt32, interval: UInt64, slot: UInt16, to key: inout [UInt8]
  ) {
    key.append(Tag.changed.rawValue)
    key.appendBigEndian(collection)
    key.appendBigEndian(interval)
    key.appendBigEndian(slot)
  }

  static func createdKey(collection: UInt32, interval: UInt64) -> [UInt8] {
    var key: [UInt8] = []
    appendCreatedKey(collection: collection, interval: interval, to: &key)
    return key
  }

  static func appendCreatedKey(collection: UInt32, interval: UInt64, to key: inout [UInt8]) {
    key.append(Tag.created.rawValue)
    key.appendBigEndian(collection)
    key.appendBigEndian(interval)
  }

  /// The value of a changed row's entry: the key says it all.
  static let changedValue: [UInt8] = [1]
}

extension [UInt8] {
  mutating func appendBigEndian<T: FixedWidthInteger>(_ value: T) {
    Swift.withUnsafeBytes(of: value.bigEndian) { append(contentsOf: $0) }
  }

  mutating func appendLittleEndian<T: FixedWidthInteger>(_ value: T) {
    Swift.withUnsafeBytes(of: value.littleEndian) { append(contentsOf: $0) }
  }
}

extension UnsafeRawBufferPointer {
  /// The big-endian integer at `offset`.
  func bigEndian<T: FixedWidthInteger>(at offset: Int, as type: T.Type) -> T {
    T(bigEndian: loadUnaligned(fromByteOffset: offset, as: T.self))
  }
}
