/// Puts the parts of commits larger than a message back together, as a reader meets the
/// stream's messages in order from a store's position.
///
/// A commit's parts are consecutive messages `0/n` … `n-1/n` with the same LSN headers. A part
/// followed by anything but the commit's next part belongs to a commit that was never
/// completed — its writer died, or another writer published first — and is skipped: no store
/// applies it, and the writer of an incomplete commit never returned from its write.
struct CommitAssembler {
  /// The stream sequence the store stood at before the messages being read: every message
  /// after it and before the next commit is a part of a commit never completed.
  private(set) var previous: UInt64
  private var parts: [StreamMessage] = []

  init(after sequence: UInt64) { previous = sequence }

  /// Whether messages after `previous` were read without completing a commit.
  var holdsParts: Bool { !parts.isEmpty }

  /// Takes the next message of the stream; returns the commit it completes as one message (the
  /// whole payload, at the sequence of its last part), or `nil` when it completes none.
  mutating func add(_ message: StreamMessage) -> StreamMessage? {
    switch CommitMessage.share(message) {
    case .whole, .unreadable:
      // An unreadable part header fails when the message is decoded, naming the position.
      parts = []
      return message
    case .part(let index, let count):
      if index == 0 {
        parts = [message]
      } else if let last = parts.last, last.sequence + 1 == message.sequence, parts.count == index,
        CommitMessage.share(last) == .part(index: index - 1, count: count), sameCommit(last, message)
      {
        parts.append(message)
      } else {
        parts = []
        return nil
      }
      guard parts.count == count else { return nil }
      var whole = message
      whole.payload = parts.flatMap(\.payload)
      whole.headers[CommitMessage.partHeader] = nil
      parts = []
      return whole
    }
  }

  /// The store stands at `sequence` now: reading goes on after it.
  mutating func applied(through sequence: UInt64) {
    previous = sequence
    parts = []
  }

  private func sameCommit(_ a: StreamMessage, _ b: StreamMessage) -> Bool {
    [CommitMessage.firstLSNHeader, CommitMessage.lastLSNHeader, CommitMessage.previousHeader].allSatisfy {
      a.headers[$0] == b.headers[$0]
    }
  }
}
