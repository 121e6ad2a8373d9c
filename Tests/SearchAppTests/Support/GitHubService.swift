import Foundation
import GitHubSearch
import Synchronization

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

#if canImport(Glibc)
  import Glibc
#endif

/// Why the local GitHub search service could not be started or asked.
struct GitHubServiceError: Error, CustomStringConvertible {
  var description: String
}

/// The local GitHub search service (`scripts/github-service`) in a child process, for one test.
///
/// It listens on a port the system picks (`--port 0`); the test reads the port from the line the
/// service prints once it accepts connections. The service is stopped when this object goes away,
/// and also when the test process dies: it runs with `--exit-on-stdin-eof`, and its standard input
/// is a pipe only this process holds. It writes nothing to disk.
final class GitHubService {
  let baseURL: URL
  private let process: Process
  private let input: Pipe

  /// The script, found from this file: Tests/SearchAppTests/Support/ → the repository root.
  static let script = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("scripts/github-service").path

  /// Starts the service with `arguments` (`--latency 500`, `--rate-limit 2`) and waits, up to
  /// `timeout` seconds, until it listens.
  init(_ arguments: [String] = [], timeout: TimeInterval = 30) throws {
    process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["python3", Self.script, "--port", "0", "--exit-on-stdin-eof"] + arguments
    input = Pipe()
    let output = Pipe()
    let errors = Pipe()
    process.standardInput = input
    process.standardOutput = output
    process.standardError = errors
    do {
      try process.run()
    } catch {
      throw GitHubServiceError(description: "cannot start python3 \(Self.script): \(error)")
    }
    let line = Self.firstLine(of: output.fileHandleForReading.fileDescriptor, timeout: timeout)
    let prefix = "listening on "
    guard let line, line.hasPrefix(prefix), let url = URL(string: String(line.dropFirst(prefix.count))) else {
      process.terminate()
      process.waitUntilExit()
      let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
      throw GitHubServiceError(
        description: "the service did not say it listens (\(line ?? "no output")): \(message)")
    }
    baseURL = url
  }

  deinit { stop() }

  /// Stops the service and waits for it to end (SIGKILL if SIGTERM has not ended it in two
  /// seconds). `waitUntilExit` is what notices the end: `isRunning` changes only while it runs.
  func stop() {
    guard process.isRunning else { return }
    let pid = process.processIdentifier
    process.terminate()
    let stopped = Mutex(false)
    DispatchQueue.global().asyncAfter(deadline: .now() + 2) {
      if !stopped.withLock({ $0 }) { kill(pid, SIGKILL) }
    }
    process.waitUntilExit()
    stopped.withLock { $0 = true }
  }

  /// A client of this service, without a token and with `timeout`.
  func client(timeout: TimeInterval = 20) -> GitHubSearchClient {
    GitHubSearchClient(
      configuration: GitHubSearchConfiguration(baseURL: baseURL, token: nil, timeout: timeout))
  }

  // MARK: The control endpoints

  /// `GET /_service/state`: the epoch, searches answered, requests abandoned by their client.
  func state() async throws -> [String: Any] {
    try await call("GET", "/_service/state")
  }

  /// Moves the data `epochs` steps along its histories.
  @discardableResult
  func advance(_ epochs: Int) async throws -> [String: Any] {
    try await call("POST", "/_service/advance?epochs=\(epochs)")
  }

  /// Makes the next search answer break: `close-mid-body`.
  func arm(fault: String) async throws {
    _ = try await call("POST", "/_service/fault?kind=\(fault)")
  }

  /// The raw answer to `GET path`, for what the client refuses to send (an empty query, a page
  /// past the cap).
  func get(_ path: String) async throws -> (status: Int, body: [String: Any]) {
    let (data, response) = try await URLSessionTransport().send(request("GET", path))
    return (response.statusCode, try Self.object(data))
  }

  private func call(_ method: String, _ path: String) async throws -> [String: Any] {
    let (data, response) = try await URLSessionTransport().send(request(method, path))
    guard response.statusCode == 200 else {
      throw GitHubServiceError(description: "\(method) \(path): HTTP \(response.statusCode)")
    }
    return try Self.object(data)
  }

  private func request(_ method: String, _ path: String) throws -> URLRequest {
    guard let url = URL(string: baseURL.absoluteString + path) else {
      throw GitHubServiceError(description: "no URL for \(path)")
    }
    var request = URLRequest(url: url)
    request.httpMethod = method
    return request
  }

  private static func object(_ data: Data) throws -> [String: Any] {
    guard let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
      throw GitHubServiceError(description: "not a JSON object: \(String(decoding: data, as: UTF8.self))")
    }
    return object
  }

  /// The first line written to `descriptor`, or nil when nothing came within `timeout` seconds
  /// or the writer ended first.
  private static func firstLine(of descriptor: Int32, timeout: TimeInterval) -> String? {
    var bytes: [UInt8] = []
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
      var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
      guard poll(&poller, 1, 100) > 0 else { continue }
      var byte: UInt8 = 0
      guard read(descriptor, &byte, 1) == 1 else { return nil }
      if byte == UInt8(ascii: "\n") { return String(decoding: bytes, as: UTF8.self) }
      bytes.append(byte)
    }
    return nil
  }
}

/// The stars of each repository at each step of the shipped histories, read straight from
/// `Tests/Fixtures/github/history/*/stars.csv`, to check what the service serves against them.
enum HistoryFixture {
  /// id → the stars at each step (nil: not listed), for both histories.
  static func stars() throws -> [Int64: [Int64?]] {
    var stars: [Int64: [Int64?]] = [:]
    for name in ["ranking", "ios-apps"] {
      let path = SearchFixtures.github.appendingPathComponent("history/\(name)/stars.csv").path
      let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").dropFirst()
      for line in lines {
        // The file holds only numbers and empty cells, so commas split it.
        let cells = line.split(separator: ",", omittingEmptySubsequences: false)
        guard let id = cells.first.flatMap({ Int64($0) }) else { continue }
        stars[id] = cells.dropFirst().map { Int64($0) }
      }
    }
    return stars
  }
}
