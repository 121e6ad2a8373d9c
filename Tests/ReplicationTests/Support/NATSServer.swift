import Foundation
import Synchronization
import TestSupport

/// A `nats-server -js` of the test's own, on a free loopback port, keeping its JetStream files
/// in a temporary directory; stopped when released.
final class NATSServer: @unchecked Sendable {
  // Written once in init, then only read; `stop` is called from one test at a time.
  let port: Int
  /// The server's name (`-n`): what a stream's cluster information calls its leader.
  let name: String
  let directory: TemporaryDirectory
  /// The cluster this server is a node of, if any.
  let cluster: ClusterRoute?
  /// The HTTP monitoring port (`-m`), if it has one.
  let monitorPort: Int?
  private let process: Process
  private let logFile: String

  /// A node's place in a cluster: the cluster's name, its own route port, the others'.
  struct ClusterRoute: Sendable {
    var name: String
    var port: Int
    var routes: [Int]
  }

  var url: String { "nats://127.0.0.1:\(port)" }

  struct Missing: Error, CustomStringConvertible {
    var description: String {
      "nats-server is not installed, and the replication tests need it: `make test` installs it "
        + "(sudo apt-get install -y nats-server), or run them through `make test`"
    }
  }

  struct NotListening: Error, CustomStringConvertible {
    var log: String
    var description: String { "nats-server did not start listening within 10 s; its log:\n\(log)" }
  }

  static let executable: String? = {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
    let candidates =
      ["/usr/sbin", "/usr/bin", "/usr/local/bin"] + path.split(separator: ":").map(String.init)
    return candidates.map { $0 + "/nats-server" }.first { FileManager.default.isExecutableFile(atPath: $0) }
  }()

  /// Starts a server; with `cluster`, as one node of a cluster whose routes are `routes`; with
  /// `directory`, on the JetStream files a server left there (a restart); with `maximumPayload`,
  /// taking messages of at most that many bytes (`max_payload`).
  init(
    port: Int? = nil, cluster: ClusterRoute? = nil, monitorPort: Int? = nil,
    directory: TemporaryDirectory? = nil, maximumPayload: Int? = nil
  ) throws {
    guard let executable = Self.executable else { throw Missing() }
    self.directory = try directory ?? TemporaryDirectory()
    self.port = try port ?? Self.freePort()
    self.cluster = cluster
    self.monitorPort = monitorPort
    name = "n\(self.port)"
    logFile = self.directory.child("server.log")
    var arguments = [
      "-js", "-a", "127.0.0.1", "-p", String(self.port), "-sd", self.directory.child("jetstream"), "-l",
      logFile,
      "--name", name,
    ]
    if let maximumPayload {
      let configuration = self.directory.child("server.conf")
      try "max_payload: \(maximumPayload)\n".write(toFile: configuration, atomically: true, encoding: .utf8)
      arguments += ["-c", configuration]
    }
    if let monitorPort { arguments += ["-m", String(monitorPort)] }
    if let cluster {
      arguments += [
        "--cluster_name", cluster.name, "--cluster", "nats://127.0.0.1:\(cluster.port)", "--routes",
        cluster.routes.map { "nats://127.0.0.1:\($0)" }.joined(separator: ","),
      ]
    }
    process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    let deadline = Date().addingTimeInterval(10)
    while !Self.accepts(self.port) {
      guard Date() < deadline, process.isRunning else {
        stop()
        throw NotListening(log: (try? String(contentsOfFile: logFile, encoding: .utf8)) ?? "(none)")
      }
      usleep(20_000)
    }
  }

  deinit { stop() }

  /// Sends `signal` to the server without waiting (SIGSTOP pauses it, SIGCONT resumes it).
  func send(_ signal: Int32) {
    kill(process.processIdentifier, signal)
  }

  /// Pauses the server with SIGSTOP and returns once every thread of it is stopped: `kill`
  /// returns before then, and a thread still running on another core can answer meanwhile.
  func pause() {
    send(SIGSTOP)
    let tasks = "/proc/\(process.processIdentifier)/task"
    let deadline = Date().addingTimeInterval(5)
    while Date() < deadline {
      let threads = (try? FileManager.default.contentsOfDirectory(atPath: tasks)) ?? []
      let stopped = threads.allSatisfy { thread in
        // `PID (name) STATE …`: the state follows the name's closing parenthesis.
        guard let stat = try? String(contentsOfFile: "\(tasks)/\(thread)/stat", encoding: .utf8),
          let close = stat.lastIndex(of: ")")
        else { return false }
        return stat[stat.index(after: close)...].dropFirst().first == "T"
      }
      if !threads.isEmpty && stopped { return }
      usleep(1_000)
    }
  }

  /// Ends the server with `signal` (SIGTERM: a clean shutdown; SIGKILL: a crash).
  func stop(_ signal: Int32 = SIGTERM) {
    guard process.isRunning else { return }
    kill(process.processIdentifier, signal)
    process.waitUntilExit()
  }

  /// The same server started again (after `stop`): same name, ports, cluster and JetStream files.
  func restarted() throws -> NATSServer {
    try NATSServer(port: port, cluster: cluster, monitorPort: monitorPort, directory: directory)
  }

  var isRunning: Bool { process.isRunning }

  /// Three servers of one JetStream cluster, each routed to the others, each with a monitoring port.
  static func cluster() throws -> [NATSServer] {
    let clients = try (0..<3).map { _ in try freePort() }
    let routes = try (0..<3).map { _ in try freePort() }
    let monitors = try (0..<3).map { _ in try freePort() }
    return try (0..<3).map { node in
      try NATSServer(
        port: clients[node],
        cluster: ClusterRoute(
          name: "livelog", port: routes[node], routes: routes.indices.filter { $0 != node }.map { routes[$0] }
        ),
        monitorPort: monitors[node])
    }
  }

  /// Every port `freePort` has handed out in this process.
  private static let handedOut = Mutex<Set<Int>>([])

  /// A port nothing listens on now and this process has not handed out before: the kernel's pick
  /// for a socket bound to port 0. The kernel may pick a port again once its socket is closed,
  /// and the cluster tests start their clusters at once: two servers given one port would leave
  /// a cluster of two nodes, where a stream of three copies can never be placed (a CI run failed
  /// with "no suitable peers for placement" for a whole minute; a port handed out twice is one
  /// way to get there).
  static func freePort() throws -> Int {
    for _ in 0..<100 {
      let port = try unboundPort()
      if handedOut.withLock({ $0.insert(port).inserted }) { return port }
    }
    throw POSIXError(.EADDRNOTAVAIL)
  }

  /// The kernel's pick for a socket bound to port 0, which it closes.
  private static func unboundPort() throws -> Int {
    let socket = tcpSocket()
    defer { close(socket) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
        bind(socket, pointer, length) == 0 && getsockname(socket, pointer, &length) == 0
      }
    }
    guard bound else { throw POSIXError(.EADDRNOTAVAIL) }
    return Int(UInt16(bigEndian: address.sin_port))
  }

  private static func accepts(_ port: Int) -> Bool {
    guard let socket = connectedSocket(port) else { return false }
    close(socket)
    return true
  }

  /// A TCP socket connected to `port` on loopback (the caller closes it), or `nil`.
  static func connectedSocket(_ port: Int) -> Int32? {
    let socket = tcpSocket()
    guard socket >= 0 else { return nil }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = UInt16(port).bigEndian
    let connected = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
      }
    }
    guard connected else {
      close(socket)
      return nil
    }
    return socket
  }
}

/// A TCP socket (`socket(2)`; the stream type's spelling differs between Glibc and Darwin).
private func tcpSocket() -> Int32 {
  #if canImport(Glibc)
    socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
  #else
    socket(AF_INET, SOCK_STREAM, 0)
  #endif
}
