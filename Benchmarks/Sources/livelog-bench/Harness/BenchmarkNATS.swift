import Foundation
import LiveLog
import LiveLogReplication

/// The benchmark's own `nats-server -js` on a loopback port; with `cluster`, one node of a
/// cluster. It can be killed and started again on the same ports and files.
final class BenchmarkNATSServer {
  private var process: Process
  private let executable: String
  private let arguments: [String]
  let url: String
  /// The server's name (`--name`): what a stream's cluster information calls its leader.
  let name: String
  let monitorPort: Int?

  init(directory: URL, port: Int? = nil, cluster: (port: Int, routes: [Int])? = nil, monitorPort: Int? = nil)
    throws
  {
    let candidates = ["/usr/sbin/nats-server", "/usr/bin/nats-server", "/usr/local/bin/nats-server"]
    guard let executable = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) })
    else {
      throw MissingServer()
    }
    let port = port ?? 20_000 + Int(ProcessInfo.processInfo.processIdentifier % 20_000)
    self.executable = executable
    self.monitorPort = monitorPort
    url = "nats://127.0.0.1:\(port)"
    name = "bench\(port)"
    var arguments = ["-js", "-a", "127.0.0.1", "-p", String(port), "-sd", directory.path, "--name", name]
    if let monitorPort { arguments += ["-m", String(monitorPort)] }
    if let cluster {
      arguments += [
        "--cluster_name", "bench", "--cluster", "nats://127.0.0.1:\(cluster.port)", "--routes",
        cluster.routes.map { "nats://127.0.0.1:\($0)" }.joined(separator: ","),
      ]
    }
    self.arguments = arguments
    process = Process()
    try start()
  }

  /// Starts the server (again, after `kill`).
  func start() throws {
    process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
  }

  /// The store's replication through this server, once the server answers (at most 10 s).
  func replication(_ store: Store, stream: String) throws -> Replication {
    try openReplication(store, ReplicationConfiguration(servers: [url], stream: stream), seconds: 10)
  }

  /// SIGKILL: a crash.
  func kill() {
    guard process.isRunning else { return }
    Foundation.kill(process.processIdentifier, SIGKILL)
    process.waitUntilExit()
  }

  func stop() {
    guard process.isRunning else { return }
    process.terminate()
    process.waitUntilExit()
  }
}

/// Three servers of one JetStream cluster on loopback, each with a monitoring port.
final class BenchmarkCluster {
  let nodes: [BenchmarkNATSServer]

  init(directory: URL) throws {
    let ports = try (0..<9).map { _ in try freeLoopbackPort() }
    let clients = Array(ports[0..<3])
    let routes = Array(ports[3..<6])
    let monitors = Array(ports[6..<9])
    nodes = try (0..<3).map { node in
      let folder = directory.appendingPathComponent("node\(node)")
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
      return try BenchmarkNATSServer(
        directory: folder, port: clients[node],
        cluster: (routes[node], routes.indices.filter { $0 != node }.map { routes[$0] }),
        monitorPort: monitors[node])
    }
  }

  /// A stream of three copies; waits (at most 60 s) for the cluster to elect its leaders.
  func replication(_ store: Store, stream: String) throws -> Replication {
    var configuration = ReplicationConfiguration(servers: nodes.map(\.url), stream: stream)
    configuration.replicas = 3
    configuration.timeoutMilliseconds = 1000
    configuration.attempts = 3
    return try openReplication(store, configuration, seconds: 60)
  }

  /// The stream's details as each node's monitoring endpoint gives them (`nil`: no answer).
  private func details(of stream: String) -> [[String: Any]?] {
    nodes.map { node in
      guard let port = node.monitorPort,
        let body = httpGet(port: port, path: "/jsz?accounts=true&streams=true"),
        let document = try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any]
      else { return nil }
      for account in document["account_details"] as? [[String: Any]] ?? [] {
        for detail in account["stream_detail"] as? [[String: Any]] ?? []
        where detail["name"] as? String == stream {
          return detail
        }
      }
      return nil
    }
  }

  /// The node that leads `stream`, as the nodes report it.
  func leader(of stream: String) -> Int? {
    for detail in details(of: stream) {
      guard let name = (detail?["cluster"] as? [String: Any])?["leader"] as? String else { continue }
      if let index = nodes.firstIndex(where: { $0.name == name }) { return index }
    }
    return nil
  }

  /// The last sequence of each node's own copy of `stream`.
  func copies(of stream: String) -> [UInt64?] {
    details(of: stream).map { (($0?["state"] as? [String: Any])?["last_seq"] as? NSNumber)?.uint64Value }
  }

  func stop() { for node in nodes { node.stop() } }
}

/// Opens a replication, again while no server answers or the cluster elects its leaders.
private func openReplication(_ store: Store, _ configuration: ReplicationConfiguration, seconds: Double)
  throws
  -> Replication
{
  let deadline = Date().addingTimeInterval(seconds)
  while true {
    do {
      return try Replication(store: store, configuration: configuration)
    } catch let error as ReplicationError where Date() < deadline {
      if case .diverged = error { throw error }
      usleep(100_000)
    }
  }
}

/// A loopback port nothing listens on now: the kernel's pick for a socket bound to port 0.
func freeLoopbackPort() throws -> Int {
  let socket = loopbackSocket()
  defer { close(socket) }
  var address = loopbackAddress(port: 0)
  var length = socklen_t(MemoryLayout<sockaddr_in>.size)
  let bound = withUnsafeMutablePointer(to: &address) {
    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
      bind(socket, pointer, length) == 0 && getsockname(socket, pointer, &length) == 0
    }
  }
  guard bound else { throw POSIXError(.EADDRNOTAVAIL) }
  return Int(UInt16(bigEndian: address.sin_port))
}

/// A blocking HTTP/1.0 GET on loopback (the servers' monitoring endpoints); `nil` on any failure.
func httpGet(port: Int, path: String) -> String? {
  let fd = loopbackSocket()
  guard fd >= 0 else { return nil }
  defer { close(fd) }
  var timeout = timeval(tv_sec: 2, tv_usec: 0)
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
  var address = loopbackAddress(port: port)
  let connected = withUnsafePointer(to: &address) {
    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
      connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
    }
  }
  guard connected else { return nil }
  let request = Array("GET \(path) HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n".utf8)
  guard request.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, 0) }) == request.count else {
    return nil
  }
  var response: [UInt8] = []
  var buffer = [UInt8](repeating: 0, count: 65_536)
  while true {
    let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
    guard count >= 0 else { return nil }
    if count == 0 { break }
    response += buffer[0..<count]
  }
  let text = String(decoding: response, as: UTF8.self)
  guard text.hasPrefix("HTTP/1.") && text.contains(" 200 "), let body = text.range(of: "\r\n\r\n") else {
    return nil
  }
  return String(text[body.upperBound...])
}

private func loopbackAddress(port: Int) -> sockaddr_in {
  var address = sockaddr_in()
  address.sin_family = sa_family_t(AF_INET)
  address.sin_addr.s_addr = inet_addr("127.0.0.1")
  address.sin_port = UInt16(port).bigEndian
  return address
}

/// A TCP socket (`socket(2)`; the stream type's spelling differs between Glibc and Darwin).
private func loopbackSocket() -> Int32 {
  #if canImport(Glibc)
    socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
  #else
    socket(AF_INET, SOCK_STREAM, 0)
  #endif
}

private struct MissingServer: Error, CustomStringConvertible {
  var description: String {
    "nats-server is not installed: `make bench` installs it (apt-get install nats-server)"
  }
}
