import LMDB

/// A fingerprint of a store's contents, database by database: equal digests mean equal keys and
/// values, whatever order the writes came in (LMDB keeps keys in order, and the digest reads them
/// in that order).
public struct StateDigest: Hashable, Sendable, CustomStringConvertible {
  /// Each database's 64-bit hash and entry count, by name.
  public var databases: [String: DatabaseDigest]

  /// One database's fingerprint.
  public struct DatabaseDigest: Hashable, Sendable {
    public var hash: UInt64
    public var entries: Int
  }

  /// All databases folded into one value.
  public var combined: UInt64 {
    var hasher = DigestHasher()
    for name in databases.keys.sorted() {
      hasher.combine(Array(name.utf8))
      hasher.combine(databases[name]?.hash ?? 0)
    }
    return hasher.value
  }

  /// `combined` as 16 hex digits.
  public var hex: String {
    let text = String(combined, radix: 16)
    return String(repeating: "0", count: 16 - text.count) + text
  }

  public var description: String { hex }
}

/// A fast 64-bit hash over byte runs, eight bytes a step. Not cryptographic: it detects damage
/// and divergence, not tampering.
struct DigestHasher {
  private(set) var value: UInt64 = 0x243F_6A88_85A3_08D3

  mutating func combine(_ word: UInt64) {
    value = (value ^ word) &* 0x9E37_79B9_7F4A_7C15
    value ^= value >> 29
  }

  mutating func combine(_ bytes: UnsafeRawBufferPointer) {
    combine(UInt64(bytes.count))
    var index = 0
    while index + 8 <= bytes.count {
      combine(bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self))
      index += 8
    }
    var tail: UInt64 = 0
    var shift: UInt64 = 0
    while index < bytes.count {
      tail |= UInt64(bytes[index]) << shift
      shift += 8
      index += 1
    }
    combine(tail)
  }

  mutating func combine(_ bytes: [UInt8]) {
    bytes.withUnsafeBytes { combine($0) }
  }

  /// One entry of a table digested as it is stored (its key, then its value).
  mutating func combine(entry key: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) {
    combine(key)
    combine(value)
  }
}

/// The first entry where two stores differ.
public struct StateDifference: Sendable, Hashable, CustomStringConvertible {
  /// The database, e.g. `repositories.indexes`.
  public var database: String
  /// The entry's key, described for people (a row, an id, a trigram and its field …).
  public var key: String
  /// What each side holds there: a value's size and hash, or "nothing".
  public var live: String
  public var rebuilt: String

  public var description: String {
    "\(database): entry \(key) differs: the live store has \(live), the rebuilt state has \(rebuilt)"
  }
}

extension Store {
  /// The digest of every database of the store, from one read snapshot.
  public func digest() throws -> StateDigest {
    try read { txn, state in try digest(txn, state) }
  }

  /// The digest of every table of the store as `txn` sees it, read by content (`StateContent`):
  /// the log, `meta` (without the segment directories, which are layout), the catalog, and each
  /// collection's keys, rows and index. `indexFingerprints`, when given, stands for the indexes
  /// (by collection id; a collection missing from it has no entries): a store replayed without
  /// them (`Replayer.buildsIndexes`) digests as the store replayed with them. The tables named in
  /// `skipping` are left out.
  func digest(
    _ txn: Transaction, _ state: CatalogState,
    indexFingerprints: [UInt32: StateContent.IndexFingerprints]? = nil, skipping: Set<String> = []
  ) throws -> StateDigest {
    let tables = tables(state).filter { !skipping.contains($0.name) }
    try txn.prepareForReadsOnEveryCore(allDatabases(state))
    let shared = MapShared((txn: txn, tables: tables))
    // The indexes are read on every core by themselves (`StateContent.indexFingerprints`), here;
    // the other tables one per core at a time beside them, on a thread of their own (a parallel
    // map run inside another's workers gets one core), so that the largest (the log, the rows)
    // do not wait until the others are done.
    let others = tables.indices.filter { !tables[$0].isIndex }
    let rest = BackgroundWork {
      try ParallelMap.map(others.count, minimumPerWorker: 1) { index in
        let (txn, tables) = shared.value
        return Result { try tables[others[index]].digest(txn, indexFingerprints: indexFingerprints) }
      }
    }
    // Not left running past the call, even when an index fails.
    defer { _ = try? rest.value() }
    var digests = [Result<StateDigest.DatabaseDigest, any Error>?](repeating: nil, count: tables.count)
    for index in tables.indices where tables[index].isIndex {
      digests[index] = Result { try tables[index].digest(txn, indexFingerprints: indexFingerprints) }
    }
    for (index, digest) in zip(others, try rest.value()) { digests[index] = digest }
    // The first table's error, in table order, as one table after another would throw it.
    var databases: [String: StateDigest.DatabaseDigest] = [:]
    for (table, digest) in zip(tables, digests) {
      guard let digest else { continue }
      // A damaged catalog may name two collections alike: the last table of a name stands.
      databases[table.name] = try digest.get()
    }
    return StateDigest(databases: databases)
  }

  /// The first entry, in key order, of the first table where this store and `other` differ;
  /// `nil` when they hold the same entries. Rows and index entries compare by what they hold,
  /// not by how they are laid out.
  public func firstDifference(from other: Store) throws -> StateDifference? {
    let (snapshot, state) = try makeSnapshot()
    return try firstDifference(from: other, live: snapshot, state)
  }

  /// `firstDifference(from:)` with this store as `mine` sees it.
  func firstDifference(from other: Store, live mine: Snapshot, _ state: CatalogState) throws
    -> StateDifference?
  {
    let (theirs, otherState) = try other.makeSnapshot()
    let ours = tables(state)
    let their = other.tables(otherState)
    let names = Set(ours.map(\.name)).union(their.map(\.name))
    if let missing = names.sorted().first(where: { name in
      !ours.contains { $0.name == name } || !their.contains { $0.name == name }
    }) {
      return StateDifference(
        database: missing, key: "(the database itself)",
        live: ours.contains { $0.name == missing } ? "the database" : "nothing",
        rebuilt: their.contains { $0.name == missing } ? "the database" : "nothing")
    }
    for table in ours {
      guard let otherTable = their.first(where: { $0.name == table.name }) else { continue }
      let difference: StateDifference? = try mine.read { a in
        try theirs.read { b in
          switch (table.content, otherTable.content) {
          case (.raw(let left), .raw(let right)):
            return try Self.firstRawDifference(
              table, left, a, right, b, describe: { describeKey($0, in: table.name, state) })
          case (.rows(let left), .rows(let right)):
            return try Self.firstRowDifference(table.name, left, a, right, b)
          case (.index(let left), .index(let right)):
            return try Self.firstIndexDifference(table.name, left, a, right, b)
          default:
            return StateDifference(
              database: table.name, key: "(the table itself)", live: "one kind", rebuilt: "another")
          }
        }
      }
      if let difference { return difference }
    }
    return nil
  }

  /// One table of the state as the digest reads it.
  struct ContentTable {
    enum Content {
      case raw(Database)
      case rows(StoredCollection)
      case index(StoredCollection)
    }

    let name: String
    let content: Content

    var isIndex: Bool {
      if case .index = content { return true }
      return false
    }

    /// Whether an entry of a raw table is content (`meta`'s segment directories are layout).
    func keeps(_ key: UnsafeRawBufferPointer) -> Bool {
      guard name == StoreLayout.meta else { return true }
      return !key.starts(with: "segments:".utf8)
    }

    /// The table's fingerprint as `txn` sees it; `indexFingerprints`, when given, stands for the
    /// indexes (`Store.digest(_:_:indexFingerprints:skipping:)`).
    func digest(
      _ txn: Transaction, indexFingerprints: [UInt32: StateContent.IndexFingerprints]?
    ) throws -> StateDigest.DatabaseDigest {
      var hasher = DigestHasher()
      var entries = 0
      switch content {
      case .raw(let database):
        try txn.withCursor(database) { cursor in
          var entry = try cursor.first()
          while let current = entry {
            if keeps(current.key) {
              hasher.combine(entry: current.key, value: current.value)
              entries += 1
            }
            entry = try cursor.next()
          }
        }
      case .rows(let collection):
        try StateContent.forEachRow(of: collection, txn) { row, lsn, key in
          hasher.combine(UInt64(row))
          hasher.combine(lsn)
          hasher.combine(key)
          entries += 1
        }
      case .index(let collection):
        // Entries come in no order: their hashes are summed, which no order changes.
        let fingerprints =
          try indexFingerprints.map { $0[collection.id] ?? .init() }
          ?? StateContent.indexFingerprints(of: collection, byRow: false, txn)
        entries = fingerprints.entries
        hasher.combine(fingerprints.sum)
      }
      return StateDigest.DatabaseDigest(hash: hasher.value, entries: entries)
    }
  }

  /// Every table of the state: the log, meta, catalog and checkpoints, and each collection's keys,
  /// rows and index.
  func tables(_ state: CatalogState) -> [ContentTable] {
    var tables = [
      ContentTable(name: log.database.name, content: .raw(log.database)),
      ContentTable(name: meta.name, content: .raw(meta)),
      ContentTable(name: catalog.database.name, content: .raw(catalog.database)),
    ]
    if let checkpoints {
      tables.append(ContentTable(name: checkpoints.database.name, content: .raw(checkpoints.database)))
    }
    for collection in state.all {
      tables.append(
        ContentTable(name: collection.databases.keys.name, content: .raw(collection.databases.keys)))
      tables.append(ContentTable(name: collection.databases.rows.name, content: .rows(collection)))
      tables.append(ContentTable(name: collection.databases.index.name, content: .index(collection)))
    }
    return tables
  }

  /// Every LMDB database of the store: the log, meta and catalog, the checkpoints, and each
  /// collection's (`CollectionDatabases`).
  func allDatabases(_ state: CatalogState) -> [Database] {
    [log.database, meta, catalog.database] + (checkpoints.map { [$0.database] } ?? [])
      + state.all.flatMap(\.databases.all)
  }

  private static func firstRawDifference(
    _ table: ContentTable, _ left: Database, _ a: Transaction, _ right: Database, _ b: Transaction,
    describe: (UnsafeRawBufferPointer?) -> String
  ) throws -> StateDifference? {
    let integerKeys = left.flags.contains(.integerKey)
    return try a.withCursor(left) { x -> StateDifference? in
      try b.withCursor(right) { y -> StateDifference? in
        func next(_ cursor: inout Cursor, _ entry: Entry?) throws -> Entry? {
          var entry = entry == nil ? try cursor.first() : try cursor.next()
          while let current = entry, !table.keeps(current.key) { entry = try cursor.next() }
          return entry
        }
        var p = try next(&x, nil)
        var q = try next(&y, nil)
        while p != nil || q != nil {
          let order = compareKeys(p?.key, q?.key, integerKeys: integerKeys)
          if order == 0, let p, let q, p.value.elementsEqual(q.value) {
          } else {
            return StateDifference(
              database: table.name, key: describe(order <= 0 ? p?.key : q?.key),
              live: order <= 0 ? describeValue(p?.value) : "nothing",
              rebuilt: order >= 0 ? describeValue(q?.value) : "nothing")
          }
          p = try next(&x, p)
          q = try next(&y, q)
        }
        return nil
      }
    }
  }

  private static func firstRowDifference(
    _ name: String, _ left: StoredCollection, _ a: Transaction, _ right: StoredCollection, _ b: Transaction
  ) throws -> StateDifference? {
    var mine: [(Row, UInt64, [UInt8])] = []
    var theirs: [(Row, UInt64, [UInt8])] = []
    try StateContent.forEachRow(of: left, a) { mine.append(($0, $1, Array($2))) }
    try StateContent.forEachRow(of: right, b) { theirs.append(($0, $1, Array($2))) }
    var i = 0
    var j = 0
    while i < mine.count || j < theirs.count {
      let x = i < mine.count ? mine[i] : nil
      let y = j < theirs.count ? theirs[j] : nil
      if let x, let y, x.0 == y.0, x.1 == y.1, x.2 == y.2 {
        i += 1
        j += 1
        continue
      }
      let row = min(x?.0 ?? .max, y?.0 ?? .max)
      func text(_ entry: (Row, UInt64, [UInt8])?) -> String {
        guard let entry, entry.0 == row else { return "nothing" }
        return "version \(entry.1)"
      }
      return StateDifference(database: name, key: "row \(row)", live: text(x), rebuilt: text(y))
    }
    return nil
  }

  /// The first row (ascending) whose index entries differ, and its first differing entry.
  private static func firstIndexDifference(
    _ name: String, _ left: StoredCollection, _ a: Transaction, _ right: StoredCollection, _ b: Transaction
  ) throws -> StateDifference? {
    let mine = try StateContent.indexFingerprints(of: left, byRow: true, a)
    let theirs = try StateContent.indexFingerprints(of: right, byRow: true, b)
    guard let row = mine.firstDifferingRow(from: theirs) else { return nil }
    func entries(_ collection: StoredCollection, _ txn: Transaction) throws -> [StateContent.IndexEntry] {
      var list: [StateContent.IndexEntry] = []
      try StateContent.forEachIndexEntry(of: collection, txn, onlyRow: row) { list.append($0) }
      return list.sorted { p, q in
        if p.kind != q.kind { return p.kind.rawValue < q.kind.rawValue }
        if p.key != q.key { return p.key.lexicographicallyPrecedes(q.key) }
        return p.positions.lexicographicallyPrecedes(q.positions)
      }
    }
    let x = try entries(left, a)
    let y = try entries(right, b)
    let onlyMine = x.filter { entry in !y.contains { $0.hash == entry.hash } }
    let onlyTheirs = y.filter { entry in !x.contains { $0.hash == entry.hash } }
    let schema = left.schema
    // Entries that agree in a row whose fingerprints differ: the ordered columns differ, which
    // this listing leaves out.
    let key =
      onlyMine.first.map { $0.describe(schema) } ?? onlyTheirs.first.map { $0.describe(schema) }
      ?? "the ordered columns of row \(row)"
    return StateDifference(
      database: name,
      key: key.hasSuffix("row \(row)") || key.contains("row \(row) ") ? key : key + ", row \(row)",
      live: onlyMine.isEmpty ? "nothing" : "the entry", rebuilt: onlyTheirs.isEmpty ? "nothing" : "the entry")
  }

  /// Orders keys as a database does: integer keys numerically, others bytewise, a shorter key
  /// before the longer one it begins; the end after every key.
  static func compareKeys(_ a: UnsafeRawBufferPointer?, _ b: UnsafeRawBufferPointer?, integerKeys: Bool)
    -> Int
  {
    guard let a else { return b == nil ? 0 : 1 }
    guard let b else { return -1 }
    if integerKeys && a.count == 8 && b.count == 8 {
      let x = a.loadUnaligned(as: UInt64.self)
      let y = b.loadUnaligned(as: UInt64.self)
      return x < y ? -1 : (x > y ? 1 : 0)
    }
    return ByteOrder.compare(a, b)
  }

  private func describeKey(_ key: UnsafeRawBufferPointer?, in database: String, _ state: CatalogState)
    -> String
  {
    guard let key else { return "(none)" }
    let integer = key.count == 8 ? key.loadUnaligned(as: UInt64.self) : 0
    switch database {
    case StoreLayout.log: return "LSN \(integer)"
    case StoreLayout.catalog: return "collection \(integer)"
    case _ where database.hasSuffix(".keys"):
      return "key "
        + (key.count == 8 ? String(Int64(bitPattern: integer)) : String(decoding: key, as: UTF8.self))
    default:
      return String(decoding: key, as: UTF8.self)
    }
  }

  private static func describeValue(_ value: UnsafeRawBufferPointer?) -> String {
    guard let value else { return "nothing" }
    var hasher = DigestHasher()
    hasher.combine(value)
    return "\(value.count) bytes (hash \(String(hasher.value, radix: 16)))"
  }
}
