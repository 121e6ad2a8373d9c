import CLMDB
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The environments open in this process, one per directory.
///
/// LMDB forbids opening one environment twice in a process: its locks are per process, so a
/// second handle's transactions do not see the first's readers, and closing either drops locks
/// the other relies on — writes through one then reuse pages that readers of the other still
/// read. `Environment.open(path:options:)` therefore hands out the environment already open for a
/// directory (by its real path, symlinks resolved) and opens a new one only when there is none.
/// The environment closes when the last reference to it goes.
enum OpenEnvironments {
  private struct Entry {
    weak var environment: Environment?
    let identity: ObjectIdentifier
  }

  private static let entries = Mutex<[String: Entry]>([:])

  /// The environment of `path` in this process, opening it if it is not open.
  static func environment(path: String, options: EnvironmentOptions) throws -> Environment {
    let key = realPath(path)
    while true {
      let found: Result<Environment?, any Error> = entries.withLock { entries in
        guard let entry = entries[key] else {
          return Result {
            let environment = try Environment(opening: path, options: options, registeredAs: key)
            entries[key] = Entry(environment: environment, identity: ObjectIdentifier(environment))
            return environment
          }
        }
        // An entry whose environment is gone is one being closed: wait until it is, so that the
        // new handle never overlaps the old one.
        return .success(entry.environment)
      }
      // Checked outside the lock: if this is the last reference when `admit` throws, the
      // environment closes here, and its deinit takes the lock.
      if let environment = try found.get() {
        try environment.admit(options)
        return environment
      }
      usleep(1_000)
    }
  }

  /// Called by a closed environment, after `mdb_env_close`, with the key it was registered as.
  static func closed(_ environment: ObjectIdentifier, key: String) {
    entries.withLock { entries in
      if entries[key]?.identity == environment { entries[key] = nil }
    }
  }

  /// Whether this process has the environment of `path` open (for `ExclusiveAccess`, which must
  /// refuse one without opening its lock file).
  static func contains(_ path: String) -> Bool {
    let key = realPath(path)
    return entries.withLock { $0[key] != nil }
  }

  /// `path` with symlinks resolved; `path` itself when it cannot be resolved.
  static func realPath(_ path: String) -> String {
    guard let resolved = realpath(path, nil) else { return path }
    defer { free(resolved) }
    return String(cString: resolved)
  }
}
