import LMDB

/// One repository's change within a commit, as the log and the materialized state see it.
struct RecordChange {
  enum Kind { case inserted, updated, deleted }

  var kind: Kind
  var id: Int64
  /// The row: the repository's place in insertion order, kept across updates.
  var row: UInt64
  /// The stored record before the change (updates and deletes).
  var oldRecord: [UInt8]?
  /// The LSN of the version the change replaces (0: none).
  var previousLSN: UInt64
  /// The event that records the change in the log. For inserts and updates it holds the new
  /// record at `recordStart ..< recordEnd`.
  var event: [UInt8]
  var recordStart: Int
  var recordEnd: Int
  /// The event's LSN, once the commit has assigned it.
  var lsn: UInt64 = 0
  /// The new record's fields when the writer has them at hand (saves decoding `event`).
  var newValues: [FieldValue]? = nil

  /// The record after the change, inside `event` (inserts and updates).
  func withNewRecord<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
    try event.withUnsafeBytes { try body(UnsafeRawBufferPointer(rebasing: $0[recordStart..<recordEnd])) }
  }
}

/// The current state: every repository by id, in insertion order, kept in the same write
/// transaction as the log.
///
/// - `records`: row → encoded record. Rows count up from 1 in order of first insertion, so a
///   cursor over `records` walks the unsorted result order, and posting lists of rows come out
///   in result order too. An update keeps its row; a delete frees it for good, and a re-insert
///   takes a new row at the end.
/// - `rows`: id → (row, LSN of the id's current version), two native `UInt64`s.
/// - `ids`: row → id, a small dense table so that results yield ids without reading records.
/// - `meta`: the next row to hand out.
/// - the indexes (`IndexWriter`), changed by the differences between each record's old and new
///   index entries.
struct Materializer: Sendable {
  let records: Database
  let rows: Database
  let ids: Database
  let meta: Database
  let trigrams: Database
  let terms: Database
  let ordered: Database

  static let nextRowKey = Array("next_row".utf8)

  /// The row of repository `id` and the LSN of its current version, if it is stored.
  func row(of id: Int64, _ txn: some ReadableTransaction) throws -> (row: UInt64, lsn: UInt64)? {
    guard let value = try txn.get(rows, UInt64(bitPattern: id)) else { return nil }
    guard value.count == 16 else {
      throw StoreError.corruptState(reason: "row of id \(id) has \(value.count) bytes")
    }
    return (value.loadUnaligned(as: UInt64.self), value.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
  }

  private func putRow(_ row: UInt64, lsn: UInt64, of id: Int64, _ txn: WriteTransaction) throws {
    var pair = (row, lsn)
    try withUnsafeBytes(of: &pair) { try txn.put(rows, UInt64(bitPattern: id), $0) }
  }

  /// The id stored at `row`, read from the `ids` table.
  static func id(_ value: UnsafeRawBufferPointer, row: UInt64) throws -> Int64 {
    guard value.count == 8 else {
      throw StoreError.corruptState(reason: "id of row \(row) has \(value.count) bytes")
    }
    return value.loadUnaligned(as: Int64.self)
  }

  /// The stored record at `row`, pointing into the map.
  func record(at row: UInt64, _ txn: some ReadableTransaction) throws -> UnsafeRawBufferPointer? {
    try txn.get(records, row)
  }

  func nextRow(_ txn: some ReadableTransaction) throws -> UInt64 {
    guard let value = try txn.get(meta, Materializer.nextRowKey) else { return 1 }
    guard value.count == 8 else { throw StoreError.corruptState(reason: "next_row has \(value.count) bytes") }
    return value.loadUnaligned(as: UInt64.self)
  }

  /// Writes the changes of one commit to `records`, `rows`, `meta` and the indexes.
  func apply(_ changes: [RecordChange], nextRow: UInt64, _ txn: WriteTransaction) throws {
    guard nextRow <= UInt64(Row.max) else {
      throw StoreError.corruptState(
        reason: "the store has used all \(Row.max) rows; rebuild it with `livelog replay`")
    }
    var indexes = IndexWriter(trigrams: trigrams, terms: terms, ordered: ordered)
    for change in changes {
      let old = try change.oldRecord.map { try Materializer.entries(of: $0, row: change.row) }
      let new: IndexEntries? =
        if change.kind == .deleted {
          nil
        } else if let values = change.newValues {
          IndexEntries(values, schema: Repository.schema)
        } else {
          try change.withNewRecord { try Materializer.entries(of: $0, row: change.row) }
        }
      indexes.change(row: Row(change.row), old: old, new: new)
    }
    try indexes.flush(txn)
    for change in changes {
      switch change.kind {
      case .inserted:
        try putRow(change.row, lsn: change.lsn, of: change.id, txn)
        var id = change.id
        try withUnsafeBytes(of: &id) { try txn.put(ids, change.row, $0, flags: .append) }
        // New rows are past every stored row, so they can be appended without a search.
        try change.withNewRecord { try txn.put(records, change.row, $0, flags: .append) }
      case .updated:
        try putRow(change.row, lsn: change.lsn, of: change.id, txn)
        try change.withNewRecord { try txn.put(records, change.row, $0) }
      case .deleted:
        try txn.delete(rows, UInt64(bitPattern: change.id))
        try txn.delete(ids, change.row)
        try txn.delete(records, change.row)
      }
    }
    var next = nextRow
    try withUnsafeBytes(of: &next) { bytes in
      try Materializer.nextRowKey.withUnsafeBytes { try txn.put(meta, $0, bytes) }
    }
  }
}

extension Materializer {
  /// The index entries of an encoded record.
  static func entries(of record: UnsafeRawBufferPointer, row: UInt64) throws -> IndexEntries {
    do {
      return IndexEntries(
        try RecordCodec.decode(record, schema: Repository.schema), schema: Repository.schema)
    } catch {
      throw StoreError.corruptState(reason: "record at row \(row): \(error)")
    }
  }

  static func entries(of record: [UInt8], row: UInt64) throws -> IndexEntries {
    try record.withUnsafeBytes { try entries(of: $0, row: row) }
  }
}
