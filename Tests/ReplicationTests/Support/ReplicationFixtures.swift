import Dispatch
import Foundation
import LiveLog
import Synchronization
import TestSupport

@testable import LiveLogReplication

/// The record the replication tests write.
struct Note: Record, Hashable {
  var id: Int64
  var text: String
  var score: Int

  static let schema = Schema<Note>(
    "notes",
    fields: [.field("text", \.text, indexes: .substring), .field("score", \.score, indexes: .ordered)])
}

enum Fixtures {
  /// A store in `directory`, without fsync (the tests' stores are thrown away).
  static func store(_ directory: String) throws -> Store {
    var options = StoreOptions()
    options.durability = .noSync
    return try Store(directory: directory, options: options)
  }

  static func replication(_ store: Store, _ server: NATSServer, stream: String = "notes") throws
    -> Replication
  {
    var configuration = ReplicationConfiguration(servers: [server.url], stream: stream)
    configuration.timeoutMilliseconds = 3000
    return try Replication(store: store, configuration: configuration)
  }

  /// Waits (at most `seconds`) until `condition` holds.
  static func wait(_ what: String, seconds: Double = 10, _ condition: () throws -> Bool) throws {
    let deadline = Date().addingTimeInterval(seconds)
    while try !condition() {
      guard Date() < deadline else { throw Timeout(what: what, seconds: seconds) }
      usleep(10_000)
    }
  }

  /// `wait` for what a task must make true: it sleeps without holding a thread of the
  /// cooperative pool, which has only as many as the machine has cores, and which other suites'
  /// blocking tests (the cluster's, for a minute) may hold meanwhile.
  static func waitAsync(_ what: String, seconds: Double = 10, _ condition: () throws -> Bool) async throws {
    let deadline = Date().addingTimeInterval(seconds)
    while try !condition() {
      guard Date() < deadline else { throw Timeout(what: what, seconds: seconds) }
      try await Task.sleep(nanoseconds: 10_000_000)
    }
  }

  struct Timeout: Error, CustomStringConvertible {
    var what: String
    var seconds: Double
    var description: String { "timed out after \(Int(seconds)) s waiting for \(what)" }
  }
}

/// A writer and a replica in one temporary directory, both replicating through one server.
struct StorePair {
  let directory: TemporaryDirectory
  let writer: Store
  let replica: Store
  let writing: Replication
  let following: Replication

  init(_ server: NATSServer) throws {
    directory = try TemporaryDirectory()
    writer = try Fixtures.store(directory.child("writer"))
    replica = try Fixtures.store(directory.child("replica"))
    writing = try Fixtures.replication(writer, server)
    following = try Fixtures.replication(replica, server)
  }
}

/// `Replication.follow` on a thread of its own, until stopped.
final class BackgroundFollower: Sendable {
  private let stopping = Atomic<Bool>(false)
  private let outcome = Mutex<Result<Int, any Error>?>(nil)
  private let finished = DispatchSemaphore(value: 0)
  let applied = Atomic<Int>(0)

  init(_ replication: Replication) {
    DispatchQueue.global().async { [self] in
      let result = Result { () throws -> Int in
        try replication.follow(
          pollMilliseconds: 50, shouldStop: { self.stopping.load(ordering: .relaxed) },
          applied: { _ in self.applied.add(1, ordering: .relaxed) })
        return self.applied.load(ordering: .relaxed)
      }
      outcome.withLock { $0 = result }
      finished.signal()
    }
  }

  /// The error the follower ended with, if it ended (without being stopped).
  var failure: (any Error)? {
    outcome.withLock { result in
      if case .failure(let error)? = result { return error }
      return nil
    }
  }

  /// Stops the follower and returns how many commits it applied, or throws what it ended with.
  @discardableResult
  func stop() throws -> Int {
    stopping.store(true, ordering: .relaxed)
    finished.wait()
    return try (outcome.withLock { $0 } ?? .success(0)).get()
  }
}
