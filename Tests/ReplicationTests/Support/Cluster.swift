import Foundation
import TestSupport

/// Three `nats-server -js` nodes of one cluster on loopback, each of which can be killed, paused
/// and started again on its own ports and JetStream files.
final class Cluster: @unchecked Sendable {
  // Changed only by the one test that owns the cluster, from its own thread.
  private(set) var servers: [NATSServer]

  init() throws { servers = try NATSServer.cluster() }

  var urls: [String] { servers.map(\.url) }

  /// The node the stream's cluster information names as its leader.
  func index(named name: String?) -> Int? { servers.firstIndex { $0.name == name } }

  /// Starts node `index` again after a kill (its name, ports and files unchanged).
  func restart(_ index: Int) throws {
    servers[index].stop(SIGKILL)
    servers[index] = try servers[index].restarted()
  }

  /// The last sequence of `stream` in each node's own copy (`nil` for a node that does not
  /// answer or has no copy), from the nodes' monitoring endpoints: a node that was down or paused
  /// is current again once its copy reaches the leader's.
  func copies(of stream: String) -> [UInt64?] {
    servers.map { server in
      guard let port = server.monitorPort,
        let body = HTTP.get(port: port, path: "/jsz?accounts=true&streams=true"),
        let document = try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any],
        let accounts = document["account_details"] as? [[String: Any]]
      else { return nil }
      for account in accounts {
        for detail in account["stream_detail"] as? [[String: Any]] ?? []
        where detail["name"] as? String == stream {
          return ((detail["state"] as? [String: Any])?["last_seq"] as? NSNumber)?.uint64Value
        }
      }
      return nil
    }
  }

  /// Waits until every node's copy of `stream` holds the stream up to `head` at least.
  func waitUntilCurrent(_ stream: String, head: UInt64) throws {
    try Fixtures.wait("every node's copy of \(stream) to reach \(head)", seconds: 60) {
      copies(of: stream).allSatisfy { ($0 ?? 0) >= head }
    }
  }
}

/// A blocking HTTP/1.0 GET on loopback, for the servers' monitoring endpoints.
enum HTTP {
  static func get(port: Int, path: String) -> String? {
    guard let fd = NATSServer.connectedSocket(port) else { return nil }
    defer { close(fd) }
    var timeout = timeval(tv_sec: 2, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
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
}
