import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Buffered standard output: the engine can produce far more lines than `print` writes quickly.
final class Output: @unchecked Sendable {
  // @unchecked: one thread writes at a time — the command's, `watch`'s printing queue while
  // the command's thread only waits, or one of `ingest --writers`' threads under its lock.
  private var buffer: [UInt8] = []
  /// Flush after every line, for followers (`watch`, `log --follow`) that a pipe reads live.
  var lineBuffered = false

  init() { buffer.reserveCapacity(1 << 16) }

  deinit { flush() }

  func write(_ text: String) {
    buffer.append(contentsOf: text.utf8)
    if buffer.count >= 1 << 16 { flush() }
  }

  func line(_ text: String) {
    buffer.append(contentsOf: text.utf8)
    endLine()
  }

  func line(bytes: [UInt8]) {
    buffer.append(contentsOf: bytes)
    endLine()
  }

  private func endLine() {
    buffer.append(0x0A)
    if lineBuffered || buffer.count >= 1 << 16 { flush() }
  }

  func flush() {
    guard !buffer.isEmpty else { return }
    buffer.withUnsafeBytes { bytes in
      guard let base = bytes.baseAddress else { return }
      var offset = 0
      while offset < bytes.count {
        let written = Glibc.write(1, base + offset, bytes.count - offset)
        if written <= 0 {
          // The reader went away (a closed pipe): stop quietly, as `head` expects.
          if errno == EINTR { continue }
          exit(0)
        }
        offset += written
      }
    }
    buffer.removeAll(keepingCapacity: true)
  }
}

/// Writes a message to standard error. Messages quote input and data (file names, values,
/// queries): control characters other than this program's own line feeds are escaped, so that
/// no message can command the terminal.
func printError(_ text: String) {
  FileHandle.standardError.write(Data((TerminalSafe.message(text) + "\n").utf8))
}

/// A one-line progress bar on standard error, drawn only when it is a terminal.
final class ProgressBar {
  private let label: String
  private let total: Int
  private let enabled: Bool
  private var lastDraw = 0.0
  private let started = Date()

  init(_ label: String, total: Int) {
    self.label = label
    self.total = max(total, 1)
    self.enabled = isatty(2) == 1
  }

  /// Shows `done` of the total; redraws at most ten times a second.
  func update(_ done: Int, detail: @autoclosure () -> String = "") {
    guard enabled else { return }
    let now = Date().timeIntervalSinceReferenceDate
    guard now - lastDraw >= 0.1 || done >= total else { return }
    lastDraw = now
    let fraction = min(1, Double(done) / Double(total))
    let width = 30
    let filled = Int(fraction * Double(width))
    let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
    let text = "\r\(label) \(bar) \(Int(fraction * 100))% \(detail())\u{1B}[K"
    FileHandle.standardError.write(Data(text.utf8))
  }

  /// `done` of `total` in thousandths, 0 to 1000, for any counts (no conversion can trap).
  static func thousandths(_ done: UInt64, of total: UInt64) -> Int {
    guard total > 0 else { return 1000 }
    return Int(min(1000, (Double(done) / Double(total) * 1000).rounded(.down)))
  }

  /// Clears the bar's line.
  func finish() {
    guard enabled else { return }
    FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
  }

  var elapsed: TimeInterval { Date().timeIntervalSince(started) }
}

/// Formats counts with thousands separators: 1234567 → "1,234,567".
func grouped(_ value: some BinaryInteger) -> String {
  let digits = String(value)
  let negative = digits.hasPrefix("-")
  var body = Array(negative ? digits.dropFirst() : Substring(digits))
  var result: [Character] = []
  while body.count > 3 {
    result.insert(contentsOf: [","] + body.suffix(3), at: 0)
    body.removeLast(3)
  }
  result.insert(contentsOf: body, at: 0)
  return (negative ? "-" : "") + String(result)
}

/// Formats byte counts: 1536 → "1.5 KiB".
func byteSize(_ bytes: Int) -> String {
  let units = ["B", "KiB", "MiB", "GiB", "TiB"]
  var value = Double(bytes)
  var unit = 0
  while value >= 1024 && unit < units.count - 1 {
    value /= 1024
    unit += 1
  }
  return unit == 0 ? "\(bytes) B" : String(format: "%.1f", value) + " " + units[unit]
}
