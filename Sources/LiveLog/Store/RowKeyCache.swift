import LMDB
import Synchronization

/// The primary keys of each integer-keyed collection's rows, in memory, by row: where a result's
/// ids come from once reading them from the row table has cost about as much as reading the whole
/// table once.
///
/// A result's ids are its rows' keys. Read from the row table, each row costs a step of an LMDB
/// cursor to its block of 64 rows (a B-tree search when the block is not the next one): a result
/// of 10,000 rows spread over a million touches some 8,000 blocks, most of its time. Here each
/// costs one load from an array of 8 bytes per row.
///
/// **Never stale.** A row keeps its key for life: a key deleted and written again gets a new row,
/// rows are never reused, and a migration cannot change a record's key (`SchemaMigrator`). So a key
/// once read stays true for every version, as-of reads included, whatever other threads or
/// processes commit later; the table is never invalidated, only read again to take in the rows
/// that came since (until then those come from the row table, as before).
///
/// **When it is built.** Rows the table does not hold (none, before the first build) are read
/// from the row table and counted; the read whose count reaches an eighth of the collection's
/// records (and at least `minimumMisses`) then reads the whole row table into a new table (about
/// 10 ms per million rows) before it returns, in that read's transaction, on its thread. Reading a
/// row's key from the row table costs several times what reading it in the build does, so the
/// builds cost at most about what the reads they replace would have: a process that reads few ids
/// never builds one, and a store opens as fast as without it.
///
/// **Memory.** 8 bytes and a bit per row number below the collection's next row, deleted rows
/// included, for each integer-keyed collection whose ids are read often, for as long as the store
/// is open; `StoreOptions.cachesRowKeys` false turns it off. A collection whose row numbers are
/// mostly deleted rows (more than `maximumSpanPerRecord` per record) or past `maximumRows` gets
/// none, nor do collections with string keys: they read their keys from the row table always.
final class RowKeyCache: Sendable {
  /// The keys of rows `0 ..< count` that the row table held when it was read.
  final class Keys: Sendable {
    private let keys: [Int64]
    /// Bit `row & 63` of word `row >> 6`: whether row `row` was present.
    private let present: [UInt64]

    fileprivate init(keys: [Int64], present: [UInt64]) {
      self.keys = keys
      self.present = present
    }

    /// Rows covered, present or not.
    var count: Int { keys.count }

    /// The key of `row`, if the row table held the row when it was read.
    @inline(__always)
    func key(of row: Row) -> Int64? {
      let index = Int(row)
      guard index < keys.count, present[index >> 6] & (1 << UInt64(index & 63)) != 0 else { return nil }
      return keys[index]
    }

    /// The keys of `rows`, in their order, when the table holds every one of them; else nil.
    func keys(of rows: [Row]) -> [Int64]? {
      guard !rows.isEmpty else { return [] }
      var complete = true
      let result = [Int64](unsafeUninitializedCapacity: rows.count) { result, count in
        for (position, row) in rows.enumerated() {
          guard let key = key(of: row) else {
            complete = false
            break
          }
          result.initializeElement(at: position, to: key)
          count = position + 1
        }
      }
      return complete ? result : nil
    }
  }

  private struct Entry {
    var keys: Keys?
    /// Rows read from the row table since the last build.
    var misses = 0
    /// Whether a thread is building the table now (the others go on reading the row table).
    var building = false
  }

  private let entries = Mutex<[UInt32: Entry]>([:])
  /// The fewest misses that start a build, whatever the collection's size.
  let minimumMisses: Int

  static let defaultMinimumMisses = 4_096
  /// Row numbers per record past which a collection is not cached: its table would be mostly the
  /// holes of deleted rows.
  static let maximumSpanPerRecord = 4
  /// Row numbers a small collection may span whatever its records: a few blocks of deleted rows.
  static let minimumSpan = 4_096
  /// Row numbers past which a collection is not cached: 1 GiB of keys.
  static let maximumRows = 1 << 27

  init(minimumMisses: Int = RowKeyCache.defaultMinimumMisses) {
    self.minimumMisses = minimumMisses
  }

  /// The keys of `collection` read so far, if any.
  func keys(of collection: StoredCollection) -> Keys? {
    entries.withLock { $0[collection.id]?.keys }
  }

  /// Counts `misses` rows of `collection` whose keys came from the row table, and builds the table
  /// anew, in `txn` (the caller's read) and on the caller's thread, when they add up to the
  /// threshold. A build that meets damage leaves the table as it was: the row table's damage is for
  /// the reads that need those rows, and `verify`, to report.
  func note(misses: Int, of collection: StoredCollection, _ txn: some ReadableTransaction) {
    guard misses > 0, collection.schema.primaryKey.type == .integer else { return }
    // The collection's size is read only once the misses pass the least threshold: most reads of
    // keys (a live query's few changed rows) end here.
    let total = entries.withLock { entries -> Int? in
      var entry = entries[collection.id, default: Entry()]
      entry.misses += misses
      entries[collection.id] = entry
      return entry.misses >= minimumMisses && !entry.building ? entry.misses : nil
    }
    guard let total, let records = try? collection.count(txn), total >= max(minimumMisses, records / 8) else {
      return
    }
    let claimed = entries.withLock { entries -> Bool in
      guard entries[collection.id]?.building == false else { return false }
      entries[collection.id]?.building = true
      entries[collection.id]?.misses = 0
      return true
    }
    guard claimed else { return }
    let keys = try? Self.read(collection, records: records, txn)
    entries.withLock { entries in
      entries[collection.id]?.building = false
      // A build in an older transaction than the last one's may hold fewer rows.
      if let keys, keys.count >= entries[collection.id]?.keys?.count ?? 0 {
        entries[collection.id]?.keys = keys
      }
    }
  }

  /// One past the last row of `collection`, as its next row and its row table's last block both
  /// bound it: one damaged value alone cannot make a build allocate for billions of rows.
  private static func bound(_ collection: StoredCollection, _ txn: some ReadableTransaction) throws -> Int {
    Int(min(try collection.nextRow(txn), UInt64(try collection.rowTable.rowBound(txn))))
  }

  /// Every key the row table holds, by row; nil for a collection not worth caching (above).
  private static func read(_ collection: StoredCollection, records: Int, _ txn: some ReadableTransaction)
    throws
    -> Keys?
  {
    let bound = try Self.bound(collection, txn)
    guard bound <= maximumRows, (bound - min(bound, minimumSpan)) / maximumSpanPerRecord <= records else {
      return nil
    }
    var keys = [Int64](repeating: 0, count: bound)
    var present = [UInt64](repeating: 0, count: (bound + 63) >> 6)
    try keys.withUnsafeMutableBufferPointer { keys in
      try present.withUnsafeMutableBufferPointer { present in
        try collection.rowTable.forEachBlock(txn) { block in
          try block.forEach { row, _, key in
            let index = Int(row)
            guard index < bound, key.count == 8 else {
              throw PageDamage("row \(row) of \(key.count) key bytes, next row \(bound)")
            }
            keys[index] = Int64(littleEndian: key.loadUnaligned(as: Int64.self))
            present[index >> 6] |= 1 << UInt64(index & 63)
            return true
          }
          return true
        }
      }
    }
    return Keys(keys: keys, present: present)
  }
}
