import Foundation
import Synchronization

/// A running `livelog follow --format json`, its lines collected as they come.
final class FollowProcess: Sendable {
  /// The built `livelog`, beside the test runner (or `$LIVELOG_BINARY`).
  static let executable: String = {
    if let path = ProcessInfo.processInfo.environment["LIVELOG_BINARY"] { return path }
    return URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(
      "livelog"
    )
    .path
  }()

  let process: Process
  private let collected = Collected()
  /// Signalled by each pipe's reader at the pipe's end, so that `end(_:)` returns with
  /// everything the process wrote collected.
  private let drained = DispatchSemaphore(value: 0)
  private let isDrained = Mutex(false)

  final class Collected: Sendable {
    /// Complete lines, and the start of a line whose end has not come yet (a pipe's read can end
    /// anywhere).
    let output = Mutex<(lines: [String], partial: String)>(([], ""))
    let errors = Mutex<String>("")
  }

  convenience init(store: String, server: NATSServer) throws {
    try self.init(store: store, servers: [server.url])
  }

  init(store: String, servers: [String], stream: String = "notes", replicas: Int = 1) throws {
    process = Process()
    process.executableURL = URL(fileURLWithPath: Self.executable)
    process.arguments = [
      "--store", store, "--nats", servers.joined(separator: ","), "--stream", stream, "--stream-replicas",
      String(replicas), "follow", "--format", "json",
    ]
    let output = Pipe()
    let error = Pipe()
    process.standardOutput = output
    process.standardError = error
    let collected = collected
    try process.run()
    Self.collect(output.fileHandleForReading, drained) { text in
      collected.output.withLock { output in
        var pieces = (output.partial + text).split(separator: "\n", omittingEmptySubsequences: false)
        output.partial = String(pieces.removeLast())
        output.lines += pieces.filter { !$0.isEmpty }.map(String.init)
      }
    }
    Self.collect(error.fileHandleForReading, drained) { text in collected.errors.withLock { $0 += text } }
  }

  /// Reads `handle` to its end (or a read error) on a thread of its own, passing on what each
  /// read returns, then signals `done`.
  ///
  /// Why not `readabilityHandler`: on Linux, a pipe torn down while its handler is set can crash
  /// the process in libdispatch's event loop (`_dispatch_event_loop_drain`), which took a whole test
  /// run down once; a blocking read loop leaves libdispatch out of it.
  private static func collect(
    _ handle: FileHandle, _ done: DispatchSemaphore, _ body: @escaping @Sendable (String) -> Void
  ) {
    Thread {
      // `read(2)` itself: it returns what the pipe holds as soon as it holds anything (Foundation's
      // `read(upToCount:)` waits for the whole count), and reports an error rather than trapping.
      var buffer = [UInt8](repeating: 0, count: 65_536)
      while true {
        let count = buffer.withUnsafeMutableBytes { read(handle.fileDescriptor, $0.baseAddress, $0.count) }
        if count < 0 && errno == EINTR { continue }
        guard count > 0 else { break }
        body(String(decoding: buffer[..<count], as: UTF8.self))
      }
      done.signal()
    }.start()
  }

  /// The stream sequences of the commits it printed as applied, in order.
  var applied: [UInt64] {
    collected.output.withLock { output in
      output.lines.compactMap { line in
        guard let start = line.range(of: "\"sequence\":")?.upperBound else { return nil }
        return UInt64(line[start...].prefix { $0.isNumber })
      }
    }
  }

  /// What it wrote to standard error; all of it once it has ended.
  var standardError: String {
    if !process.isRunning { drain() }
    return collected.errors.withLock { $0 }
  }

  /// Waits for both pipes' readers to reach the pipes' ends (which come with the process's, as
  /// it has no children), once; a few seconds bound the wait all the same.
  private func drain() {
    guard !isDrained.withLock({ $0 }) else { return }
    for _ in 0..<2 { _ = drained.wait(timeout: .now() + 5) }
    isDrained.withLock { $0 = true }
  }

  func end(_ signal: Int32) -> Int32 {
    kill(process.processIdentifier, signal)
    process.waitUntilExit()
    drain()
    return process.terminationStatus
  }
}
