import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A child process started with nothing blocked: Foundation's `Process` hands its children the
/// spawning thread's signal mask, in which the test runner's threads block SIGTERM, SIGINT and
/// SIGHUP, so a test of what a script does when interrupted must start it this way. Output goes
/// to /dev/null; the process is killed (SIGKILL) and reaped when the object goes, if still running.
final class SpawnedProcess {
  let pid: pid_t
  private var status: Int32?

  init(_ executable: String, _ arguments: [String]) throws {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    for descriptor: Int32 in [0, 1, 2] {
      posix_spawn_file_actions_addopen(
        &actions, descriptor, "/dev/null", descriptor == 0 ? O_RDONLY : O_WRONLY, 0)
    }
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var none = sigset_t()
    sigemptyset(&none)
    posix_spawnattr_setsigmask(&attributes, &none)
    var defaults = sigset_t()
    sigemptyset(&defaults)
    for signal in [SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE] { sigaddset(&defaults, signal) }
    posix_spawnattr_setsigdefault(&attributes, &defaults)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
    let argv = ([executable] + arguments).map { strdup($0) } + [nil]
    let envp = ProcessInfo.processInfo.environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer { for pointer in argv + envp { free(pointer) } }
    var child: pid_t = 0
    let spawned = posix_spawn(&child, executable, &actions, &attributes, argv, envp)
    guard spawned == 0 else { throw POSIXError(POSIXErrorCode(rawValue: spawned) ?? .EINVAL) }
    pid = child
  }

  deinit {
    if status == nil {
      kill(pid, SIGKILL)
      _ = wait()
    }
  }

  var isRunning: Bool {
    guard status == nil else { return false }
    var raw: Int32 = 0
    guard waitpid(pid, &raw, WNOHANG) == pid else { return true }
    status = raw
    return false
  }

  /// Waits for the process to end; returns its raw wait status.
  @discardableResult
  func wait() -> Int32 {
    if let status { return status }
    var raw: Int32 = 0
    while waitpid(pid, &raw, 0) == -1 && errno == EINTR {}
    status = raw
    return raw
  }
}
