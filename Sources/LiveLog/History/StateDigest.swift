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
    try environment.read { try digest($0) }
  }

  /// The digest of every database as `txn` sees them.
  func digest(_ txn: some ReadableTransaction) throws -> StateDigest {
    var databases: [String: StateDigest.DatabaseDigest] = [:]
    for database in allDatabases {
      var hasher = DigestHasher()
      var entries = 0
      try txn.withCursor(database) { cursor in
        var entry = try cursor.first()
        while let current = entry {
          hasher.combine(current.key)
          hasher.combine(current.value)
          entries += 1
          entry = try cursor.next()
        }
      }
      databases[database.name] = StateDigest.DatabaseDigest(hash: hasher.value, entries: entries)
    }
    return StateDigest(databases: databases)
  }

  /// The first entry, in key order, of the first database where this store and `other` differ;
  /// `nil` when they hold the same entries.
  public func firstDifference(from other: Store) throws -> StateDifference? {
    try firstDifference(from: other, live: environment.makeSnapshot())
  }

  /// `firstDifference(from:)` with this store as `mine` sees it.
  func firstDifference(from other: Store, live mine: Snapshot) throws -> StateDifference? {
    let theirs = try other.environment.makeSnapshot()
    for (database, otherDatabase) in zip(allDatabases, other.allDatabases) {
      let difference: StateDifference? = try mine.read { a in
        try theirs.read { b in
          try a.withCursor(database) { left -> StateDifference? in
            try b.withCursor(otherDatabase) { right -> StateDifference? in
              var x = try left.first()
              var y = try right.first()
              while x != nil || y != nil {
                let order = Self.compareKeys(x?.key, y?.key)
                if order == 0, let x, let y, x.value.elementsEqual(y.value) {
                } else {
                  let key = order <= 0 ? x?.key : y?.key
                  return StateDifference(
                    database: database.name, key: Self.describeKey(key, in: database.name),
                    live: order <= 0 ? Self.describeValue(x?.value) : "nothing",
                    rebuilt: order >= 0 ? Self.describeValue(y?.value) : "nothing")
                }
                x = try left.next()
                y = try right.next()
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

  /// Orders keys as the databases do: integer keys numerically, others bytewise; nil after all.
  private static func compareKeys(_ a: UnsafeRawBufferPointer?, _ b: UnsafeRawBufferPointer?) -> Int {
    guard let a else { return b == nil ? 0 : 1 }
    guard let b else { return -1 }
    if a.count == 8 && b.count == 8 {
      let x = a.loadUnaligned(as: UInt64.self)
      let y = b.loadUnaligned(as: UInt64.self)
      return x < y ? -1 : (x > y ? 1 : 0)
    }
    return TextMatching.compare(Array(a), Array(b))
  }

  private static func describeKey(_ key: UnsafeRawBufferPointer?, in database: String) -> String {
    guard let key else { return "(none)" }
    switch database {
    case StoreLayout.log: return "LSN \(key.count == 8 ? key.loadUnaligned(as: UInt64.self) : 0)"
    case StoreLayout.records, StoreLayout.ids:
      return "row \(key.count == 8 ? key.loadUnaligned(as: UInt64.self) : 0)"
    case StoreLayout.rows: return "id \(key.count == 8 ? key.loadUnaligned(as: Int64.self) : 0)"
    case StoreLayout.trigrams where key.count == 8:
      let field =
        Repository.schema.fields.indices.contains(Int(key[0]))
        ? Repository.schema.fields[Int(key[0])].name : "?"
      let gram = String(decoding: key[1..<4], as: UTF8.self)
      let row = UInt32(key[4]) << 24 | UInt32(key[5]) << 16 | UInt32(key[6]) << 8 | UInt32(key[7])
      return "\(field) trigram '\(gram)', block from row \(row)"
    default:
      let field =
        key.count > 0 && Repository.schema.fields.indices.contains(Int(key[0]))
        ? Repository.schema.fields[Int(key[0])].name + " " : ""
      return field + key.map { String($0, radix: 16) }.joined(separator: " ")
    }
  }

  private static func describeValue(_ value: UnsafeRawBufferPointer?) -> String {
    guard let value else { return "nothing" }
    var hasher = DigestHasher()
    hasher.combine(value)
    return "\(value.count) bytes (hash \(String(hasher.value, radix: 16)))"
  }
}
