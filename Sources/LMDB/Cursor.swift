import CLMDB

/// A key and its value, pointing into the memory map: valid until the transaction writes or ends,
/// as LMDB documents, wherever the cursor goes meanwhile.
public struct Entry {
  public var key: UnsafeRawBufferPointer
  public var value: UnsafeRawBufferPointer

  /// The key read as a native-endian `UInt64` (databases opened with `.integerKey`).
  public var integerKey: UInt64? {
    key.count == 8 ? key.loadUnaligned(as: UInt64.self) : nil
  }
}

/// A position in a database, for ordered scans and range seeks. Obtain one with `withCursor`.
public struct Cursor {
  let pointer: OpaquePointer
  let database: Database

  @inline(__always)
  private func move(_ op: MDB_cursor_op, _ key: UnsafeRawBufferPointer? = nil) throws -> Entry? {
    var k = MDB_val(
      mv_size: key?.count ?? 0, mv_data: UnsafeMutableRawPointer(mutating: key?.baseAddress))
    var v = MDB_val()
    let rc = mdb_cursor_get(pointer, &k, &v, op)
    if rc == MDB_NOTFOUND { return nil }
    try check(rc, "mdb_cursor_get(\(database.name))")
    return Entry(
      key: UnsafeRawBufferPointer(start: k.mv_data, count: k.mv_size),
      value: UnsafeRawBufferPointer(start: v.mv_data, count: v.mv_size))
  }

  /// Moves to the first entry.
  public mutating func first() throws -> Entry? { try move(MDB_FIRST) }
  /// Moves to the last entry.
  public mutating func last() throws -> Entry? { try move(MDB_LAST) }
  /// Moves to the next entry.
  public mutating func next() throws -> Entry? { try move(MDB_NEXT) }
  /// Moves to the previous entry.
  public mutating func previous() throws -> Entry? { try move(MDB_PREV) }
  /// The entry at the cursor.
  public mutating func current() throws -> Entry? { try move(MDB_GET_CURRENT) }

  /// Moves to `key` exactly.
  public mutating func seek(to key: UnsafeRawBufferPointer) throws -> Entry? {
    try move(MDB_SET_KEY, key)
  }

  /// Moves to the integer key `key` exactly. Seeks to nearby keys in ascending order are cheap:
  /// LMDB looks on the cursor's current page before searching from the root.
  public mutating func seek(to key: UInt64) throws -> Entry? {
    var key = key
    return try withUnsafeBytes(of: &key) { (k) in try move(MDB_SET_KEY, k) }
  }

  /// Moves to the first entry whose key is at least `key`.
  public mutating func seek(atLeast key: UnsafeRawBufferPointer) throws -> Entry? {
    try move(MDB_SET_RANGE, key)
  }

  /// Moves to the first entry whose integer key is at least `key`.
  public mutating func seek(atLeast key: UInt64) throws -> Entry? {
    var key = key
    return try withUnsafeBytes(of: &key) { (k) in try move(MDB_SET_RANGE, k) }
  }

  /// Moves to the first entry whose key is at least the given bytes.
  public mutating func seek(atLeast key: [UInt8]) throws -> Entry? {
    try key.withUnsafeBytes { (k) in try move(MDB_SET_RANGE, k) }
  }

  /// Deletes the entry at the cursor, which must be a cursor of `txn`; `next()` then moves to
  /// the entry that followed it.
  public mutating func deleteCurrent(in txn: WriteTransaction) throws {
    try txn.state.check(mdb_cursor_del(pointer, 0), "mdb_cursor_del(\(database.name))")
  }
}
