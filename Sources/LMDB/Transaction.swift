import CLMDB

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Reading through a transaction: shared by `Transaction` and `WriteTransaction`.
///
/// Values returned by `get` and cursors point into the memory map: they are valid until the
/// transaction ends or, in a write transaction, until the next write. Copy what must outlive that.
public protocol ReadableTransaction {
  /// The LMDB transaction, `MDB_txn *`.
  var handle: OpaquePointer { get }
}

extension ReadableTransaction {
  /// The value stored under `key`, or `nil`.
  @inlinable
  public func get(_ database: Database, _ key: UnsafeRawBufferPointer) throws
    -> UnsafeRawBufferPointer?
  {
    try _get(database, key)
  }

  /// The value stored under an integer key (databases opened with `.integerKey`).
  @inlinable
  public func get(_ database: Database, _ key: UInt64) throws -> UnsafeRawBufferPointer? {
    var key = key
    return try withUnsafeBytes(of: &key) { (bytes) in try _get(database, bytes) }
  }

  /// The value stored under a key given as bytes.
  @inlinable
  public func get(_ database: Database, _ key: [UInt8]) throws -> UnsafeRawBufferPointer? {
    try key.withUnsafeBytes { (bytes) in try _get(database, bytes) }
  }

  @usableFromInline
  func _get(_ database: Database, _ key: UnsafeRawBufferPointer) throws
    -> UnsafeRawBufferPointer?
  {
    var k = MDB_val(mv_size: key.count, mv_data: UnsafeMutableRawPointer(mutating: key.baseAddress))
    var v = MDB_val()
    let rc = mdb_get(handle, database.handle, &k, &v)
    if rc == MDB_NOTFOUND { return nil }
    try check(rc, "mdb_get(\(database.name))")
    return UnsafeRawBufferPointer(start: v.mv_data, count: v.mv_size)
  }

  /// Runs `body` with a cursor over `database`, closing it afterwards.
  ///
  /// Inlined around `_withCursor`, which is not generic in its result (as `Environment.read`).
  @inlinable
  public func withCursor<R>(_ database: Database, _ body: (inout Cursor) throws -> R) throws -> R {
    var value: R?
    try _withCursor(database) { value = try body(&$0) }
    guard let value else { preconditionFailure("a cursor was closed without running its body") }
    return value
  }

  /// `withCursor(_:_:)` for a body that returns nothing.
  @usableFromInline
  func _withCursor(_ database: Database, _ body: (inout Cursor) throws -> Void) throws {
    var pointer: OpaquePointer?
    try check(mdb_cursor_open(handle, database.handle, &pointer), "mdb_cursor_open(\(database.name))")
    guard let pointer else {
      throw LMDBError(code: EINVAL, operation: "mdb_cursor_open(\(database.name))")
    }
    defer { mdb_cursor_close(pointer) }
    var cursor = Cursor(pointer: pointer, database: database)
    try body(&cursor)
  }

  /// Entry count, depth and pages of `database` as this transaction sees it.
  public func statistics(_ database: Database) throws -> DatabaseStatistics {
    var stat = MDB_stat()
    try check(mdb_stat(handle, database.handle, &stat), "mdb_stat(\(database.name))")
    let pages = Int(stat.ms_branch_pages + stat.ms_leaf_pages + stat.ms_overflow_pages)
    return DatabaseStatistics(
      entries: Int(stat.ms_entries),
      depth: Int(stat.ms_depth),
      pages: pages,
      bytes: pages * Int(stat.ms_psize)
    )
  }

  /// LMDB's id of this transaction: the count of write transactions committed before it.
  public var transactionID: Int { Int(mdb_txn_id(handle)) }
}

/// A read-only view of one committed state of the environment.
///
/// Only valid inside the closure that received it (`Environment.read`, `Snapshot.read`).
public struct Transaction: ReadableTransaction {
  public let handle: OpaquePointer
}

/// A read-write transaction: the only writer of its environment while it lives.
///
/// Only valid inside `Environment.write`'s closure, on the thread that runs it: LMDB write
/// transactions may not move between threads.
public struct WriteTransaction: ReadableTransaction {
  public let handle: OpaquePointer
  let state: WriteState

  /// Stores `value` under `key`.
  public func put(
    _ database: Database, _ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer,
    flags: PutFlags = []
  ) throws {
    var k = MDB_val(mv_size: key.count, mv_data: UnsafeMutableRawPointer(mutating: key.baseAddress))
    var v = MDB_val(mv_size: value.count, mv_data: UnsafeMutableRawPointer(mutating: value.baseAddress))
    try state.check(mdb_put(handle, database.handle, &k, &v, flags.rawValue), "mdb_put(\(database.name))")
  }

  /// Stores `value` under an integer key.
  public func put(_ database: Database, _ key: UInt64, _ value: UnsafeRawBufferPointer, flags: PutFlags = [])
    throws
  {
    var key = key
    try withUnsafeBytes(of: &key) { (k) in try put(database, k, value, flags: flags) }
  }

  /// Stores a value of `count` bytes under an integer key, written by `fill` straight into the
  /// map (`MDB_RESERVE`), which saves assembling it in a buffer first.
  ///
  /// **Risk:** the reserved bytes are LMDB's uninitialized page space; `fill` must write all of
  /// them, and the buffer is valid only inside `fill` (the next write may move it).
  public func put(
    _ database: Database, _ key: UInt64, reserving count: Int, flags: PutFlags = [],
    fill: (UnsafeMutableRawBufferPointer) throws -> Void
  ) throws {
    var key = key
    try withUnsafeMutableBytes(of: &key) { k in
      var mk = MDB_val(mv_size: k.count, mv_data: k.baseAddress)
      var v = MDB_val(mv_size: count, mv_data: nil)
      try state.check(
        mdb_put(handle, database.handle, &mk, &v, flags.rawValue | UInt32(MDB_RESERVE)),
        "mdb_put(\(database.name))")
      try fill(UnsafeMutableRawBufferPointer(start: v.mv_data, count: count))
    }
  }

  /// Stores a byte array under an integer key.
  public func put(_ database: Database, _ key: UInt64, _ value: [UInt8], flags: PutFlags = []) throws {
    try value.withUnsafeBytes { (v) in try put(database, key, v, flags: flags) }
  }

  /// Stores byte arrays.
  public func put(_ database: Database, _ key: [UInt8], _ value: [UInt8], flags: PutFlags = [])
    throws
  {
    try key.withUnsafeBytes { (k) in
      try value.withUnsafeBytes { (v) in try put(database, k, v, flags: flags) }
    }
  }

  /// Removes `key`; returns whether it was there.
  @discardableResult
  public func delete(_ database: Database, _ key: UnsafeRawBufferPointer) throws -> Bool {
    var k = MDB_val(mv_size: key.count, mv_data: UnsafeMutableRawPointer(mutating: key.baseAddress))
    let rc = mdb_del(handle, database.handle, &k, nil)
    if rc == MDB_NOTFOUND { return false }
    try state.check(rc, "mdb_del(\(database.name))")
    return true
  }

  /// Removes an integer key; returns whether it was there.
  @discardableResult
  public func delete(_ database: Database, _ key: UInt64) throws -> Bool {
    var key = key
    return try withUnsafeBytes(of: &key) { (k) in try delete(database, k) }
  }

  /// Removes a key given as bytes; returns whether it was there.
  @discardableResult
  public func delete(_ database: Database, _ key: [UInt8]) throws -> Bool {
    try key.withUnsafeBytes { (k) in try delete(database, k) }
  }

  /// Deletes `database` and everything in it; its handle is invalid afterwards, in this process.
  public func drop(_ database: Database) throws {
    try state.check(mdb_drop(handle, database.handle, 1), "mdb_drop(\(database.name), delete)")
  }

  /// Removes every entry of `database`, keeping the database itself.
  public func removeAll(_ database: Database) throws {
    try state.check(mdb_drop(handle, database.handle, 0), "mdb_drop(\(database.name))")
  }
}

/// What a write transaction remembers across calls: whether LMDB reported a full map, so that
/// `Environment.write` grows the map and retries even when the caller's code caught and rewrapped
/// the error.
final class WriteState {
  var hitMapFull = false

  @inline(__always)
  func check(_ code: Int32, _ operation: @autoclosure () -> String) throws {
    if code == MDB_SUCCESS { return }
    if code == MDB_MAP_FULL { hitMapFull = true }
    throw LMDBError(code: code, operation: operation())
  }
}
