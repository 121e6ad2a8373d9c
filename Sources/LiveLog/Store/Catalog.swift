import LMDB
import Synchronization

/// The collections of a store, as one transaction sees them.
struct CatalogState: Sendable {
  /// Counts the catalog's changes: a copy whose stamp differs from the stored one is stale.
  let stamp: UInt64
  let collections: [UInt32: StoredCollection]
  private let ids: [String: UInt32]

  static let empty = CatalogState(stamp: 0, collections: [:])

  init(stamp: UInt64, collections: [UInt32: StoredCollection]) {
    self.stamp = stamp
    self.collections = collections
    ids = Dictionary(collections.values.map { ($0.name, $0.id) }, uniquingKeysWith: { a, _ in a })
  }

  func collection(named name: String) -> StoredCollection? {
    ids[name].flatMap { collections[$0] }
  }

  /// The collection an event names. Events of format 1 carry no collection (id 0): they are the
  /// `repositories` collection's.
  func collection(id: UInt32) -> StoredCollection? {
    id == 0 ? collection(named: LegacySchemas.repositoriesName) : collections[id]
  }

  /// Every collection, by id.
  var all: [StoredCollection] { collections.values.sorted { $0.id < $1.id } }

  /// The id a new collection gets.
  var nextID: UInt32 { (collections.keys.max() ?? 0) + 1 }
}

/// The store's collections and every version of their schemas, kept in the `catalog` database
/// (collection id → entry), with a copy in memory that each transaction checks against the
/// stored stamp (`meta["catalog_stamp"]`) before it trusts it.
///
/// The catalog is derived from the log, like the rest of the state: every schema change is a
/// schema event, and a replay rebuilds the catalog from them.
final class Catalog: Sendable {
  let database: Database
  let meta: Database
  /// The store's log, which every collection reads its records from.
  let log: EventLog
  private let environment: Environment
  private let cached = Mutex(CatalogState.empty)
  /// LMDB forbids opening databases from two transactions at once; this keeps opens one at a time.
  private let opening = Mutex(())

  static let stampKey = Array("catalog_stamp".utf8)

  /// Whether loading the catalog opens the collections' databases: not for a store opened for
  /// its log alone (an upgrade's source), whose collections have an older format's databases.
  private let opensCollections: Bool

  init(
    database: Database, meta: Database, log: EventLog, environment: Environment, opensCollections: Bool = true
  ) {
    self.database = database
    self.meta = meta
    self.log = log
    self.opensCollections = opensCollections
    self.environment = environment
  }

  /// The catalog as `txn` sees it, or `nil` when this process's copy is stale: call `refresh()`
  /// outside the transaction (database handles must be opened before the transaction that uses
  /// them begins) and start again.
  func state(in txn: some ReadableTransaction) throws -> CatalogState? {
    let stamp = try Catalog.stamp(txn, meta)
    let copy = cached.withLock { $0 }
    return copy.stamp == stamp ? copy : nil
  }

  /// The cached copy, whatever the stored stamp says (for code that has just refreshed).
  var lastKnown: CatalogState { cached.withLock { $0 } }

  /// Reads the catalog again, opening the databases of collections new to this process.
  @discardableResult
  func refresh() throws -> CatalogState {
    try opening.withLock { _ in
      let state = try environment.readOpeningDatabases { txn in try load(txn, create: false) }
      cached.withLock { $0 = state }
      return state
    }
  }

  /// Reads the catalog inside a write transaction that changes it, creating the databases of any
  /// collection it holds that lack them; the caller installs the result with `install` once the
  /// transaction has committed.
  func load(inWrite txn: WriteTransaction) throws -> CatalogState {
    try opening.withLock { _ in try load(txn, create: true) }
  }

  /// Opens (in a write transaction: creates) a collection's databases, one open at a time.
  func openDatabases(_ name: String, keyType: FieldType, create: Bool, in txn: some ReadableTransaction)
    throws
    -> CollectionDatabases
  {
    try opening.withLock { _ in
      try CollectionDatabases.open(name, keyType: keyType, create: create, environment: environment, in: txn)
    }
  }

  /// Takes a state read (or written) by a committed transaction as the current copy.
  func install(_ state: CatalogState) {
    cached.withLock { $0 = state }
  }

  private func load(_ txn: some ReadableTransaction, create: Bool) throws -> CatalogState {
    let stamp = try Catalog.stamp(txn, meta)
    var collections: [UInt32: StoredCollection] = [:]
    guard opensCollections else { return CatalogState(stamp: stamp, collections: collections) }
    try txn.withCursor(database) { cursor in
      var entry = try cursor.first()
      while let current = entry {
        let (id, name, versions) = try CatalogEntry.read(current.value)
        guard let schema = versions.last?.schema else {
          throw StoreError.corruptState(reason: "the catalog entry of \(name) has no schema")
        }
        let databases = try CollectionDatabases.open(
          name, keyType: schema.primaryKey.type, create: create, environment: environment, in: txn)
        collections[id] = StoredCollection(
          id: id, name: name, versions: versions, databases: databases, meta: meta, log: log)
        entry = try cursor.next()
      }
    }
    return CatalogState(stamp: stamp, collections: collections)
  }

  static func stamp(_ txn: some ReadableTransaction, _ meta: Database) throws -> UInt64 {
    guard let value = try txn.get(meta, stampKey) else { return 0 }
    guard value.count == 8 else {
      throw StoreError.corruptState(reason: "catalog_stamp has \(value.count) bytes")
    }
    return value.loadUnaligned(as: UInt64.self)
  }

  /// Sets the stamp (a replay, which writes the entries of every version at once).
  func setStamp(_ value: UInt64, _ txn: WriteTransaction) throws {
    var value = value
    try withUnsafeBytes(of: &value) { bytes in
      try Catalog.stampKey.withUnsafeBytes { try txn.put(meta, $0, bytes) }
    }
  }

  /// Writes a collection's entry and moves the stamp on, so that every process reads the
  /// catalog again.
  func write(id: UInt32, name: String, versions: [SchemaVersion], _ txn: WriteTransaction) throws {
    try txn.put(database, UInt64(id), CatalogEntry.bytes(id: id, name: name, versions: versions))
    var next = try Catalog.stamp(txn, meta) + 1
    try withUnsafeBytes(of: &next) { bytes in
      try Catalog.stampKey.withUnsafeBytes { try txn.put(meta, $0, bytes) }
    }
  }
}

/// The JSON of a catalog entry:
/// `{"id":1,"name":"bookmarks","versions":[{"version":1,"lsn":12,"schema":{…stored form…}}]}`.
enum CatalogEntry {
  static func bytes(id: UInt32, name: String, versions: [SchemaVersion]) -> [UInt8] {
    var writer = JSONWriter()
    writer.beginObject()
    writer.key("id")
    writer.integer(id)
    writer.key("name")
    writer.string(name)
    writer.key("versions")
    writer.beginArray()
    for version in versions {
      writer.beginObject()
      writer.key("version")
      writer.integer(version.version)
      writer.key("lsn")
      writer.integer(version.lsn)
      writer.key("schema")
      version.schema.write(to: &writer, slots: true)
      writer.endObject()
    }
    writer.endArray()
    writer.endObject()
    return writer.bytes
  }

  static func read(_ bytes: UnsafeRawBufferPointer) throws -> (UInt32, String, [SchemaVersion]) {
    let buffer = bytes.assumingMemoryBound(to: UInt8.self)
    func corrupt(_ reason: String) -> StoreError { .corruptState(reason: "a catalog entry \(reason)") }
    guard let document = try? JSONParser.parse(buffer), case .object(let object) = document,
      case .number(let idNumber)? = object["id"]?.value,
      let id = idNumber.integer.flatMap(UInt32.init(exactly:)),
      case .string(let name)? = object["name"]?.value, case .array(let list)? = object["versions"]?.value
    else { throw corrupt("is not JSON of the catalog's shape") }
    let locator = SourceLocator(source: "catalog", text: buffer, firstLine: 1, item: name)
    var versions: [SchemaVersion] = []
    for element in list {
      guard case .object(let entry) = element.value, case .number(let number)? = entry["version"]?.value,
        let version = number.integer.flatMap(Int.init(exactly:)),
        case .number(let lsnNumber)? = entry["lsn"]?.value,
        let lsn = lsnNumber.integer.flatMap(UInt64.init(exactly:)), let schemaMember = entry["schema"]
      else { throw corrupt("of \(name) has a malformed version") }
      let schema: CollectionSchema
      do {
        schema = try CollectionSchema.read(
          schemaMember.value, at: schemaMember.offset, name: name, slots: true, locator: locator
        ).validated()
      } catch {
        throw corrupt("of \(name) holds a schema that cannot be read: \(error)")
      }
      versions.append(SchemaVersion(version: version, lsn: lsn, schema: schema))
    }
    return (id, name, versions)
  }
}
