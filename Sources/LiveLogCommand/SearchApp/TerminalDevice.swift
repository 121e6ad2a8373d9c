#if canImport(Glibc)
  import Glibc
#endif

/// Why the terminal could not be set up.
enum TerminalError: Error, Sendable, CustomStringConvertible {
  case notATerminal
  case attributes(errno: Int32)

  var description: String {
    switch self {
    case .notATerminal:
      "livelog search needs a terminal on standard input and output; use --once for scripts"
    case .attributes(let code):
      "cannot switch the terminal to raw mode: \(String(cString: strerror(code)))"
    }
  }
}

/// The terminal on standard input and output, in raw mode on the alternate screen while the app
/// runs.
///
/// Raw mode: no line editing, no echo, no signals from Ctrl-C (the app reads it as a key and
/// quits cleanly), no CR/LF translation of output. `restore()` puts back exactly the settings
/// found, leaves the alternate screen (so the shell's screen reappears as it was) and shows the
/// cursor; it runs however the app ends, and more than once does no harm.
final class TerminalDevice {
  let input: Int32
  let output: Int32
  private var original: termios?

  /// Whether standard input and output are a terminal (checked before anything is opened).
  static var isAvailable: Bool { isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1 }

  init(input: Int32 = STDIN_FILENO, output: Int32 = STDOUT_FILENO) throws(TerminalError) {
    guard isatty(input) == 1, isatty(output) == 1 else { throw .notATerminal }
    self.input = input
    self.output = output
  }

  /// Enters raw mode and the alternate screen.
  func start() throws(TerminalError) {
    var settings = termios()
    guard tcgetattr(input, &settings) == 0 else { throw .attributes(errno: errno) }
    original = settings
    cfmakeraw(&settings)
    // Reads return as soon as one byte is there.
    withUnsafeMutableBytes(of: &settings.c_cc) { cc in
      cc[Int(VMIN)] = 1
      cc[Int(VTIME)] = 0
    }
    guard tcsetattr(input, TCSAFLUSH, &settings) == 0 else { throw .attributes(errno: errno) }
    // Alternate screen, then the cursor keys in their normal (CSI) form.
    write("\u{1B}[?1049h\u{1B}[?1l")
  }

  /// Leaves raw mode and the alternate screen.
  func restore() {
    guard var settings = original else { return }
    original = nil
    write("\u{1B}[0m\u{1B}[r\u{1B}[?25h\u{1B}[?1049l")
    _ = tcsetattr(input, TCSAFLUSH, &settings)
  }

  /// The window's size; 80×24 if the terminal does not say.
  var size: TerminalSize {
    var window = winsize()
    guard ioctl(output, UInt(TIOCGWINSZ), &window) == 0, window.ws_row > 0, window.ws_col > 0 else {
      return TerminalSize(rows: 24, columns: 80)
    }
    return TerminalSize(rows: Int(window.ws_row), columns: Int(window.ws_col))
  }

  /// Writes all of `text`, retrying after interruptions and short writes.
  func write(_ text: String) {
    guard !text.isEmpty else { return }
    var bytes = Array(text.utf8)
    bytes.withUnsafeMutableBytes { buffer in
      guard let base = buffer.baseAddress else { return }
      var offset = 0
      while offset < buffer.count {
        let written = Glibc.write(output, base + offset, buffer.count - offset)
        if written < 0 && errno == EINTR { continue }
        guard written > 0 else { return }  // the terminal went away; nothing more to show
        offset += written
      }
    }
  }

  /// Waits up to `timeout` milliseconds for input on `input` and returns what is there (empty on
  /// timeout; `nil` at end of input or on an error). Static, so that a reader thread needs only
  /// the descriptor.
  static func read(_ input: Int32, timeout: Int32) -> [UInt8]? {
    var descriptor = pollfd(fd: input, events: Int16(POLLIN), revents: 0)
    let ready = poll(&descriptor, 1, timeout)
    if ready == 0 || (ready < 0 && errno == EINTR) { return [] }
    guard ready > 0 else { return nil }
    var buffer = [UInt8](repeating: 0, count: 4096)
    let count = Glibc.read(input, &buffer, buffer.count)
    if count < 0 && (errno == EINTR || errno == EAGAIN) { return [] }
    guard count > 0 else { return nil }
    return Array(buffer[0..<count])
  }

  deinit { restore() }
}
