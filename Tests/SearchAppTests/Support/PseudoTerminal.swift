import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Why a program could not be started in a pseudo-terminal.
struct PseudoTerminalError: Error, CustomStringConvertible {
  var description: String
}

/// A program running in a pseudo-terminal, as in a terminal window: the test types into the
/// master side and reads what the program draws into a `VirtualScreen`.
///
/// The child is spawned with `posix_spawn` in a session of its own and opens the pty's slave as
/// its controlling terminal (so raw mode, window sizes and SIGWINCH work as in a real terminal).
/// `fork` is not used: forking a multithreaded test process is unsafe.
final class PseudoTerminal {
  let screen: VirtualScreen
  private let master: Int32
  private let pid: pid_t
  private var status: Int32?

  init(executable: String, arguments: [String], rows: Int, columns: Int, environment: [String: String]) throws
  {
    var master: Int32 = -1
    var slave: Int32 = -1
    var window = winsize(ws_row: UInt16(rows), ws_col: UInt16(columns), ws_xpixel: 0, ws_ypixel: 0)
    guard openpty(&master, &slave, nil, nil, &window) == 0, let name = ttyname(slave) else {
      throw PseudoTerminalError(description: "no pseudo-terminal: \(String(cString: strerror(errno)))")
    }
    // The child opens the slave by name (to make it its controlling terminal); this process
    // keeps only the master.
    let slavePath = String(cString: name)
    defer { close(slave) }
    self.master = master
    screen = VirtualScreen(rows: rows, columns: columns)

    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    // Opened after setsid (glibc's posix_spawn makes the new session first), without O_NOCTTY:
    // the slave becomes the child's controlling terminal.
    posix_spawn_file_actions_addopen(&actions, 0, slavePath, O_RDWR, 0)
    posix_spawn_file_actions_adddup2(&actions, 0, 1)
    posix_spawn_file_actions_adddup2(&actions, 0, 2)
    posix_spawn_file_actions_addclose(&actions, master)
    posix_spawn_file_actions_addclose(&actions, slave)
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    // POSIX_SPAWN_SETSID (glibc's value; the macro is not imported) and default signal handling.
    let setSession: Int32 = 0x80
    var defaults = sigset_t()
    sigemptyset(&defaults)
    for signal in [SIGINT, SIGTERM, SIGHUP, SIGWINCH, SIGPIPE] { sigaddset(&defaults, signal) }
    posix_spawnattr_setsigdefault(&attributes, &defaults)
    posix_spawnattr_setflags(&attributes, Int16(setSession | POSIX_SPAWN_SETSIGDEF))

    var env = ProcessInfo.processInfo.environment
    for (key, value) in environment { env[key] = value }
    let argv = ([executable] + arguments).map { strdup($0) } + [nil]
    let envp = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer {
      for pointer in argv + envp { free(pointer) }
    }
    var child: pid_t = 0
    let spawned = posix_spawn(&child, executable, &actions, &attributes, argv, envp)
    guard spawned == 0 else {
      close(master)
      throw PseudoTerminalError(
        description: "cannot start \(executable): \(String(cString: strerror(spawned)))")
    }
    pid = child
  }

  deinit {
    if exitStatus == nil {
      kill(pid, SIGKILL)
      var status: Int32 = 0
      waitpid(pid, &status, 0)
    }
    close(master)
  }

  /// Types `text` (keys are bytes: "\u{1B}" is Esc, "\t" Tab, "\u{15}" Ctrl-U).
  func type(_ text: String) {
    let bytes = Array(text.utf8)
    bytes.withUnsafeBytes { buffer in
      guard let base = buffer.baseAddress else { return }
      _ = write(master, base, buffer.count)
    }
  }

  /// Types `text` one character at a time, `interval` apart, as a person does.
  func typeSlowly(_ text: String, interval: TimeInterval = 0.04) {
    for character in text {
      type(String(character))
      pump(for: interval)
    }
  }

  /// Reads what the program draws for `seconds`.
  func pump(for seconds: TimeInterval) {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline { readAvailable(waiting: 10) }
  }

  /// Reads until `condition` holds for the screen, or `timeout` passes; returns whether it held.
  @discardableResult
  func wait(timeout: TimeInterval = 10, until condition: (VirtualScreen) -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while true {
      if condition(screen) { return true }
      if Date() >= deadline { return false }
      readAvailable(waiting: 10)
    }
  }

  /// Tells the program the window changed size.
  func resize(rows: Int, columns: Int) {
    var window = winsize(ws_row: UInt16(rows), ws_col: UInt16(columns), ws_xpixel: 0, ws_ypixel: 0)
    _ = ioctl(master, UInt(TIOCSWINSZ), &window)
    screen.resize(rows: rows, columns: columns)
  }

  /// The terminal's settings now (as the program left them).
  var settings: termios {
    var settings = termios()
    tcgetattr(master, &settings)
    return settings
  }

  /// Waits for the program to exit and returns its exit status (`nil` if it is still running
  /// after `timeout`; 128 + N if signal N ended it).
  func waitForExit(timeout: TimeInterval = 5) -> Int32? {
    let deadline = Date().addingTimeInterval(timeout)
    while exitStatus == nil && Date() < deadline { readAvailable(waiting: 10) }
    readAvailable(waiting: 0)
    return exitStatus
  }

  private var exitStatus: Int32? {
    if let status { return status }
    var raw: Int32 = 0
    guard waitpid(pid, &raw, WNOHANG) == pid else { return nil }
    // WIFEXITED / WEXITSTATUS / WTERMSIG, which are macros Swift does not import.
    let signal = raw & 0x7F
    status = signal == 0 ? (raw >> 8) & 0xFF : 128 + signal
    return status
  }

  private func readAvailable(waiting milliseconds: Int32) {
    var descriptor = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
    guard poll(&descriptor, 1, milliseconds) > 0 else { return }
    var buffer = [UInt8](repeating: 0, count: 65_536)
    let count = read(master, &buffer, buffer.count)
    // EIO once the program has exited and closed the slave.
    guard count > 0 else {
      if milliseconds > 0 { usleep(UInt32(milliseconds) * 1000) }
      return
    }
    screen.feed(Array(buffer[0..<count]))
  }
}
