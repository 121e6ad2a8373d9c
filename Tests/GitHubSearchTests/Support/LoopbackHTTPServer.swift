import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// A tiny HTTP/1.1 server on 127.0.0.1, on a port of its own, for tests that need a real socket:
/// it records the head of every request it receives and answers each with `respond`'s reply.
/// One connection at a time, closed after each answer; `stop` (or deinit) ends it and its thread.
final class LoopbackHTTPServer: Sendable {
  let port: UInt16
  private let listener: Int32
  private let received = Mutex<[String]>([])
  private let stopped = Mutex(false)
  private let finished = DispatchSemaphore(value: 0)

  /// Starts listening; `respond` gets the request head and returns the whole reply.
  init(respond: @escaping @Sendable (String) -> String) throws {
    let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard socket >= 0 else { throw POSIXError(.EIO) }
    var yes: Int32 = 1
    setsockopt(socket, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard bound == 0, listen(socket, 16) == 0 else {
      close(socket)
      throw POSIXError(.EADDRINUSE)
    }
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &length) }
    }
    port = UInt16(bigEndian: address.sin_port)
    listener = socket
    let thread = Thread { [self] in serve(respond) }
    thread.start()
  }

  deinit { stop() }

  /// The heads of the requests received so far.
  var requests: [String] { received.withLock { $0 } }

  /// Stops accepting and waits for the serving thread to end.
  func stop() {
    let wasStopped = stopped.withLock { state in
      defer { state = true }
      return state
    }
    guard !wasStopped else { return }
    shutdown(listener, Int32(SHUT_RDWR))
    close(listener)
    finished.wait()
  }

  private func serve(_ respond: @Sendable (String) -> String) {
    defer { finished.signal() }
    while !stopped.withLock({ $0 }) {
      let connection = accept(listener, nil, nil)
      guard connection >= 0 else { return }
      var head = [UInt8]()
      var buffer = [UInt8](repeating: 0, count: 4096)
      while !head.ends(with: [13, 10, 13, 10]) && head.count < 1 << 16 {
        let count = read(connection, &buffer, buffer.count)
        if count <= 0 { break }
        head += buffer[..<count]
      }
      let request = String(decoding: head, as: UTF8.self)
      received.withLock { $0.append(request) }
      let reply = Array(respond(request).utf8)
      _ = reply.withUnsafeBytes { write(connection, $0.baseAddress, $0.count) }
      close(connection)
    }
  }
}

extension Array where Element == UInt8 {
  fileprivate func ends(with suffix: [UInt8]) -> Bool {
    count >= suffix.count && Array(self[(count - suffix.count)...]) == suffix
  }
}

/// An HTTP reply with a body and its length.
func httpReply(status: String, headers: [String] = [], body: String = "") -> String {
  (["HTTP/1.1 \(status)", "Content-Length: \(body.utf8.count)", "Connection: close"] + headers)
    .joined(separator: "\r\n") + "\r\n\r\n" + body
}
