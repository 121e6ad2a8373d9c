import LMDB

/// One version of a collection's schema, and the event that made it.
struct SchemaVersion: Sendable, Hashable {
  /// 1 for the schema the collection was created with, then counting up.
  var version: Int
  /// The LSN of the schema event; 0 for the schema of a store of format 1, which had none.
  var lsn: UInt64
  var schema: CollectionSchema
}

/// A collection's databases.
///
/// - `keys`: primary key → row (`UInt32` LE). Integer keys are native `UInt64`s of their bit
///   pattern (`MDB_INTEGERKEY`); string keys are their UTF-8 bytes.
/// - `rows`: the row table (`RowTable`): for each folded row, the LSN of its current version —
///   whose upsert event in the log holds the record — and its key, 64 rows a block.
/// - `indexes`: the segments of every index (`SegmentDirectory`, `IndexPageKey`).
/// - `recent`: rows that small commits changed since the last fold (`RecentEntry`), which take
///   precedence over the row table and the segments.
/// - `columns`: each folded row's ordered values (`OrderedColumns`), 64 rows a block; absent from
///   a store of format 7, which is read as it is until its first writable open upgrades it.
///
/// Records are stored once, in the log: the state says which event holds each row's record.
struct CollectionDatabases: Sendable {
  let keys: Database
  let rows: Database
  let index: Database
  let recent: Database
  /// `nil` in a store of format 7 opened read-only.
  let columns: Database?

  static let suffixes = ["keys", "rows", "indexes", "recent", "columns"]

  var all: [Database] { [keys, rows, index, recent] + (columns.map { [$0] } ?? []) }

  /// Opens (or creates) the databases of the collection `name`, whose keys are `keyType`.
  static func open(
    _ name: String, keyType: FieldType, create: Bool, environment: Environment,
    in txn: some ReadableTransaction
  ) throws -> CollectionDatabases {
    func open(_ suffix: String, _ flags: DatabaseFlags = []) throws -> Database {
      try environment.openDatabase("\(name).\(suffix)", flags: flags, create: create, in: txn)
    }
    let columns: Database?
    do {
      columns = try open("columns", .integerKey)
    } catch let error as LMDBError where error.isNotFound && !create {
      columns = nil
    }
    return CollectionDatabases(
      keys: try open("keys", keyType == .integer ? .integerKey : []), rows: try open("rows", .integerKey),
      index: try open("indexes"), recent: try open("recent", .integerKey), columns: columns)
  }
}

/// A collection as this store holds it: its id, every version of its schema and its databases,
/// and the reads and writes of its materialized state.
///
/// A class of constants, handed around by one reference: a commit and a query pass it from
/// call to call, and each copy of a struct of these fields retained every reference in it
/// (about a twentieth of a small commit's time).
final class StoredCollection: Sendable {
  /// The number events name the collection by; 1 for the first collection of a store.
  let id: UInt32
  let name: String
  /// Every version of the schema, oldest first.
  let versions: [SchemaVersion]
  let databases: CollectionDatabases
  /// The store's `meta` database, which holds each collection's next row, count and segments.
  let meta: Database
  /// The store's log, which holds the records.
  let log: EventLog
  /// The current schema: the last version's, kept here because a commit reads it for every
  /// record, and taking it from `versions` copied the version each time.
  let schema: CollectionSchema
  /// The current schema's version number.
  let version: Int

  init(
    id: UInt32, name: String, versions: [SchemaVersion], databases: CollectionDatabases, meta: Database,
    log: EventLog
  ) {
    precondition(!versions.isEmpty, "a collection has at least one schema version")
    self.id = id
    self.name = name
    self.versions = versions
    self.databases = databases
    self.meta = meta
    self.log = log
    schema = versions[versions.count - 1].schema
    version = versions[versions.count - 1].version
  }

  /// The schema of `version`, or `nil` for a version the collection never had.
  func schema(version: Int) -> CollectionSchema? {
    versions.first { $0.version == version }?.schema
  }

  var rowTable: RowTable {
    RowTable(database: databases.rows, integerKeys: schema.primaryKey.type == .integer)
  }

  /// The ordered values by row, or `nil` in a store of format 7 opened read-only.
  var orderedColumns: OrderedColumns? {
    databases.columns.map { OrderedColumns(database: $0, schema: schema) }
  }

  /// Writes `changes` (ascending by row) into the ordered columns.
  func applyToColumns(_ changes: [OrderedColumns.Change], _ txn: WriteTransaction) throws {
    do {
      try orderedColumns?.apply(changes, txn)
    } catch let damage as PageDamage {
      throw damaged("the ordered columns", damage)
    }
  }

  /// The key of `meta` that holds the next row to hand out.
  var nextRowKey: [UInt8] { Array("next_row:\(name)".utf8) }
  /// The key of `meta` that holds how many records the collection has.
  var countKey: [UInt8] { Array("count:\(name)".utf8) }

  // MARK: Keys

  /// Calls `body` with the bytes `key` has in the `keys` database and the row table.
  func withKeyBytes<T>(_ key: PrimaryKey, _ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
    switch key {
    case .integer(let number):
      var bits = UInt64(bitPattern: number)
      return try withUnsafeBytes(of: &bits) { try body($0) }
    case .string(let text):
      return try Array(text.utf8).withUnsafeBytes { try body($0) }
    }
  }

  func keyBytes(_ key: PrimaryKey) -> [UInt8] { withKeyBytes(key) { Array($0) } }

  /// The key stored as `value` (in the row table or a recent row) at `row`.
  func key(_ value: UnsafeRawBufferPointer, row: UInt64) throws -> PrimaryKey {
    switch schema.primaryKey.type {
    case .integer:
      guard value.count == 8 else {
        throw StoreError.corruptState(reason: "\(name): the key of row \(row) has \(value.count) bytes")
      }
      return .integer(value.loadUnaligned(as: Int64.self))
    default:
      guard let text = value.withMemoryRebound(to: UInt8.self, String.validated(utf8:)) else {
        throw StoreError.corruptState(reason: "\(name): the key of row \(row) is not UTF-8")
      }
      return .string(text)
    }
  }

  // MARK: Reading

  /// The row of the record with `key` and the LSN of its current version, if it is stored.
  func row(of key: PrimaryKey, _ txn: some ReadableTransaction) throws -> (row: UInt64, lsn: UInt64)? {
    guard let value = try withKeyBytes(key, { try txn.get(databases.keys, $0) }) else { return nil }
    guard value.count == 4 else {
      throw StoreError.corruptState(reason: "\(name): the row of key \(key) has \(value.count) bytes")
    }
    let row = UInt32(littleEndian: value.loadUnaligned(as: UInt32.self))
    guard let lsn = try currentLSN(of: row, txn) else {
      throw StoreError.corruptState(
        reason: "\(name): key \(key) names row \(row), which has no record")
    }
    return (UInt64(row), lsn)
  }

  /// The LSN of `row`'s current version, or `nil` when the row holds no record.
  func currentLSN(of row: Row, _ txn: some ReadableTransaction) throws -> UInt64? {
    if let stored = try txn.get(databases.recent, UInt64(row)) {
      let entry = try recentEntry(stored, row: row)
      return entry.isDeleted ? nil : entry.lsn
    }
    do {
      return try rowTable.block(RowTable.block(of: row), txn)?.lsn(of: row)
    } catch let damage as PageDamage {
      throw damaged("the row table", damage)
    }
  }

  /// A recent row's entry, read in place.
  func recentEntry(_ bytes: UnsafeRawBufferPointer, row: Row) throws -> RecentEntry.View {
    do {
      return try RecentEntry.View(bytes)
    } catch let damage as PageDamage {
      throw damaged("recent row \(row)", damage)
    }
  }

  /// `StoreError.corruptState` for a damaged part of the state, with the repair to run.
  func damaged(_ part: String, _ damage: any Error) -> StoreError {
    .corruptState(
      reason: "\(name): \(part) is damaged (\(damage))")
  }

  func nextRow(_ txn: some ReadableTransaction) throws -> UInt64 {
    guard let value = try txn.get(meta, nextRowKey) else { return 1 }
    guard value.count == 8 else {
      throw StoreError.corruptState(reason: "\(name): the next row has \(value.count) bytes")
    }
    return value.loadUnaligned(as: UInt64.self)
  }

  /// Records in the collection now.
  func count(_ txn: some ReadableTransaction) throws -> Int {
    guard let value = try txn.get(meta, countKey) else { return 0 }
    guard value.count == 8, let count = Int(exactly: value.loadUnaligned(as: UInt64.self)) else {
      throw StoreError.corruptState(
        reason: "\(name): the record count is damaged (\(value.count) bytes, or a number past 2^63); "
          + "`livelog replay --in-place` rebuilds the state from the log")
    }
    return count
  }

  /// The segments of the collection's indexes.
  func directory(_ txn: some ReadableTransaction) throws -> SegmentDirectory {
    try SegmentDirectory.read(name, meta: meta, txn)
  }

  /// The fields (by slot) of the record at `row`, decoded under the current schema.
  func values(_ bytes: UnsafeRawBufferPointer, row: UInt64) throws -> [FieldValue] {
    do {
      return try RecordCodec.decode(bytes, schema: schema)
    } catch {
      throw StoreError.undecodable(recordAt: row, in: name, error)
    }
  }

  /// The index entries of an encoded record under `schema` (default: the current one).
  func entries(of record: UnsafeRawBufferPointer, row: UInt64, schema: CollectionSchema? = nil) throws
    -> IndexEntries
  {
    let schema = schema ?? self.schema
    do {
      return IndexEntries(try RecordCodec.decode(record, schema: schema), schema: schema)
    } catch {
      throw StoreError.undecodable(recordAt: row, in: name, error)
    }
  }

  // MARK: Writing

  func putKey(_ key: PrimaryKey, row: UInt64, _ txn: WriteTransaction, flags: PutFlags = []) throws {
    try Self.withKeyTableValue(of: Row(truncatingIfNeeded: row)) { bytes in
      try withKeyBytes(key) { try txn.put(databases.keys, $0, bytes, flags: flags) }
    }
  }

  /// The key table's value for a key at `row`: the row, as 4 little-endian bytes.
  static func withKeyTableValue<Result>(
    of row: Row, _ body: (UnsafeRawBufferPointer) throws -> Result
  ) rethrows -> Result {
    try withUnsafeBytes(of: row.littleEndian, body)
  }

  func deleteKey(_ key: PrimaryKey, _ txn: WriteTransaction) throws {
    _ = try withKeyBytes(key) { try txn.delete(databases.keys, $0) }
  }

  func setNextRow(_ next: UInt64, _ txn: WriteTransaction) throws {
    try putMeta(nextRowKey, next, txn)
  }

  func setCount(_ count: Int, _ txn: WriteTransaction) throws {
    try putMeta(countKey, UInt64(max(count, 0)), txn)
  }

  private func putMeta(_ key: [UInt8], _ value: UInt64, _ txn: WriteTransaction) throws {
    var value = value
    try withUnsafeBytes(of: &value) { bytes in
      try key.withUnsafeBytes { try txn.put(meta, $0, bytes) }
    }
  }
}

extension StoredCollection {
  /// The collection as an as-of query at `lsn` reads it, or `nil` when it did not exist yet: the
  /// schema of then, so that records decode with the fields they were written with (a field a
  /// migration later retired among them), with only the indexes that still exist (the databases
  /// hold today's), and with today's other fields too, which every record of then lacks.
  func asOf(_ lsn: UInt64) -> StoredCollection? {
    let then = versions.filter { $0.lsn <= lsn }
    guard let last = then.last, last.version != version else { return then.isEmpty ? nil : self }
    let now = schema
    var fields: [Field] = last.schema.fields.map { old in
      let current = now.field(atSlot: old.position)
      let kept =
        current.map { $0.name == old.name && $0.type == old.type ? $0.indexes.intersection(old.indexes) : [] }
        ?? []
      return old.indexed(kept)
    }
    let known = Set(fields.map(\.position))
    for field in now.fields
    where !known.contains(field.position) && last.schema.field(named: field.name) == nil {
      fields.append(field.indexed([]))
    }
    let merged = CollectionSchema(
      name: name, primaryKey: last.schema.primaryKey.name, slotted: fields,
      slotCount: max(now.slotCount, last.schema.slotCount))
    var versions = then
    versions[versions.count - 1].schema = merged
    return StoredCollection(
      id: id, name: name, versions: versions, databases: databases, meta: meta, log: log)
  }
}
