import LMDB
import Synchronization

/// One collection as it was at one version, read through short read transactions: how results,
/// live deliveries and version diffs read their records without holding an LMDB reader for as long
/// as they live (a held reader takes one of the 126 slots every process shares, and keeps LMDB from
/// reusing pages, so the file grows).
///
/// The log never changes what it holds, and every event names the version of its row that it
/// replaced. So a row's record at the view's version is the current one unless an event after that
/// version touched the row; then it is the version the first such event replaced, which the log
/// still holds. The view keeps those rows, and each read that finds the log longer than the view
/// has seen adds the rows its new events touched (once, for every later read).
final class VersionView: Sendable {
  /// The LSN the view is as of.
  let version: UInt64
  /// The collection, with the schema its records of then are read with.
  let collection: StoredCollection
  private let environment: Environment
  private let log: EventLog
  private let rowKeys: RowKeyCache?
  private let changed: Mutex<ChangedRows>

  /// Rows whose record at the view's version is not the current one.
  private struct ChangedRows: Sendable {
    /// The log's last LSN when `versions` was last brought up to date.
    var through: UInt64
    /// Rows whose record at the version is the upsert event at this LSN.
    var versions: [Row: UInt64]
    /// Whether rows missing from `versions` are as they are now (`false`: `versions` lists every
    /// row of the version, as an as-of state built forward from the start of the log does).
    var basedOnCurrent: Bool
  }
  /// For a version read from a checkpoint: where the versions of rows changed after it are.
  private let base: CheckpointBase?

  /// A view at `version` of a store whose log ended at `through` when `versions` (rows whose
  /// record then is in the log, at these LSNs) was found.
  init(
    version: UInt64, collection: StoredCollection, store: Store, through: UInt64,
    versions: [Row: UInt64] = [:], basedOnCurrent: Bool = true, base: CheckpointBase? = nil
  ) {
    self.version = version
    self.base = base
    self.collection = collection
    environment = store.environment
    log = store.log
    rowKeys = store.rowKeys
    changed = Mutex(ChangedRows(through: through, versions: versions, basedOnCurrent: basedOnCurrent))
  }

  /// A view at `state`'s LSN, whose rows `state` found in a log that ended at `through`.
  convenience init(_ state: HistoricalState, collection: StoredCollection, store: Store, through: UInt64) {
    self.init(
      version: state.lsn, collection: collection, store: store, through: through, versions: state.versions,
      basedOnCurrent: state.basedOnCurrent, base: state.base)
  }

  /// The keys of `rows`, in their order, when the collection's keys are integers and the store's
  /// row key cache holds every one of them: read without a transaction, since a row keeps its key
  /// for life (`RowKeyCache`). Else `nil`: `VersionRecords.integerKeys(_:)` reads them.
  func cachedIntegerKeys(_ rows: [Row]) -> [Int64]? {
    VersionRecords.cachedIntegerKeys(rows, of: collection, in: rowKeys)
  }

  /// Runs `body` in one short read transaction, with the records of the view's version.
  func read<T>(_ body: (VersionRecords) throws -> T) throws -> T {
    try environment.read { txn in
      let current = try log.lastLSN(txn)
      let rows = try changed.withLock { changed -> ChangedRows in
        guard changed.basedOnCurrent, current != changed.through else { return changed }
        guard current > changed.through else {
          throw StoreError.corruptState(
            reason: "the log of \(collection.name) ends at \(current), before \(changed.through), which "
              + "results of version \(version) saw: the store was replaced (a repair or an import into "
              + "it?) while they were held; run the query again")
        }
        try log.forEachHeader(from: changed.through + 1, through: current, txn) { header in
          guard collection.owns(header) else { return }
          let row = Row(truncatingIfNeeded: header.row)
          // The first event after the version that touches a row replaced the row's version then;
          // a row it created did not exist then.
          if changed.versions[row] == nil, let previous = header.previousLSN, previous <= version {
            changed.versions[row] = previous
          }
        }
        changed.through = current
        return changed
      }
      return try body(
        VersionRecords(
          txn: txn, collection: collection, log: log, versions: rows.versions,
          basedOnCurrent: rows.basedOnCurrent, base: base, rowKeys: rowKeys))
    }
  }
}

/// The records of a `VersionView`'s version, inside one read transaction.
struct VersionRecords {
  let txn: Transaction
  let collection: StoredCollection
  let log: EventLog
  let versions: [Row: UInt64]
  let basedOnCurrent: Bool
  /// For a version read from a checkpoint: rows missing from `versions` that changed after the
  /// checkpoint have their version then there.
  var base: CheckpointBase? = nil
  /// The store's keys by row, which serve the rows they hold at every version (a row keeps its
  /// key for life).
  var rowKeys: RowKeyCache? = nil

  /// The stored bytes of `row`'s record at the version, pointing into the map.
  func record(_ row: Row) throws -> UnsafeRawBufferPointer {
    if let lsn = versions[row] { return try log.record(at: lsn, txn) }
    if let base, !base.isNew(row), let lsn = try base.version(of: row, txn) {
      return try log.record(at: lsn, txn)
    }
    guard basedOnCurrent, let bytes = try collection.record(at: UInt64(row), txn) else {
      throw StoreError.corruptState(reason: "\(collection.name): row \(row) has no record")
    }
    return bytes
  }

  /// The fields of `row`'s record at the version (by slot).
  func values(_ row: Row) throws -> [FieldValue] {
    try collection.values(try record(row), row: UInt64(row))
  }

  /// The primary keys of `rows`, in their order: from the store's row key cache for the rows it
  /// holds (`RowKeyCache`, whatever the version: a row keeps its key for life), else from the row
  /// table's blocks (and the recent rows) for rows as they are now, from the log for the others.
  func keys(_ rows: [Row]) throws -> [PrimaryKey] {
    let integerKeys = collection.schema.primaryKey.type == .integer
    if let keys = Self.cachedIntegerKeys(rows, of: collection, in: rowKeys) {
      return keys.map(PrimaryKey.integer)
    }
    return try collectKeys(rows, placeholder: .integer(0)) { index, bytes in
      integerKeys
        ? .integer(bytes.loadUnaligned(as: Int64.self)) : try collection.key(bytes, row: UInt64(rows[index]))
    }
  }

  /// The keys of `rows` from `cache` alone, when `collection`'s keys are integers and the cache
  /// holds every one of them; else `nil`.
  static func cachedIntegerKeys(_ rows: [Row], of collection: StoredCollection, in cache: RowKeyCache?)
    -> [Int64]?
  {
    guard collection.schema.primaryKey.type == .integer else { return nil }
    return cache?.keys(of: collection)?.keys(of: rows)
  }

  /// `keys(_:)` of a collection whose keys are integers, as the integers (`nil` for string keys):
  /// no `PrimaryKey` in between.
  func integerKeys(_ rows: [Row]) throws -> [Int64]? {
    guard collection.schema.primaryKey.type == .integer else { return nil }
    // Most often the cache holds every row: one pass, no key bytes in between.
    if let keys = Self.cachedIntegerKeys(rows, of: collection, in: rowKeys) { return keys }
    return try collectKeys(rows, placeholder: 0) { _, bytes in bytes.loadUnaligned(as: Int64.self) }
  }

  /// `make` of each row's key bytes, in the order of `rows`: written through the array's buffer,
  /// since an array captured by `forEachKey`'s closure is checked for uniqueness at every write,
  /// which costs as much as the write on a result of tens of thousands of rows.
  private func collectKeys<Key>(
    _ rows: [Row], placeholder: Key, _ make: (Int, UnsafeRawBufferPointer) throws -> Key
  ) throws -> [Key] {
    // An array of no capacity is the shared empty one, whose count the initializer would write:
    // harmless, but a data race to the thread sanitizer when two threads do it.
    guard !rows.isEmpty else { return [] }
    return try [Key](unsafeUninitializedCapacity: rows.count) { keys, count in
      keys.initialize(repeating: placeholder)
      count = rows.count
      try forEachKey(rows) { index, bytes in keys[index] = try make(index, bytes) }
    }
  }

  /// Calls `body` with each position of `rows` and the bytes of that row's key.
  ///
  /// Rows the row key cache holds are served first, each by one load. The others are taken in row
  /// order, in chunks: for each chunk, one pass finds each row's block with
  /// one cursor and where its key lies in it (stepping to a block one or two on, searching for one
  /// further: it lies on another leaf page, which a search reaches without reading the pages in
  /// between, each a cache miss); a second pass reads the keys, loads that do not wait on one
  /// another, so that the processor overlaps their cache misses (a result of tens of thousands of
  /// rows spread over a million is mostly misses).
  private func forEachKey(_ rows: [Row], _ body: (Int, UnsafeRawBufferPointer) throws -> Void) throws {
    let cached = rowKeys?.keys(of: collection)
    // Rows the cache holds need nothing else; the others take the paths below, and those the row
    // table serves count towards the cache's next build. `pending`: the positions of `rows` left,
    // in row order (nil: all of them, in order, which needs no array).
    var pending: [Int]?
    if let cached {
      var missing: [Int] = []
      for index in rows.indices {
        guard let key = cached.key(of: rows[index]) else {
          missing.append(index)
          continue
        }
        try withUnsafeBytes(of: key.littleEndian) { try body(index, $0) }
      }
      guard !missing.isEmpty else { return }
      pending = missing
    }
    let count = pending?.count ?? rows.count
    let ascending =
      if let pending {
        pending.indices.dropFirst().allSatisfy { rows[pending[$0 - 1]] < rows[pending[$0]] }
      } else { rows.indices.dropFirst().allSatisfy { rows[$0 - 1] < rows[$0] } }
    if !ascending { pending = (pending ?? Array(rows.indices)).sorted { rows[$0] < rows[$1] } }
    let order = pending
    var fromTable = 0
    defer { rowKeys?.note(misses: fromTable, of: collection, txn) }
    let recent = try RecentRows.load(collection, txn)
    let integerKeys = collection.schema.primaryKey.type == .integer
    var others: [Int] = []
    let chunk = 256
    var located = [(index: Int, key: UnsafeRawBufferPointer)]()
    located.reserveCapacity(chunk)
    try txn.withCursor(collection.databases.rows) { cursor in
      var entry: Entry?
      var block: RowTable.Block?
      var step = 0
      while step < count {
        located.removeAll(keepingCapacity: true)
        let end = min(step + chunk, count)
        for place in step..<end {
          let index = order?[place] ?? place
          let row = rows[index]
          guard versions[row] == nil, basedOnCurrent, recent.isEmpty || recent.entry(of: row) == nil else {
            others.append(index)
            continue
          }
          let wanted = RowTable.block(of: row)
          do {
            if block?.index != wanted {
              if entry == nil || (entry?.integerKey ?? .max) > wanted {
                entry = try cursor.seek(atLeast: wanted)
              }
              while let current = entry, let key = current.integerKey, key < wanted {
                entry = wanted - key <= 2 ? try cursor.next() : try cursor.seek(atLeast: wanted)
              }
              block =
                try entry.flatMap { $0.integerKey == wanted ? $0 : nil }.map {
                  try RowTable.Block(index: wanted, value: $0.value, integerKeys: integerKeys)
                }
            }
            let bytes = integerKeys ? block?.integerKeyBytes(of: row) : try block?.slot(of: row)?.key
            if let bytes { located.append((index, bytes)) } else { others.append(index) }
          } catch let damage as PageDamage {
            throw collection.damaged("the row table", damage)
          }
        }
        fromTable += located.count
        for (index, bytes) in located { try body(index, bytes) }
        step = end
      }
    }
    for index in others {
      let row = rows[index]
      if versions[row] != nil || !basedOnCurrent {
        try withKeyBytes(try RecordView(bytes: try record(row), row: row).key(collection.schema.primaryKey)) {
          try body(index, $0)
        }
      } else if let entry = recent.entry(of: row), !entry.isDeleted {
        try body(index, entry.key)
      } else if base != nil {
        // Deleted after a checkpoint the view reads from: a row keeps its key for life, so its
        // record of then has it.
        try withKeyBytes(try RecordView(bytes: try record(row), row: row).key(collection.schema.primaryKey)) {
          try body(index, $0)
        }
      } else {
        throw StoreError.corruptState(reason: "\(collection.name): row \(row) has no key")
      }
    }
  }

  private func withKeyBytes(_ key: PrimaryKey, _ body: (UnsafeRawBufferPointer) throws -> Void) rethrows {
    try collection.withKeyBytes(key, body)
  }
}
