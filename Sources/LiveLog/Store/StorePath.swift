import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Why a path cannot become a store directory, found before (or after) trying, so that the error
/// names the path and the problem instead of a raw Foundation error.
public enum StorePath {
  /// Whether anything is at `path`, a dangling symbolic link included (which `fileExists` denies).
  public static func entryExists(_ path: String) -> Bool {
    var status = stat()
    return lstat(path, &status) == 0
  }

  /// Creates the directory `path` and its missing parents, or throws `StoreError.unusablePath`.
  static func createDirectory(_ path: String) throws(StoreError) {
    if let problem = problem(creating: path) { throw .unusablePath(path: path, reason: problem) }
    do {
      try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    } catch {
      throw .unusablePath(
        path: path, reason: problem(creating: path) ?? "it cannot be created (\(reason(error)))")
    }
  }

  /// What keeps `path` from being created as a directory, or nil when nothing seems to.
  static func problem(creating path: String) -> String? {
    var status = stat()
    if lstat(path, &status) == 0 {
      if status.st_mode & S_IFMT == S_IFLNK, stat(path, &status) != 0 {
        let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: path)) ?? "?"
        return "it is a symbolic link to \(target), which does not exist; create that directory or give "
          + "another path"
      }
      return status.st_mode & S_IFMT == S_IFDIR ? nil : "it exists and is not a directory"
    }
    // The nearest existing ancestor must be a directory this user may write.
    var ancestor = parent(of: path)
    while stat(ancestor, &status) != 0 {
      let next = parent(of: ancestor)
      if next == ancestor { return nil }
      ancestor = next
    }
    guard status.st_mode & S_IFMT == S_IFDIR else {
      return "\(ancestor) is a file, not a directory, so nothing can be created below it"
    }
    guard access(ancestor, W_OK | X_OK) == 0 else {
      return "the directory \(ancestor) is not writable by this user; create the store where you may "
        + "write, or ask for access"
    }
    return nil
  }

  /// The directory holding `path`: "." for a bare name, "/" for the root.
  static func parent(of path: String) -> String {
    var trimmed = Substring(path)
    while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed.removeLast() }
    guard let slash = trimmed.lastIndex(of: "/") else { return "." }
    let parent = trimmed[..<slash]
    return parent.isEmpty ? "/" : String(parent)
  }

  /// A Foundation error's underlying system reason ("Permission denied"), or its description.
  static func reason(_ error: any Error) -> String {
    let error = error as NSError
    if let underlying = error.userInfo[NSUnderlyingErrorKey] as? NSError,
      underlying.domain == NSPOSIXErrorDomain
    {
      return String(cString: strerror(Int32(underlying.code)))
    }
    if error.domain == NSPOSIXErrorDomain { return String(cString: strerror(Int32(error.code))) }
    return error.localizedDescription
  }
}
