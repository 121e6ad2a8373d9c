import LMDB

/// One version of a collection's schema, and the event that made it.
struct SchemaVersion: Sendable, Hashable {
  /// 1 for the schema the collection was created with, then counting up.
  var version: Int
  /// The LSN of the schema event; 0 for the schema of a store of format 1, which had none.
  var lsn: UInt64
  var schema: CollectionSchema
}

/// A collection's databases. Rows count up from 1 in order of first insertion, so a cursor over
/// `records` walks the unsorted result order, and posting lists of rows come out in result order.
///
/// - `records`: row → encoded record and its checksum (`StoredCollection+Records`). An update keeps its row; a delete frees it for good, and a
///   re-insert takes a new row at the end.
/// - `rows`: primary key → (row, LSN of the record's current version), two native `UInt64`s.
///   Integer keys are native `UInt64`s of their bit pattern (`MDB_INTEGERKEY`); string keys are
///   their UTF-8 bytes.
/// - `ids`: row → primary key, a small dense table so that results yield keys without reading
///   records.
/// - the indexes (`IndexWriter`): `index.trigrams`, `index.terms`, `index.ordered`.
struct CollectionDatabases: Sendable {
  let records: Database
  let rows: Database
  let ids: Database
  let trigrams: Database
  let terms: Database
  let ordered: Database

  static let suffixes = ["records", "rows", "ids", "index.trigrams", "index.terms", "index.ordered"]

  var all: [Database] { [records, rows, ids, trigrams, terms, ordered] }

  /// Opens (or creates) the databases of the collection `name`, whose keys are `keyType`.
  static func open(
    _ name: String, keyType: FieldType, create: Bool, environment: Environment,
    in txn: some ReadableTransaction
  ) throws -> CollectionDatabases {
    func open(_ suffix: String, _ flags: DatabaseFlags = []) throws -> Database {
      try environment.openDatabase("\(name).\(suffix)", flags: flags, create: create, in: txn)
    }
    return CollectionDatabases(
      records: try open("records", .integerKey),
      rows: try open("rows", keyType == .integer ? .integerKey : []),
      ids: try open("ids", .integerKey), trigrams: try open("index.trigrams"), terms: try open("index.terms"),
      ordered: try open("index.ordered"))
  }
}

/// A collection as this store holds it: its id, every version of its schema and its databases,
/// and the reads and writes of its materialized state.
struct StoredCollection: Sendable {
  /// The number events name the collection by; 1 for the first collection of a store.
  let id: UInt32
  let name: String
  /// Every version of the schema, oldest first.
  let versions: [SchemaVersion]
  let databases: CollectionDatabases
  /// The store's `meta` database, which holds each collection's next row.
  let meta: Database

  /// The current schema.
  var schema: CollectionSchema { versions[versions.count - 1].schema }
  /// The current schema's version number.
  var version: Int { versions[versions.count - 1].version }

  /// The schema of `version`, or `nil` for a version the collection never had.
  func schema(version: Int) -> CollectionSchema? {
    versions.first { $0.version == version }?.schema
  }

  var records: Database { databases.records }

  /// The key of `meta` that holds the next row to hand out.
  var nextRowKey: [UInt8] { Array("next_row:\(name)".utf8) }

  // MARK: Keys

  /// Calls `body` with the bytes `key` has in the `rows` database.
  func withKeyBytes<T>(_ key: PrimaryKey, _ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
    switch key {
    case .integer(let number):
      var bits = UInt64(bitPattern: number)
      return try withUnsafeBytes(of: &bits) { try body($0) }
    case .string(let text):
      return try Array(text.utf8).withUnsafeBytes { try body($0) }
    }
  }

  /// The key stored in the `ids` database at `row`.
  func key(_ value: UnsafeRawBufferPointer, row: UInt64) throws -> PrimaryKey {
    switch schema.primaryKey.type {
    case .integer:
      guard value.count == 8 else {
        throw StoreError.corruptState(reason: "\(name): the key of row \(row) has \(value.count) bytes")
      }
      return .integer(value.loadUnaligned(as: Int64.self))
    default:
      guard let text = String(validating: value, as: UTF8.self) else {
        throw StoreError.corruptState(reason: "\(name): the key of row \(row) is not UTF-8")
      }
      return .string(text)
    }
  }

  // MARK: Reading

  /// The row of the record with `key` and the LSN of its current version, if it is stored.
  func row(of key: PrimaryKey, _ txn: some ReadableTransaction) throws -> (row: UInt64, lsn: UInt64)? {
    guard let value = try withKeyBytes(key, { try txn.get(databases.rows, $0) }) else { return nil }
    guard value.count == 16 else {
      throw StoreError.corruptState(reason: "\(name): the row of key \(key) has \(value.count) bytes")
    }
    return (value.loadUnaligned(as: UInt64.self), value.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
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
    try txn.statistics(databases.records).entries
  }

  /// The fields of the record at `row` (by slot), decoded under the current schema.
  func values(_ bytes: UnsafeRawBufferPointer, row: UInt64) throws -> [FieldValue] {
    do {
      return try RecordCodec.decode(bytes, schema: schema)
    } catch {
      throw StoreError.corruptState(reason: "\(name): record at row \(row): \(error)")
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
      throw StoreError.corruptState(reason: "\(name): record at row \(row): \(error)")
    }
  }

  // MARK: Writing

  func putRow(_ row: UInt64, lsn: UInt64, of key: PrimaryKey, _ txn: WriteTransaction) throws {
    var pair = (row, lsn)
    try withUnsafeBytes(of: &pair) { value in
      try withKeyBytes(key) { try txn.put(databases.rows, $0, value) }
    }
  }

  func putKey(_ key: PrimaryKey, at row: UInt64, _ txn: WriteTransaction, flags: PutFlags = .append) throws {
    try withKeyBytes(key) { try txn.put(databases.ids, row, $0, flags: flags) }
  }

  func setNextRow(_ next: UInt64, _ txn: WriteTransaction) throws {
    var next = next
    try withUnsafeBytes(of: &next) { bytes in
      try nextRowKey.withUnsafeBytes { try txn.put(meta, $0, bytes) }
    }
  }

  /// An index writer over this collection's index databases; `forCommit` lets it file a small
  /// commit's new rows in the trigram index's segment of recent rows (`RecentTrigrams`).
  func indexWriter(forCommit: Bool = false) -> IndexWriter {
    IndexWriter(
      trigrams: databases.trigrams, terms: databases.terms, ordered: databases.ordered,
      fillsRecentSegment: forCommit)
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
    return StoredCollection(id: id, name: name, versions: versions, databases: databases, meta: meta)
  }
}
