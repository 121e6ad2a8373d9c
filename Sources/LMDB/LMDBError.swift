import CLMDB

/// An error from LMDB or from this layer's own checks.
///
/// `code` is LMDB's return code (negative, `MDB_*`) or an `errno` value (positive); `message` is
/// LMDB's own text for it (`mdb_strerror`), and `operation` names what was being done, so that
/// `description` reads like "mdb_put(log): MDB_MAP_FULL: Environment mapsize limit reached".
public struct LMDBError: Error, Sendable, Equatable, CustomStringConvertible {
  /// LMDB's return code (`MDB_*`, negative) or an `errno` value (positive).
  public let code: Int32
  /// The operation that failed, such as `mdb_put(records)`.
  public let operation: String
  /// LMDB's text for `code`, or this layer's explanation.
  public let message: String

  /// Wraps an LMDB return code, with LMDB's own text.
  public init(code: Int32, operation: String) {
    self.code = code
    self.operation = operation
    self.message = String(cString: mdb_strerror(code))
  }

  /// An error raised by this layer, with its own explanation.
  public init(code: Int32, operation: String, message: String) {
    self.code = code
    self.operation = operation
    self.message = message
  }

  public var description: String { "\(operation): \(message)" }

  /// The key was not found (`MDB_NOTFOUND`).
  public var isNotFound: Bool { code == MDB_NOTFOUND }
  /// The map is full (`MDB_MAP_FULL`); `Environment.write` grows the map and retries on its own.
  public var isMapFull: Bool { code == MDB_MAP_FULL }
  /// The write needed a larger map than `Environment.Options.maximumMapSize` allows.
  public var isMapLimitReached: Bool { code == LMDBError.mapLimitReachedCode }
  /// The file is not an LMDB environment, or of an incompatible version (`MDB_INVALID`,
  /// `MDB_VERSION_MISMATCH`).
  public var isInvalidFile: Bool { code == MDB_INVALID || code == MDB_VERSION_MISMATCH }
  /// The files may not be opened or written with the access asked for (`EACCES`, `EROFS`, `EPERM`).
  public var isAccessDenied: Bool { code == 13 || code == 30 || code == 1 }
  /// The disk or the file size limit is full (`ENOSPC`, `EFBIG`, `EDQUOT`).
  public var isDiskFull: Bool { code == 28 || code == 27 || code == 122 }
  /// Every slot of the reader table (shared by all processes) is taken (`MDB_READERS_FULL`).
  public var isReadersFull: Bool { code == MDB_READERS_FULL }
  /// The directory's environment is already open in this process in a way that cannot serve the
  /// open asked for (read-only for a writer, or with fewer databases).
  public var isAlreadyOpen: Bool { code == LMDBError.alreadyOpenCode }
  /// The data file is damaged in a way LMDB does not check (see `DataFileHealth`); `message`
  /// names the damage.
  public var isDamagedFile: Bool { code == LMDBError.damagedFileCode }
  /// LMDB met a page that is not what the tree says it is (`MDB_CORRUPTED`, `MDB_PAGE_NOTFOUND`):
  /// the data file is damaged where this read went.
  public var isDamagedPage: Bool { code == MDB_CORRUPTED || code == MDB_PAGE_NOTFOUND }
  /// The transaction had already failed: an earlier call in it met an error (a damaged page),
  /// perhaps on another thread reading the same transaction, which is the error to report.
  public var isFailedTransaction: Bool { code == MDB_BAD_TXN }
  /// Another process has the environment open, so it cannot be held exclusively (`ExclusiveAccess`).
  public var isInUse: Bool { code == LMDBError.inUseCode }

  /// This layer's code for a write that would need a map beyond the configured maximum.
  /// It lies outside LMDB's range (-30799 ... -30780) and outside `errno` values.
  public static let mapLimitReachedCode: Int32 = -30_700
  /// This layer's code for a value too large for a key or a malformed argument.
  public static let invalidArgumentCode: Int32 = -30_701
  /// This layer's code for an environment already open in this process that cannot serve an open.
  public static let alreadyOpenCode: Int32 = -30_704
  /// This layer's code for a data file that must not be mapped: truncated, or with a damaged meta page.
  public static let damagedFileCode: Int32 = -30_702
  /// This layer's code for an environment other processes have open, which was to be held alone.
  public static let inUseCode: Int32 = -30_703
}

/// Turns an LMDB return code into a thrown `LMDBError`.
@inline(__always)
func check(_ code: Int32, _ operation: @autoclosure () -> String) throws {
  if code != MDB_SUCCESS { throw LMDBError(code: code, operation: operation()) }
}
