#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Group commit: write transactions that arrive while another is committing wait for it, then run
/// together in the next transaction, each nested in it, so that they share one commit and its
/// fsyncs. Each caller returns only once its own writes are committed (durable in the
/// environment's durability), or throws its own error without affecting the others.
///
/// The first caller to find no group in flight leads: it takes every waiting request, runs them on
/// its own thread (LMDB wants a write transaction on one thread) and wakes the others. A lone
/// writer forms a group of one and runs as `Environment.write` does, without nesting.
final class CommitGroup: @unchecked Sendable {
  // @unchecked: every field is read and written with `mutex` held, and a request's outcome is
  // written by the leader before it marks the request done under `mutex`.
  private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
  private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
  private var waiting: [Request] = []
  private var leading = false
  /// Transactions committed, and the requests they carried (for tests and statistics).
  private var transactions = 0
  private var requests = 0

  final class Request {
    let body: (WriteTransaction) throws -> Void
    var failure: (any Error)?
    var done = false

    init(_ body: @escaping (WriteTransaction) throws -> Void) { self.body = body }
  }

  init() {
    mutex.initialize(to: pthread_mutex_t())
    pthread_mutex_init(mutex, nil)
    condition.initialize(to: pthread_cond_t())
    pthread_cond_init(condition, nil)
  }

  deinit {
    pthread_cond_destroy(condition)
    pthread_mutex_destroy(mutex)
    condition.deallocate()
    mutex.deallocate()
  }

  /// Runs `request` in a group, through `write` (one transaction per group); returns once its
  /// group is committed.
  func submit(_ request: Request, write: ([Request]) -> Void) throws {
    pthread_mutex_lock(mutex)
    waiting.append(request)
    while !request.done {
      if leading {
        pthread_cond_wait(condition, mutex)
        continue
      }
      leading = true
      let group = waiting
      waiting = []
      pthread_mutex_unlock(mutex)
      write(group)
      pthread_mutex_lock(mutex)
      for member in group { member.done = true }
      transactions += 1
      requests += group.count
      leading = false
      pthread_cond_broadcast(condition)
    }
    pthread_mutex_unlock(mutex)
    if let failure = request.failure { throw failure }
  }

  /// Requests waiting for the group in flight to end.
  var waitingCount: Int {
    pthread_mutex_lock(mutex)
    defer { pthread_mutex_unlock(mutex) }
    return waiting.count
  }

  /// Transactions committed through the group, and the requests they carried.
  var counts: (transactions: Int, requests: Int) {
    pthread_mutex_lock(mutex)
    defer { pthread_mutex_unlock(mutex) }
    return (transactions, requests)
  }
}

extension Environment {
  /// `write(_:)` with group commit (`CommitGroup`): when other threads write at the same time,
  /// their transactions and this one may share one commit, each nested in it; `body` may then run
  /// on another writer's thread, and runs again, as in `write`, when the map grows. A throw of
  /// `body` undoes only its own writes.
  public func writeGrouped<R>(_ body: (WriteTransaction) throws -> R) throws -> R {
    try withoutActuallyEscaping(body) { body in
      var value: R?
      let request = CommitGroup.Request { txn in value = try body(txn) }
      try commitGroup.submit(request) { group in commitTogether(group) }
      guard let value else {
        throw LMDBError(code: EINVAL, operation: "writeGrouped", message: "a group ended without its value")
      }
      return value
    }
  }

  /// (Transactions, requests) committed through `writeGrouped` so far.
  public var groupCommitCounts: (transactions: Int, requests: Int) { commitGroup.counts }

  private func commitTogether(_ group: [CommitGroup.Request]) {
    do {
      try write { txn in
        if group.count == 1 {
          try group[0].body(txn)
          group[0].failure = nil
          return
        }
        for request in group {
          do {
            try txn.nested { try request.body($0) }
            request.failure = nil
          } catch {
            // A full map undoes the whole group, which runs again once the map has grown.
            if txn.hasHitMapFull { throw error }
            request.failure = error
          }
        }
      }
    } catch {
      for request in group where request.failure == nil || group.count == 1 { request.failure = error }
    }
  }
}
