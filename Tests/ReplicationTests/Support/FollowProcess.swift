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
    Self.read(output.fileHandleForReading) { text in
      collected.output.withLock { output in
        var pieces = (output.partial + text).split(separator: "\n", omittingEmptySubsequences: false)
        output.partial = String(pieces.removeLast())
        output.lines += pieces.filter { !$0.isEmpty }.map(String.init)
      }
    }
    Self.read(error.fileHandleForReading) { text in collected.errors.withLock { $0 += text } }
    try process.run()
  }

  /// Reads `handle` to its end on a thread of its own, passing on what each read returns.
  ///
  /// Why not `readabilityHandler`: on Linux, a pipe torn down while its handler is set can crash
  /// the process in libdispatch's event loop (`_dispatch_event_loop_drain`), which took a whole test
  /// run down once; a blocking read loop leaves libdispatch out of it.
  private static func read(_ handle: FileHandle, _ body: @escaping @Sendable (String) -> Void) {
    Thread {
      while case let data = handle.availableData, !data.isEmpty {
        body(String(decoding: data, as: UTF8.self))
      }
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

  var standardError: String { collected.errors.withLock { $0 } }

  func end(_ signal: Int32) -> Int32 {
    kill(process.processIdentifier, signal)
    process.waitUntilExit()
    return process.terminationStatus
  }
}
