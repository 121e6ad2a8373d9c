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
}

/// The first entry where two stores differ.
public struct StateDifference: Sendable, Hashable, CustomStringConvertible {
  /// The database, e.g. `index.trigrams`.
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

  /// The digest of every database as `txn` sees them, read by content (`ContentReader`).
  func digest(_ txn: some ReadableTransaction, _ state: CatalogState) throws -> StateDigest {
    var databases: [String: StateDigest.DatabaseDigest] = [:]
    for database in allDatabases(state) {
      var hasher = DigestHasher()
      var entries = 0
      try txn.withCursor(database) { cursor in
        var reader = try ContentReader(
          cursor, readsPostings: Self.holdsPostings(database),
          recent: ContentReader.recentPostings(of: database, txn))
        while !reader.isAtEnd {
          reader.withEntry { key, value in
            if let key, let value {
              hasher.combine(key)
              hasher.combine(value)
            }
          }
          entries += 1
          try reader.advance()
        }
      }
      databases[database.name] = StateDigest.DatabaseDigest(hash: hasher.value, entries: entries)
    }
    return StateDigest(databases: databases)
  }

  /// The first entry, in key order, of the first database where this store and `other` differ;
  /// `nil` when they hold the same entries. Posting lists compare by their rows, not by how
  /// they are split into blocks.
  public func firstDifference(from other: Store) throws -> StateDifference? {
    let (snapshot, state) = try makeSnapshot()
    return try firstDifference(from: other, live: snapshot, state)
  }

  /// `firstDifference(from:)` with this store as `mine` sees it.
  func firstDifference(from other: Store, live mine: Snapshot, _ state: CatalogState) throws
    -> StateDifference?
  {
    let (theirs, otherState) = try other.makeSnapshot()
    let ours = allDatabases(state)
    let their = other.allDatabases(otherState)
    let names = Set(ours.map(\.name)).union(their.map(\.name))
    if let missing = names.sorted().first(where: { name in
      !ours.contains { $0.name == name } || !their.contains { $0.name == name }
    }) {
      return StateDifference(
        database: missing, key: "(the database itself)",
        live: ours.contains { $0.name == missing } ? "the database" : "nothing",
        rebuilt: their.contains { $0.name == missing } ? "the database" : "nothing")
    }
    for database in ours {
      guard let otherDatabase = their.first(where: { $0.name == database.name }) else { continue }
      let postings = Self.holdsPostings(database)
      let integerKeys = Self.hasIntegerKeys(database)
      let difference: StateDifference? = try mine.read { a in
        try theirs.read { b in
          try a.withCursor(database) { left -> StateDifference? in
            try b.withCursor(otherDatabase) { right -> StateDifference? in
              var x = try ContentReader(
                left, readsPostings: postings, recent: ContentReader.recentPostings(of: database, a))
              var y = try ContentReader(
                right, readsPostings: postings, recent: ContentReader.recentPostings(of: otherDatabase, b))
              while !x.isAtEnd || !y.isAtEnd {
                let found: StateDifference? = x.withEntry { xKey, xValue in
                  y.withEntry { yKey, yValue in
                    let order = ContentReader.compare(xKey, yKey, integerKeys: integerKeys)
                    if order == 0, let xValue, let yValue, xValue.elementsEqual(yValue),
                      !x.isDamagedBlock, !y.isDamagedBlock
                    {
                      return nil
                    }
                    return StateDifference(
                      database: database.name,
                      key: describeKey(order <= 0 ? xKey : yKey, in: database.name, state),
                      live: order <= 0
                        ? Self.describeValue(xValue, damaged: x.isDamagedBlock, postings) : "nothing",
                      rebuilt: order >= 0
                        ? Self.describeValue(yValue, damaged: y.isDamagedBlock, postings) : "nothing")
                  }
                }
                if let found { return found }
                try x.advance()
                try y.advance()
              }
              return nil
            }
          }
        }
      }
      if let difference { return difference }
    }
    return nil
  }

  /// Every database of the store: the log, meta and catalog, and each collection's six.
  func allDatabases(_ state: CatalogState) -> [Database] {
    [log.database, meta, catalog.database] + (checkpoints.map { [$0.database] } ?? [])
      + state.all.flatMap(\.databases.all)
  }

  private static func holdsPostings(_ database: Database) -> Bool {
    database.name.hasSuffix(".index.trigrams") || database.name.hasSuffix(".index.terms")
  }

  private static func hasIntegerKeys(_ database: Database) -> Bool {
    database.flags.contains(.integerKey)
  }

  private func describeKey(_ key: UnsafeRawBufferPointer?, in database: String, _ state: CatalogState)
    -> String
  {
    guard let key else { return "(none)" }
    let collection = state.all.first { database.hasPrefix($0.name + ".") }
    func field(_ slot: UInt8) -> String {
      collection?.schema.field(atSlot: Int(slot))?.name ?? "slot \(slot)"
    }
    let integer = key.count == 8 ? key.loadUnaligned(as: UInt64.self) : 0
    switch database {
    case StoreLayout.log: return "LSN \(integer)"
    case StoreLayout.catalog: return "collection \(integer)"
    case _ where database.hasSuffix(".records") || database.hasSuffix(".ids"): return "row \(integer)"
    case _ where database.hasSuffix(".rows"):
      return "key "
        + (key.count == 8 ? String(Int64(bitPattern: integer)) : String(decoding: key, as: UTF8.self))
    case _ where database.hasSuffix(".index.trigrams") && key.count == 8:
      let gram = String(decoding: key[1..<4], as: UTF8.self)
      let row = PostingBlocks.firstRow(of: key, prefixCount: 4).map(String.init) ?? "?"
      return "\(field(key[0])) trigram '\(gram)', row \(row)"
    case _ where database.contains(".index."):
      return (key.isEmpty ? "" : field(key[0]) + " ")
        + key.map { String($0, radix: 16) }.joined(separator: " ")
    default:
      return key.map { String($0, radix: 16) }.joined(separator: " ")
    }
  }

  private static func describeValue(
    _ value: UnsafeRawBufferPointer?, damaged: Bool, _ postings: Bool
  ) -> String {
    guard let value else { return "nothing" }
    if postings && !damaged { return "the posting" }
    if damaged { return "a block of \(value.count) bytes that does not decode" }
    var hasher = DigestHasher()
    hasher.combine(value)
    return "\(value.count) bytes (hash \(String(hasher.value, radix: 16)))"
  }
}
