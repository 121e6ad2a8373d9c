import CLMDB
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// An LMDB environment: one memory-mapped file holding named databases, shared by every thread of
/// this process and by other processes that open the same directory.
///
/// - Read transactions (`read`, `makeSnapshot`) may run on any thread and never block writers
///   (the environment is opened with `MDB_NOTLS`).
/// - Write transactions (`write`) are serialized: one at a time in this process, and LMDB's lock
///   file serializes them across processes.
/// - A write that fills the map grows it and runs again, up to `EnvironmentOptions.maximumMapSize`.
/// - One directory has one environment per process: `open(path:options:)` returns the one already
///   open (LMDB forbids a second handle; see `OpenEnvironments`).
public final class Environment: @unchecked Sendable {
  // @unchecked: `handle` is used only through LMDB calls that are thread-safe under MDB_NOTLS;
  // the map is guarded by `access` and writers by `writer`.
  let handle: OpaquePointer
  /// The directory holding `data.mdb` and `lock.mdb`.
  public let path: String
  /// The options it was opened with. Its durability is the one it was opened with; `durability`
  /// is the one in force.
  public let options: EnvironmentOptions
  private let access = AccessLock()
  private let writer = WriterLock()
  /// The writers of `writeGrouped` waiting to share a commit.
  let commitGroup = CommitGroup()
  /// The directory's key in `OpenEnvironments`.
  private let registryKey: String
  /// When commits reach the disk now: the strictest any opener asked for.
  private let currentDurability: Mutex<Durability>
  private let commitObservers = Mutex<[WeakCommitObserver]>([])
  /// Reader slots of dead processes that opening this environment cleared (`mdb_reader_check`).
  public let staleReadersCleared: Int
  /// Whether the environment was opened without LMDB's lock file (read-only, lock file not
  /// writable); see `init(path:options:)` for what that risks.
  public let isUnlocked: Bool

  /// The environment of the directory `path`, which must exist: the one this process has open
  /// for it, or a newly opened (and, unless read-only, created) one. A new one clears reader slots
  /// left behind by processes that died (`mdb_reader_check`).
  ///
  /// An environment already open is shared when it can serve `options`: a read-only one cannot
  /// serve a writer, and one opened with fewer databases cannot serve more (both are fixed when
  /// LMDB opens it): those fail with `isAlreadyOpen`. A stricter durability tightens the shared
  /// environment's for every user; its map size and reader limit stay as first opened.
  ///
  /// A read-only open of a directory whose lock file this process may not write (a store owned
  /// by another user, a `chmod a-w` directory) opens without the lock file (`MDB_NOLOCK`), and
  /// `isUnlocked` is true. **Risk:** such a reader takes no slot in the reader table, so a writer in
  /// another process does not know of it and may reuse the pages it is reading: while a writer is
  /// active, a read may see a torn state (checksummed events then fail their check; other reads
  /// may return wrong data). Reading a store nobody writes, which is what a read-only directory is
  /// for, is safe. On a read-only file system LMDB itself opens without locks, with the same risk.
  public static func open(path: String, options: EnvironmentOptions = EnvironmentOptions()) throws
    -> Environment
  {
    try OpenEnvironments.environment(path: path, options: options)
  }

  init(opening path: String, options: EnvironmentOptions, registeredAs key: String) throws {
    // LMDB maps the file on the word of its meta page: check first what it does not.
    let dataPath = path + "/data.mdb"
    if let health = (try? DataFileHealth.examineSettled(path: dataPath)) ?? nil, let damage = health.damage {
      throw LMDBError(code: LMDBError.damagedFileCode, operation: "open(\(dataPath))", message: damage)
    }
    do {
      (handle, staleReadersCleared) = try Environment.openRetryingInvalidatedLock(
        path: path, options: options, withoutLock: options.withoutLock)
      isUnlocked = options.withoutLock
    } catch let error as LMDBError where options.readOnly && error.isAccessDenied {
      (handle, staleReadersCleared) = try Environment.open(path: path, options: options, withoutLock: true)
      isUnlocked = true
    }
    self.path = path
    self.options = options
    registryKey = key
    currentDurability = Mutex(options.durability)
  }

  /// Checks that this open environment can serve an opener asking for `requested`, and tightens
  /// its durability to the opener's if that is stricter.
  func admit(_ requested: EnvironmentOptions) throws {
    if options.readOnly && !requested.readOnly {
      throw LMDBError(
        code: LMDBError.alreadyOpenCode, operation: "open(\(path))",
        message:
          "this process has it open read-only, and one environment serves a directory per process; "
          + "close the read-only store first (release every value that uses it), or open it for writing first"
      )
    }
    if options.withoutLock != requested.withoutLock {
      throw LMDBError(
        code: LMDBError.alreadyOpenCode, operation: "open(\(path))",
        message: options.withoutLock
          ? "this process has it open without LMDB's lock file (for maintenance that holds it alone); wait for that to end"
          : "this process has it open with LMDB's lock file, and it cannot also be opened without; close it first"
      )
    }
    if requested.maxDatabases > options.maxDatabases {
      throw LMDBError(
        code: LMDBError.alreadyOpenCode, operation: "open(\(path))",
        message:
          "this process has it open for at most \(options.maxDatabases) databases and asks now for "
          + "\(requested.maxDatabases); open it with the larger number first")
    }
    try tightenDurability(to: requested.durability)
  }

  /// When commits reach the disk now.
  public var durability: Durability { currentDurability.withLock { $0 } }

  /// Makes commits at least as durable as `durability` from now on (`mdb_env_set_flags`).
  private func tightenDurability(to durability: Durability) throws {
    guard durability.strictness > self.durability.strictness else { return }
    // LMDB's flags may not change while a commit reads them: take the writer's lock.
    try writer.withLock {
      let relaxed = UInt32(MDB_NOSYNC) | UInt32(MDB_NOMETASYNC)
      try check(mdb_env_set_flags(handle, relaxed, 0), "mdb_env_set_flags")
      if durability.environmentFlags != 0 {
        try check(mdb_env_set_flags(handle, durability.environmentFlags, 1), "mdb_env_set_flags")
      }
      currentDurability.withLock { $0 = durability }
    }
  }

  /// Tells `observer` of every commit through this environment, by any of its users in this
  /// process, until the observer is released (the environment holds it weakly). Commits of other
  /// processes are not seen: follow the data for those.
  public func addCommitObserver(_ observer: some CommitObserver) {
    commitObservers.withLock { observers in
      observers.removeAll { $0.observer == nil }
      observers.append(WeakCommitObserver(observer: observer))
    }
  }

  private func notifyCommitObservers() {
    for observer in commitObservers.withLock({ $0.compactMap(\.observer) }) {
      observer.environmentDidCommit()
    }
  }

  /// `open`, again after a short wait when LMDB finds the lock file invalid while the data file
  /// is sound: `ExclusiveAccess` invalidates the lock file of the environment it held, so that a
  /// process that waited for it to end starts afresh from the lock file instead of trusting
  /// figures of the file that was there before.
  private static func openRetryingInvalidatedLock(
    path: String, options: EnvironmentOptions, withoutLock: Bool
  )
    throws -> (OpaquePointer, Int)
  {
    var attempt = 0
    while true {
      do {
        return try open(path: path, options: options, withoutLock: withoutLock)
      } catch let error as LMDBError where (error.code == MDB_INVALID || error.code == EINVAL) && attempt < 50
      {
        guard let health = (try? DataFileHealth.examine(path: path + "/data.mdb")) ?? nil,
          health.damage == nil
        else { throw error }
        attempt += 1
        usleep(UInt32(10_000 + 1_000 * attempt))
      }
    }
  }

  private static func open(path: String, options: EnvironmentOptions, withoutLock: Bool) throws -> (
    OpaquePointer, Int
  ) {
    var pointer: OpaquePointer?
    try check(mdb_env_create(&pointer), "mdb_env_create")
    guard let pointer else { throw LMDBError(code: ENOMEM, operation: "mdb_env_create") }
    do {
      try check(mdb_env_set_maxdbs(pointer, MDB_dbi(options.maxDatabases)), "mdb_env_set_maxdbs")
      try check(mdb_env_set_maxreaders(pointer, UInt32(options.maxReaders)), "mdb_env_set_maxreaders")
      var size = options.mapSize
      if let maximum = options.maximumMapSize { size = Swift.min(size, maximum) }
      try check(mdb_env_set_mapsize(pointer, size), "mdb_env_set_mapsize")
      var flags = UInt32(MDB_NOTLS) | options.durability.environmentFlags
      if options.readOnly { flags |= UInt32(MDB_RDONLY) }
      if withoutLock { flags |= UInt32(MDB_NOLOCK) }
      mdb_env_set_assert(pointer, LMDBAssertion.callback)
      try check(mdb_env_open(pointer, path, flags, mode_t(options.fileMode)), "mdb_env_open(\(path))")
      if withoutLock { return (pointer, 0) }
      var dead: Int32 = 0
      try check(mdb_reader_check(pointer, &dead), "mdb_reader_check")
      return (pointer, Int(dead))
    } catch {
      mdb_env_close(pointer)
      throw error
    }
  }

  deinit {
    mdb_env_close(handle)
    OpenEnvironments.closed(ObjectIdentifier(self), key: registryKey)
  }

  // MARK: Transactions

  /// Runs `body` in a read transaction over the latest committed state.
  ///
  /// Inlined around `_read`, which is not generic: a generic function of this module runs
  /// unspecialized in its callers' modules, copying `R` through the runtime's witnesses (a tenth
  /// of a small query's time). The four lines are written out here, in `Snapshot.read` and in
  /// `withCursor`: a shared generic helper taking the body as a closure cost a small query 0.3 µs
  /// of its 4–9 µs.
  @inlinable
  public func read<R>(_ body: (Transaction) throws -> R) throws -> R {
    var value: R?
    try _read { value = try body($0) }
    guard let value else { preconditionFailure("a read transaction ended without running its body") }
    return value
  }

  /// `read(_:)` for a body that returns nothing: runs it once, in a read transaction.
  @usableFromInline
  func _read(_ body: (Transaction) throws -> Void) throws {
    while true {
      let outcome: Result<Void, any Error>? = access.withShared {
        var txn: OpaquePointer?
        let rc = mdb_txn_begin(handle, nil, UInt32(MDB_RDONLY), &txn)
        if rc == MDB_MAP_RESIZED { return nil }
        if rc != MDB_SUCCESS { return .failure(LMDBError(code: rc, operation: "mdb_txn_begin(read)")) }
        guard let txn else { return .failure(LMDBError(code: EINVAL, operation: "mdb_txn_begin(read)")) }
        defer { mdb_txn_abort(txn) }
        return Result { try body(Transaction(handle: txn)) }
      }
      if let outcome { return try outcome.get() }
      try adoptGrownMap()
    }
  }

  /// Runs `body` in a write transaction and commits it; if `body` throws, nothing is written.
  ///
  /// When the map fills up, the transaction is aborted, the map grows and `body` runs again, so
  /// `body` may run more than once: keep its effects inside the transaction. So that a large write
  /// rarely runs twice, the map also grows before a write once less than a quarter is left. When
  /// the map may not grow further (`EnvironmentOptions.maximumMapSize`), the write fails with an
  /// error for which `isMapLimitReached` is true, and the environment stays usable. After the
  /// commit, the commit observers run (`observeCommits`).
  public func write<R>(_ body: (WriteTransaction) throws -> R) throws -> R {
    let value = try writer.withLock {
      try growMap(ahead: true)
      while true {
        let state = WriteState()
        let outcome: Result<R, any Error>? = access.withShared {
          var txn: OpaquePointer?
          let rc = mdb_txn_begin(handle, nil, 0, &txn)
          if rc == MDB_MAP_RESIZED { return nil }
          if rc != MDB_SUCCESS { return .failure(LMDBError(code: rc, operation: "mdb_txn_begin(write)")) }
          guard let txn else { return .failure(LMDBError(code: EINVAL, operation: "mdb_txn_begin(write)")) }
          let value: R
          do {
            value = try body(WriteTransaction(handle: txn, state: state))
          } catch {
            mdb_txn_abort(txn)
            return state.hitMapFull ? nil : .failure(error)
          }
          // mdb_txn_commit frees the transaction whether it succeeds or not.
          let commit = mdb_txn_commit(txn)
          if commit == MDB_MAP_FULL { state.hitMapFull = true }
          if state.hitMapFull { return nil }
          if commit == EIO && isFileSystemFull {
            // LMDB reports a short write as EIO; on a full disk that is what a commit meets
            // when some but not all of its pages fit.
            return .failure(
              LMDBError(
                code: ENOSPC, operation: "mdb_txn_commit",
                message: "No space left on device (a short write of the commit's pages)"))
          }
          if commit != MDB_SUCCESS { return .failure(LMDBError(code: commit, operation: "mdb_txn_commit")) }
          return .success(value)
        }
        if let outcome { return try outcome.get() }
        if state.hitMapFull { try growMap(ahead: false) } else { try adoptGrownMap() }
      }
    }
    notifyCommitObservers()
    return value
  }

  /// Opens a read transaction that stays open until the snapshot is released, for results that
  /// must see one state across many calls.
  ///
  /// A long-lived snapshot keeps LMDB from reusing the pages it sees, so the file grows while it
  /// lives: release snapshots promptly.
  public func makeSnapshot() throws -> Snapshot {
    while true {
      let outcome: Result<OpaquePointer, LMDBError>? = access.withShared {
        var txn: OpaquePointer?
        let rc = mdb_txn_begin(handle, nil, UInt32(MDB_RDONLY), &txn)
        if rc == MDB_MAP_RESIZED { return nil }
        if rc != MDB_SUCCESS { return .failure(LMDBError(code: rc, operation: "mdb_txn_begin(snapshot)")) }
        guard let txn else { return .failure(LMDBError(code: EINVAL, operation: "mdb_txn_begin(snapshot)")) }
        return .success(txn)
      }
      if let outcome { return Snapshot(environment: self, transaction: try outcome.get()) }
      try adoptGrownMap()
    }
  }

  /// Runs `body` under the shared side of the map lock, for `Snapshot`.
  func withMapAccess<R>(_ body: () throws -> R) rethrows -> R {
    try access.withShared(body)
  }

  /// Whether the file system holding the environment has less than 1 MiB left for this user.
  private var isFileSystemFull: Bool {
    var stats = statvfs()
    guard statvfs(path, &stats) == 0 else { return false }
    return UInt64(stats.f_bavail) * UInt64(stats.f_frsize) < 1 << 20
  }

  // MARK: Map size

  /// Grows the map: doubles it (at least +64 MiB), up to the maximum. After `MDB_MAP_FULL`
  /// (`ahead` false) it must grow, and at the maximum the write fails. Before a write (`ahead`
  /// true, under the writer's lock) it grows only when less than a quarter of the map lies past
  /// the last page in use, and at the maximum does nothing, so that a write that still fits goes
  /// through: a write that fills the map is done twice, and a store that grows by bulk commits
  /// met that at every doubling (Docs/EventLog.md, "Map growth").
  ///
  /// The figures are read under the access lock, and checked again under the exclusive lock:
  /// another thread may be taking on a map grown by another process (`adoptGrownMap`), which
  /// replaces the mapping the meta pages are read through. A map another process has grown past
  /// this one's size is grown from the pages in use, not from this one's stale size.
  private func growMap(ahead: Bool) throws {
    if ahead {
      guard !options.readOnly else { return }
      // Read first under the shared lock, so that a write that needs no growth (most, and every
      // one at the maximum) does not wait for every reader to leave.
      let info = access.withShared { self.info }
      guard Self.isNearlyFull(info), options.maximumMapSize.map({ info.mapSize < $0 }) ?? true else { return }
    }
    try access.withExclusive { () in
      let info = self.info
      if ahead && !Self.isNearlyFull(info) { return }
      let current = Swift.max(info.mapSize, info.usedBytes)
      var target = Swift.max(current * 2, current + (64 << 20))
      if let maximum = options.maximumMapSize {
        guard info.mapSize < maximum else {
          if ahead { return }
          throw LMDBError(
            code: LMDBError.mapLimitReachedCode, operation: "write",
            message:
              "the write needs a map larger than the maximum of \(maximum) bytes "
              + "(EnvironmentOptions.maximumMapSize); nothing was written. Raise the maximum, "
              + "or write smaller batches")
        }
        target = Swift.min(target, maximum)
      }
      try check(mdb_env_set_mapsize(handle, target), "mdb_env_set_mapsize(\(target))")
    }
  }

  /// Whether less than a quarter of the map lies past the last page in use: the map then grows
  /// before the next write (`growMap(ahead:)`).
  private static func isNearlyFull(_ info: EnvironmentInfo) -> Bool {
    info.mapSize - info.usedBytes < info.mapSize / 4
  }

  /// Takes on the larger map size another process has set (`MDB_MAP_RESIZED`).
  private func adoptGrownMap() throws {
    try access.withExclusive { () in
      try check(mdb_env_set_mapsize(handle, 0), "mdb_env_set_mapsize(0)")
    }
  }

  // MARK: Databases and maintenance

  /// Runs `body` in a read transaction that is committed rather than aborted, so that database
  /// handles it opens stay valid for the environment (LMDB closes handles opened in a transaction
  /// that is aborted). For read-only environments, which cannot open a write transaction.
  public func readOpeningDatabases<R>(_ body: (Transaction) throws -> R) throws -> R {
    try access.withShared {
      var txn: OpaquePointer?
      try check(mdb_txn_begin(handle, nil, UInt32(MDB_RDONLY), &txn), "mdb_txn_begin(read)")
      guard let txn else { throw LMDBError(code: EINVAL, operation: "mdb_txn_begin(read)") }
      let value: R
      do {
        value = try body(Transaction(handle: txn))
      } catch {
        mdb_txn_abort(txn)
        throw error
      }
      try check(mdb_txn_commit(txn), "mdb_txn_commit(read)")
      return value
    }
  }

  /// Opens the named database, creating it when `create` is true (in a write transaction).
  public func openDatabase(
    _ name: String, flags: DatabaseFlags = [], create: Bool, in txn: some ReadableTransaction
  ) throws -> Database {
    var dbi: MDB_dbi = 0
    let allFlags = flags.rawValue | (create ? UInt32(MDB_CREATE) : 0)
    try check(mdb_dbi_open(txn.handle, name, allFlags, &dbi), "mdb_dbi_open(\(name))")
    return Database(handle: dbi, name: name, flags: flags)
  }

  /// Map size, pages in use, readers: `mdb_env_info` and `mdb_env_stat`.
  public var info: EnvironmentInfo {
    var info = MDB_envinfo()
    mdb_env_info(handle, &info)
    var stat = MDB_stat()
    mdb_env_stat(handle, &stat)
    return EnvironmentInfo(
      mapSize: info.me_mapsize,
      pageSize: Int(stat.ms_psize),
      pagesUsed: info.me_last_pgno + 1,
      lastTransactionID: info.me_last_txnid,
      maxReaders: Int(info.me_maxreaders),
      readersInUse: Int(info.me_numreaders)
    )
  }

  /// Flushes data to the disk; after a `noSync` or `noMetaSync` load this makes it durable.
  public func sync() throws {
    try check(mdb_env_sync(handle, 1), "mdb_env_sync")
  }

  /// Reader slots held now, by this and other processes (`mdb_reader_list`): each is an open read
  /// transaction or snapshot, or a slot of a process that died holding one and that the next
  /// `mdb_reader_check` will clear.
  public func activeReaders() -> Int {
    var count = 0
    _ = withUnsafeMutablePointer(to: &count) { counter in
      mdb_reader_list(
        handle,
        { message, context in
          // One line per slot in use, "PID THREAD TXNID", after a header line.
          guard let message, let context else { return 0 }
          var index = 0
          while message[index] == 0x20 { index += 1 }
          if message[index] >= 0x30 && message[index] <= 0x39 {
            context.assumingMemoryBound(to: Int.self).pointee += 1
          }
          return 0
        }, counter)
    }
    return count
  }

  /// The transaction id of the oldest snapshot a reader slot holds now (by this or another
  /// process), or `nil` when no slot holds one. The writer cannot reuse a page freed after it, so
  /// `info.lastTransactionID` minus it is how many commits' freed pages are kept from reuse.
  public func oldestReaderTransactionID() -> Int? {
    var oldest = Int.max
    _ = withUnsafeMutablePointer(to: &oldest) { pointer in
      mdb_reader_list(
        handle,
        { message, context in
          // "PID THREAD TXNID" (TXNID "-" for a slot between transactions), after a header line.
          guard let message, let context else { return 0 }
          let fields = String(cString: message).split(whereSeparator: { $0 == " " || $0 == "\n" })
          guard fields.count == 3, Int(fields[0]) != nil, let txnid = Int(fields[2]) else { return 0 }
          let oldest = context.assumingMemoryBound(to: Int.self)
          oldest.pointee = min(oldest.pointee, txnid)
          return 0
        }, pointer)
    }
    return oldest == Int.max ? nil : oldest
  }

  /// Clears reader slots left by processes that died; returns how many were cleared.
  @discardableResult
  public func clearStaleReaders() throws -> Int {
    var dead: Int32 = 0
    try check(mdb_reader_check(handle, &dead), "mdb_reader_check")
    return Int(dead)
  }

  /// Writes a consistent copy of the environment into the existing, empty directory `path`
  /// (`mdb_env_copy2`), while readers and writers go on. `compacting` omits free pages.
  public func copy(to path: String, compacting: Bool = false) throws {
    try check(mdb_env_copy2(handle, path, compacting ? UInt32(MDB_CP_COMPACT) : 0), "mdb_env_copy2(\(path))")
  }
}

/// Figures about an environment's map and readers.
public struct EnvironmentInfo: Sendable, Hashable {
  /// Current size of the memory map in bytes.
  public var mapSize: Int
  /// Size of one page in bytes.
  public var pageSize: Int
  /// Pages the data file uses (the highest page number plus one).
  public var pagesUsed: Int
  /// Id of the last committed write transaction.
  public var lastTransactionID: Int
  /// Reader slots in the lock file.
  public var maxReaders: Int
  /// Reader slots used at some point since the lock file was created (LMDB's high-water mark).
  public var readersInUse: Int

  /// Bytes of the map in use.
  public var usedBytes: Int { pagesUsed * pageSize }
}

/// What the write path tells after each commit (as GRDB's `TransactionObserver`): how a store's
/// live queries hear of commits made through any store value that shares the environment.
public protocol CommitObserver: AnyObject, Sendable {
  /// A write transaction committed. Called on the committing thread, after the writer's lock is
  /// released: return quickly (hand the work to a queue).
  func environmentDidCommit()
}

private struct WeakCommitObserver: Sendable {
  weak var observer: (any CommitObserver)?
}
