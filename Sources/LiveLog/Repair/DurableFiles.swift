#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// File operations of a crash-atomic replacement, each a crash point (`CrashPoint`), each
/// reporting failure as an error naming the path: renames, hard links, unlinks and the fsyncs
/// that make them durable (a rename is durable only once its directory is synced; a file's
/// contents only once the file is).
enum DurableFiles {
  struct Failure: Error, CustomStringConvertible {
    var operation: String
    var code: Int32
    var description: String { "\(operation): \(String(cString: strerror(code)))" }
  }

  static func rename(_ from: String, _ to: String) throws(Failure) {
    CrashPoint.reached("rename \(from) -> \(to)")
    guard Glibc.rename(from, to) == 0 else { throw Failure(operation: "rename(\(from), \(to))", code: errno) }
  }

  /// A second name for a file; throws with `EXDEV`, `EPERM`, `EMLINK` or `ENOTSUP` where the
  /// file system has no hard links.
  static func link(_ existing: String, _ new: String) throws(Failure) {
    CrashPoint.reached("link \(existing) -> \(new)")
    guard Glibc.link(existing, new) == 0 else {
      throw Failure(operation: "link(\(existing), \(new))", code: errno)
    }
  }

  /// Removes a file; a missing file is not an error.
  static func unlink(_ path: String) throws(Failure) {
    CrashPoint.reached("unlink \(path)")
    guard Glibc.unlink(path) == 0 || errno == ENOENT else {
      throw Failure(operation: "unlink(\(path))", code: errno)
    }
  }

  /// Removes an empty directory; a missing one is not an error.
  static func removeDirectory(_ path: String) throws(Failure) {
    CrashPoint.reached("rmdir \(path)")
    guard rmdir(path) == 0 || errno == ENOENT else { throw Failure(operation: "rmdir(\(path))", code: errno) }
  }

  /// Flushes a file, or a directory's entries, to the disk.
  static func sync(_ path: String) throws(Failure) {
    CrashPoint.reached("fsync \(path)")
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { throw Failure(operation: "open(\(path))", code: errno) }
    defer { close(descriptor) }
    guard fsync(descriptor) == 0 else { throw Failure(operation: "fsync(\(path))", code: errno) }
  }

  static func exists(_ path: String) -> Bool {
    var status = stat()
    return lstat(path, &status) == 0
  }

  /// Size of a regular file, nil when there is none.
  static func size(_ path: String) -> Int? {
    var status = stat()
    guard stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return nil }
    return Int(status.st_size)
  }
}
