/// How to open an `Environment`.
public struct EnvironmentOptions: Sendable, Hashable {
  /// The size of the memory map at open, in bytes. LMDB reserves address space, not disk: the data
  /// file grows only as pages are written. A write that fills the map grows it (see
  /// `maximumMapSize`), so this is a starting point, not a limit. Rounded up to whole pages.
  public var mapSize: Int = 256 << 20

  /// The largest the map may grow to, or `nil` for no limit other than the disk.
  ///
  /// A write that would need more fails with `LMDBError.isMapLimitReached`; nothing of it is
  /// visible and the environment stays readable and writable.
  public var maximumMapSize: Int? = nil

  /// The most named databases the environment may hold (`mdb_env_set_maxdbs`).
  public var maxDatabases: Int = 16

  /// The most read transactions open at once, across all processes (`mdb_env_set_maxreaders`).
  public var maxReaders: Int = 126

  /// When commits reach the disk; see `Durability` for the risk of each mode.
  public var durability: Durability = .durable

  /// Opens without write access (`MDB_RDONLY`): writes fail with `EACCES`.
  public var readOnly: Bool = false

  /// Opens without LMDB's lock file (`MDB_NOLOCK`), for a process that already holds the
  /// environment exclusively (see `ExclusiveAccess`). **Risk:** without the lock, nothing keeps
  /// another process that opens the environment from reading or writing beside this one.
  public var withoutLock: Bool = false

  /// Permissions of newly created files.
  public var fileMode: UInt32 = 0o644

  public init() {}
}
