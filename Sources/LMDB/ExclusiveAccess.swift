#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Exclusive use of an environment across processes, for maintenance that replaces its data file.
///
/// Every process that has an environment open holds a shared `fcntl` lock on byte 0 of its lock
/// file: LMDB takes it in `mdb_env_open` (exclusively first, to learn whether it is alone, then
/// shared) and keeps it until `mdb_env_close`. Taking that byte exclusively therefore succeeds
/// only when no other process has the environment open — including one that is between two
/// transactions, which holds no reader slot — and while it is held, a process that opens the
/// environment waits inside `mdb_env_open` until it is released.
///
/// The lock is taken as an open-file-description lock (`F_OFD_SETLK`), which is not released when
/// some other descriptor of the file is closed (as POSIX record locks are). It conflicts with
/// LMDB's record locks even within this process, so the holder must not open the environment
/// normally while it holds it; it may open it with `EnvironmentOptions.withoutLock`.
public final class ExclusiveAccess {
  private var descriptor: Int32
  public let lockFilePath: String

  /// Takes the environment in the directory `path` exclusively, or throws an error for which
  /// `isInUse` is true, naming the processes that have it open.
  public init(path: String) throws(LMDBError) {
    lockFilePath = path + "/lock.mdb"
    // Checked without touching the lock file: closing any descriptor of it drops every record
    // lock this process holds on it, LMDB's shared lock included.
    guard !OpenEnvironments.contains(path) else {
      throw LMDBError(code: LMDBError.inUseCode, operation: "lock(\(lockFilePath))", message: "this process")
    }
    let descriptor = open(lockFilePath, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
    guard descriptor >= 0 else { throw LMDBError(code: errno, operation: "open(\(lockFilePath))") }
    var lock = ExclusiveAccess.byteZero(F_WRLCK)
    guard fcntl(descriptor, ExclusiveAccess.setLock, &lock) == 0 else {
      let code = errno
      let holders = ExclusiveAccess.holders(descriptor)
      close(descriptor)
      guard code == EAGAIN || code == EACCES else {
        throw LMDBError(code: code, operation: "fcntl(\(lockFilePath), F_OFD_SETLK)")
      }
      throw LMDBError(
        code: LMDBError.inUseCode, operation: "lock(\(lockFilePath))",
        message: holders.isEmpty ? "another process" : holders)
    }
    self.descriptor = descriptor
  }

  deinit { release() }

  /// Ends the hold (also done when the object goes).
  public func release() {
    guard descriptor >= 0 else { return }
    close(descriptor)
    descriptor = -1
  }

  /// Makes the lock file unusable until LMDB initializes it again: clears its magic number. The
  /// next process to open the environment alone initializes it from the data file; one that
  /// waited for this hold to end and opens beside another process finds it invalid
  /// (`MDB_INVALID`), and `Environment` tries again. Without this, a process that waited would
  /// trust the lock file's record of the last transaction, which describes the data file as it
  /// was before the hold: after the data file is replaced it would read a wrong meta page.
  public func invalidateLockFile() throws(LMDBError) {
    var zero: UInt32 = 0
    let written = pwrite(descriptor, &zero, 4, 0)
    guard written == 4 else { throw LMDBError(code: errno, operation: "pwrite(\(lockFilePath))") }
    guard fsync(descriptor) == 0 else { throw LMDBError(code: errno, operation: "fsync(\(lockFilePath))") }
  }

  #if os(Linux)
    private static let setLock: Int32 = 37  // F_OFD_SETLK
    private static let getLock: Int32 = 36  // F_OFD_GETLK
  #else
    private static let setLock = F_SETLK
    private static let getLock = F_GETLK
  #endif

  private static func byteZero(_ type: Int32) -> flock {
    var lock = flock()
    lock.l_type = Int16(type)
    lock.l_whence = Int16(SEEK_SET)
    lock.l_start = 0
    lock.l_len = 1
    return lock
  }

  /// The processes holding byte 0, described for a message ("process 4242 (livelog watch …)"),
  /// as far as the kernel tells: it names one holder of a conflicting record lock at a time.
  private static func holders(_ descriptor: Int32) -> String {
    var probe = byteZero(F_WRLCK)
    guard fcntl(descriptor, F_GETLK, &probe) == 0, probe.l_type != Int16(F_UNLCK), probe.l_pid > 0 else {
      return ""
    }
    let pid = probe.l_pid
    var text = "process \(pid)"
    if let command = commandLine(of: pid) { text += " (\(command))" }
    return text
  }

  /// The command line of process `pid`, shortened, from /proc; nil where there is none.
  private static func commandLine(of pid: pid_t) -> String? {
    let descriptor = open("/proc/\(pid)/cmdline", O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return nil }
    defer { close(descriptor) }
    var buffer = [UInt8](repeating: 0, count: 200)
    let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
    guard count > 0 else { return nil }
    let words = buffer[..<count].split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
    let name = words.first.map { ($0 as String).split(separator: "/").last.map(String.init) ?? $0 } ?? ""
    let text = ([name] + words.dropFirst()).joined(separator: " ")
    let safe = String(text.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? "?" : Character($0) })
    return safe.count > 80 ? String(safe.prefix(80)) + "…" : safe
  }
}
