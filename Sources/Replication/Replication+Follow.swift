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
  /// Runs as a replica: applies the stream's commits from the store's position on, as they
  /// come, until `shouldStop` returns true (it is asked at least every `pollMilliseconds`).
  /// Each commit is applied in one transaction with its stream position, so a follower ended at
  /// any moment resumes exactly; a commit this store's own writes (or another follower of it)
  /// applied first is skipped. Throws `ReplicationError.diverged` — and applies nothing more —
  /// when the stream and the store disagree (see `Docs/Replication.md`).
  public func follow(
    pollMilliseconds: Int64 = 200, shouldStop: @Sendable () -> Bool,
    applied: (FollowedCommit) -> Void = { _ in }
  ) throws {
    try gate.verifyPosition()
    let start = (try store.streamPosition()?.sequence ?? 0) + 1
    let subscription = try jetStream.subscribe(
      configuration.stream, subject: CommitMessage.subject(stream: configuration.stream), from: start)
    var lastCheck = ContinuousClock.now
    while !shouldStop() {
      if let message = try subscription.next(timeout: pollMilliseconds) {
        if try gate.apply(message), let position = try store.streamPosition() {
          let first = message.headers[CommitMessage.firstLSNHeader].flatMap(UInt64.init) ?? position.lsn
          applied(
            FollowedCommit(
              sequence: message.sequence, firstLSN: first, lastLSN: position.lsn, lag: message.pending))
        }
      }
      // A stream rewound under the follower may never deliver again: look at it every second.
      if ContinuousClock.now - lastCheck > .seconds(1) {
        try gate.verifyPosition()
        lastCheck = ContinuousClock.now
      }
    }
  }
}
