import Foundation
@_spi(Replication) import LiveLog

/// A commit a follower applied from the stream.
public struct FollowedCommit: Sendable, Hashable {
  /// Its stream sequence.
  public var sequence: UInt64
  public var firstLSN: UInt64
  public var lastLSN: UInt64
  /// Commits the stream held beyond this one when it was delivered.
  public var lag: UInt64
}

extension Replication {
  /// An ordered consumer of the stream from the store's position on.
  private func subscribe() throws -> OrderedSubscription {
    try jetStream.subscribe(
      configuration.stream, subject: CommitMessage.subject(stream: configuration.stream),
      from: (try store.streamPosition()?.sequence ?? 0) + 1)
  }

  /// Runs as a replica: applies the stream's commits from the store's position on, as they
  /// come, until `shouldStop` returns true (it is asked at least every `pollMilliseconds`).
  /// Each commit is applied in one transaction with its stream position, so a follower ended at
  /// any moment resumes exactly; a commit this store's own writes (or another follower of it)
  /// applied first is skipped. Throws `ReplicationError.diverged` — and applies nothing more —
  /// when the stream and the store disagree (see `Docs/Replication.md`); other failures (no
  /// server answers, an election) go to `problem`, and it tries again a second later.
  public func follow(
    pollMilliseconds: Int64 = 200, shouldStop: @Sendable () -> Bool,
    applied: (FollowedCommit) -> Void = { _ in }, problem: (ReplicationError) -> Void = { _ in }
  ) throws {
    var subscription: OrderedSubscription?
    var assembler = CommitAssembler(after: try store.streamPosition()?.sequence ?? 0)
    do {
      try gate.verifyPosition()
      subscription = try subscribe()
    } catch let error as ReplicationError {
      if error.endsFollowing { throw error }
      problem(error)  // the loop looks at the stream, and subscribes again, a second later
    }
    var lastCheck = ContinuousClock.now
    var lastMessage = ContinuousClock.now
    // The last sequence delivered: past the store's position while a commit's parts arrive.
    var delivered: UInt64 = 0
    while !shouldStop() {
      do {
        if let message = try subscription?.next(timeout: pollMilliseconds) {
          lastMessage = ContinuousClock.now
          delivered = message.sequence
          if try gate.consume(message, &assembler), let position = try store.streamPosition() {
            let first = message.headers[CommitMessage.firstLSNHeader].flatMap(UInt64.init) ?? position.lsn
            applied(
              FollowedCommit(
                sequence: message.sequence, firstLSN: first, lastLSN: position.lsn, lag: message.pending)
            )
          }
        } else if subscription == nil {
          usleep(UInt32(pollMilliseconds) * 1000)
        }
        // A stream rewound under the follower may never deliver again: look at it every second.
        guard ContinuousClock.now - lastCheck > .seconds(1) else { continue }
        lastCheck = ContinuousClock.now
        let head = try gate.verifyPosition()
        let sequence = try store.streamPosition()?.sequence ?? 0
        gate.registration.registerIfDue(sequence)
        // An ordered consumer whose server died can stay silent; a new one starts where the store is.
        let behind = head > max(sequence, delivered)
        if subscription == nil || (behind && ContinuousClock.now - lastMessage > .seconds(2)) {
          subscription = nil
          subscription = try subscribe()
          assembler = CommitAssembler(after: sequence)
          delivered = 0
          lastMessage = ContinuousClock.now
        }
      } catch let error as ReplicationError {
        // The servers come and go (an election, a restart); only a divergence or a purge past the
        // store ends the follower.
        guard error.endsFollowing else {
          problem(error)
          subscription = nil
          continue
        }
        throw error
      }
    }
  }
}
