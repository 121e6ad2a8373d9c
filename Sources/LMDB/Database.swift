import CLMDB

/// A named database inside an `Environment` (an LMDB `MDB_dbi`).
///
/// Handles are opened once, by `Environment.openDatabase(_:flags:)`, and are valid for the life of
/// the environment in every transaction and on every thread.
public struct Database: Sendable, Hashable, CustomStringConvertible {
  let handle: MDB_dbi
  /// The database's name inside the environment.
  public let name: String
  /// The flags it was opened with.
  public let flags: DatabaseFlags

  public var description: String { name }
}

/// How a database orders and stores its keys (`mdb_dbi_open` flags).
public struct DatabaseFlags: OptionSet, Sendable, Hashable {
  public let rawValue: UInt32
  public init(rawValue: UInt32) { self.rawValue = rawValue }

  /// Keys are native-endian `UInt32` or `UInt64` compared as integers (`MDB_INTEGERKEY`).
  /// Every key of one database must have the same size.
  public static let integerKey = DatabaseFlags(rawValue: UInt32(MDB_INTEGERKEY))
}

/// How `put` treats an existing key.
public struct PutFlags: OptionSet, Sendable, Hashable {
  public let rawValue: UInt32
  public init(rawValue: UInt32) { self.rawValue = rawValue }

  /// Fails with `MDB_KEYEXIST` instead of overwriting (`MDB_NOOVERWRITE`).
  public static let noOverwrite = PutFlags(rawValue: UInt32(MDB_NOOVERWRITE))

  /// Appends at the end of the database without searching (`MDB_APPEND`).
  ///
  /// **Risk:** the key must sort after every key in the database, else the put fails with
  /// `MDB_KEYEXIST`. It is fast and keeps pages full, which is why the event log uses it.
  public static let append = PutFlags(rawValue: UInt32(MDB_APPEND))
}

/// Size and shape of one database (`mdb_stat`).
public struct DatabaseStatistics: Sendable, Hashable {
  /// Number of key/value pairs.
  public var entries: Int
  /// Height of the B+tree.
  public var depth: Int
  /// Pages used: branch + leaf + overflow.
  public var pages: Int
  /// `pages` times the page size.
  public var bytes: Int
}
