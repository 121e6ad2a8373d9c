import Dispatch
import Foundation
import LMDB

/// Writing a whole state at once, for a replay: every repository is inserted once, in row order,
/// into an empty store, so records and ids go in with `MDB_APPEND` and each posting list grows by
/// one ascending run per transaction.
extension Materializer {
  /// Inserts the repositories of `chunk` — ascending rows, all past the rows already written —
  /// with their records and index entries. `record` gives the record of an LSN's upsert; its
  /// bytes must stay valid while the call lasts (they point into a read transaction's map).
  func insertInRowOrder(
    _ chunk: ArraySlice<StoredRow>, _ txn: WriteTransaction,
    record: (UInt64) throws -> UnsafeRawBufferPointer
  ) throws {
    let records = try chunk.map { try record($0.lsn) }
    let entries = try Self.entriesInParallel(of: records, rows: chunk.map(\.row))
    var indexes = IndexWriter(trigrams: trigrams, terms: terms, ordered: ordered)
    for (index, stored) in zip(records.indices, chunk) {
      guard stored.row <= UInt64(Row.max) else {
        throw StoreError.corruptState(
          reason: "row \(stored.row) of id \(stored.id) is past the last row an index can hold")
      }
      indexes.change(row: Row(stored.row), old: nil, new: entries[index])
      try txn.put(self.records, stored.row, records[index], flags: .append)
      var id = stored.id
      try withUnsafeBytes(of: &id) { try txn.put(ids, stored.row, $0, flags: .append) }
    }
    try indexes.flush(txn)
  }

  /// The index entries of each record, computed on every core: decoding and folding the text
  /// is most of a rebuild's work that does not touch the database.
  private static func entriesInParallel(
    of records: [UnsafeRawBufferPointer], rows: [UInt64]
  ) throws -> [IndexEntries] {
    let workers = max(1, min(ProcessInfo.processInfo.activeProcessorCount, records.count / 1_024))
    let results = ParallelSlots<Result<IndexEntries, any Error>>(count: records.count)
    let input = UncheckedSendable(records)
    DispatchQueue.concurrentPerform(iterations: workers) { worker in
      var index = worker
      while index < input.value.count {
        results.set(index, Result { try Materializer.entries(of: input.value[index], row: rows[index]) })
        index += workers
      }
    }
    return try results.values().map { try $0.get() }
  }

  /// Writes the id → (row, version) table of `stored` and the next row to hand out.
  func insertRowsById(_ stored: [StoredRow], nextRow: UInt64, _ txn: WriteTransaction) throws {
    // The table's integer keys order as unsigned 64-bit values.
    for entry in stored.sorted(by: { UInt64(bitPattern: $0.id) < UInt64(bitPattern: $1.id) }) {
      var pair = (entry.row, entry.lsn)
      try withUnsafeBytes(of: &pair) {
        try txn.put(rows, UInt64(bitPattern: entry.id), $0, flags: .append)
      }
    }
    var next = nextRow
    try withUnsafeBytes(of: &next) { bytes in
      try Materializer.nextRowKey.withUnsafeBytes { try txn.put(meta, $0, bytes) }
    }
  }
}

/// Slots written by parallel workers, each slot by one worker only, read after they all finish.
/// The storage is allocated once, so writes to different slots never touch shared state.
private final class ParallelSlots<Value>: @unchecked Sendable {
  private let slots: UnsafeMutableBufferPointer<Value?>

  init(count: Int) {
    slots = .allocate(capacity: count)
    slots.initialize(repeating: nil)
  }

  deinit {
    slots.deinitialize()
    slots.deallocate()
  }

  func set(_ index: Int, _ value: Value) { slots[index] = value }

  func values() -> [Value] { slots.compactMap { $0 } }
}

/// Read-only pointers into a read transaction's map, shared with the workers of one call.
private struct UncheckedSendable<Value>: @unchecked Sendable {
  let value: Value
  init(_ value: Value) { self.value = value }
}
