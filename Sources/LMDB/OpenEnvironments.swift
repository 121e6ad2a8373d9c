import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The directories of the environments this process has open, by their resolved path, so that
/// `ExclusiveAccess` can refuse one of them without opening its lock file.
enum OpenEnvironments {
  private static let open = Mutex<[String: Int]>([:])

  /// Records an open environment; returns the key to remove it by (the directory may be gone
  /// by then).
  static func add(_ path: String) -> String {
    let key = resolved(path)
    open.withLock { $0[key, default: 0] += 1 }
    return key
  }

  static func remove(_ key: String) {
    open.withLock { paths in paths[key] = (paths[key] ?? 1) > 1 ? (paths[key] ?? 1) - 1 : nil }
  }

  static func contains(_ path: String) -> Bool { open.withLock { $0[resolved(path)] != nil } }

  /// `path` with links and relative parts resolved, as it stands now; itself when it cannot be.
  private static func resolved(_ path: String) -> String {
    guard let pointer = realpath(path, nil) else { return path }
    defer { free(pointer) }
    return String(cString: pointer)
  }
}
