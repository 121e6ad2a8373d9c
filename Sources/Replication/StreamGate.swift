import Foundation
@_spi(Replication) import LiveLog
import Synchronization

/// The gate every commit of a replicating store passes, and what applies the stream's commits.
final class StreamGate: CommitGate {
  let store: Store
  let jetStream: JetStream
  let stream: String
  let subject: String
  let attempts: Int
  let registration: Registration
  /// How long messages after the store's position may stay an incomplete commit before a
  /// writer publishes after them, abandoning it: its writer died, or stalled longer than one
  /// request may take.
  let abandonAfter: Duration
  /// The incomplete commit the last catch-up left after the store's position, and since when.
  private let tail = Mutex<(after: UInt64, head: UInt64, since: ContinuousClock.Instant)?>(nil)

  init(
    store: Store, jetStream: JetStream, configuration: ReplicationConfiguration, registration: Registration
  ) {
    self.store = store
    self.jetStream = jetStream
    stream = configuration.stream
    subject = CommitMessage.subject(stream: configuration.stream)
    attempts = max(1, configuration.attempts)
    self.registration = registration
    abandonAfter = .milliseconds(configuration.timeoutMilliseconds)
  }

  func admit(_ commit: EncodedCommit, after position: StreamPosition?) throws -> StreamPosition {
    let sequence = position?.sequence ?? 0
    // The position before this commit is committed already: a writer that never follows or
    // catches up still tells, now and then, how far purges may go.
    registration.registerIfDue(sequence)
    let version = position?.lsn ?? 0
    guard commit.firstLSN == version + 1 else {
      throw ReplicationError.notInStream(
        path: store.directory, version: commit.firstLSN - 1, streamPosition: version)
    }
    let after = abandonedTail(after: sequence) ?? sequence
    let messages = CommitMessage.messages(
      commit, stream: stream, maximumPayload: jetStream.maximumPayload, after: after)
    for (index, message) in messages.enumerated() {
      try publish(message, at: after + UInt64(index) + 1, commit: commit, version: version)
    }
    return StreamPosition(stream: stream, sequence: after + UInt64(messages.count), lsn: commit.lastLSN)
  }

  /// Publishes one message of a commit on the condition that it takes `sequence`; returns when
  /// it did, throws `StoreIsBehind` when another writer's message is there.
  private func publish(
    _ message: (payload: [UInt8], headers: [(String, String)], id: String), at sequence: UInt64,
    commit: EncodedCommit, version: UInt64
  ) throws {
    var problem = ""
    for _ in 1...attempts {
      switch try jetStream.publish(
        subject: subject, payload: message.payload, headers: message.headers, messageID: message.id,
        expectedLastSequence: sequence - 1)
      {
      case .stored(let stored, let duplicate):
        // The id names a first LSN, which two racing writers share: a duplicate is ours only
        // when the stored message is this commit.
        if duplicate {
          guard stored == sequence, try holds(message.payload, at: stored) else { throw StoreIsBehind() }
        }
        guard stored == sequence else {
          throw ReplicationError.diverged(
            stream: stream, sequence: stored, firstLSN: commit.firstLSN, version: version,
            reason:
              "the stream stored the commit at \(stored), though it expected its last sequence to be \(sequence - 1)"
          )
        }
        return
      case .wrongLastSequence:
        // An earlier attempt whose acknowledgement was lost (or this commit's transaction, run
        // again after the map grew) may be what moved the stream on.
        if try holds(message.payload, at: sequence) { return }
        throw StoreIsBehind()
      case .tooLarge(let detail):
        throw ReplicationError.commitTooLarge(bytes: message.payload.count, detail: detail)
      case .noAnswer(let detail):
        // "No responders" comes at once while the stream elects a leader: give it a moment.
        problem = detail
        usleep(200_000)
      }
    }
    throw ReplicationError.unacknowledged(
      stream: stream, messageID: message.id, attempts: attempts, detail: problem)
  }

  /// The stream's head when the messages after `sequence` have been an incomplete commit for
  /// longer than `abandonAfter`: the next commit goes after them.
  private func abandonedTail(after sequence: UInt64) -> UInt64? {
    tail.withLock { tail in
      guard let tail, tail.after == sequence, ContinuousClock.now - tail.since >= abandonAfter else {
        return nil
      }
      return tail.head
    }
  }

  /// Notes what the store's last catch-up left unread after `sequence`, up to `head`: the
  /// parts of a commit its writer is still publishing, or never finished.
  private func noteTail(after sequence: UInt64, head: UInt64) {
    let waiting = tail.withLock { tail -> Bool in
      guard sequence < head else {
        tail = nil
        return false
      }
      if tail?.after != sequence || tail?.head != head { tail = (sequence, head, .now) }
      return true
    }
    // A writer retries at once when its commit was refused: let the other writer go on.
    if waiting { usleep(20_000) }
  }

  func catchUp() throws { _ = try catchUpCounting() }

  /// From this many messages to read on, a catch-up streams them through an ordered consumer
  /// instead of asking for each (`js_GetMsg`, a round trip per message).
  static let streamingThreshold: UInt64 = 8

  /// Applies the stream's messages from the store's position to the stream's head as it is now,
  /// up to `batchCommits` commits (or `batchBytes` of them) in a transaction.
  func catchUpCounting() throws -> Int {
    let state = try currentState()
    let head = state.lastSequence
    let position = try store.streamPosition()
    try check(state, position)
    var assembler = CommitAssembler(after: position?.sequence ?? 0)
    var next = assembler.previous + 1
    var applied = 0
    var batch: [ReplicatedCommit] = []
    var bytes = 0
    func flush() throws {
      applied += try apply(batch)
      batch.removeAll()
      bytes = 0
    }
    func take(_ message: StreamMessage) throws {
      next = message.sequence + 1
      guard let whole = assembler.add(message) else { return }
      let (decoded, firstLSN, reason) = CommitMessage.commit(whole)
      guard let commit = decoded else {
        try flush()
        throw ReplicationError.diverged(
          stream: stream, sequence: whole.sequence, firstLSN: firstLSN, version: try store.version(),
          reason: "the message cannot be applied: \(reason)")
      }
      batch.append(
        ReplicatedCommit(
          commit: commit,
          position: StreamPosition(stream: stream, sequence: whole.sequence, lsn: commit.lastLSN),
          previous: assembler.previous))
      assembler.applied(through: whole.sequence)
      bytes += whole.payload.count
      if batch.count >= Self.batchCommits || bytes >= Self.batchBytes { try flush() }
    }
    if head >= next + Self.streamingThreshold {
      let subscription = try jetStream.subscribe(stream, subject: subject, from: next)
      // What does not come in time (or out of order) is asked for one by one below.
      while next <= head, let message = try subscription.next(timeout: jetStream.timeout),
        message.sequence == next
      {
        try take(message)
      }
    }
    while next <= head {
      guard let message = try jetStream.message(stream, at: next) else {
        try flush()
        throw ReplicationError.diverged(
          stream: stream, sequence: next, firstLSN: nil, version: try store.version(),
          reason: "the stream has no message there, though its head is \(head)")
      }
      try take(message)
    }
    try flush()
    noteTail(after: assembler.previous, head: head)
    registration.registerIfDue(assembler.previous)
    return applied
  }

  /// Commits a catch-up applies in one transaction, at most.
  static let batchCommits = 256
  /// Bytes of commits a catch-up applies in one transaction, at most (past the commit that
  /// reaches it).
  static let batchBytes = 8 << 20

  /// Applies consecutive commits in as few transactions as the store allows; returns how many
  /// it applied (those the store had applied already are checked, and not counted).
  private func apply(_ commits: [ReplicatedCommit]) throws -> Int {
    var rest = commits[...]
    var applied = 0
    while !rest.isEmpty {
      let (count, stopped) = try store.applyReplicated(Array(rest))
      applied += count
      rest = rest.dropFirst(count)
      guard let stopped, let item = rest.first else { break }
      try settle(stopped, item)
      rest = rest.dropFirst()
    }
    return applied
  }

  /// Takes the next message of the stream (in order, after `assembler.previous`) and applies
  /// the commit it completes; true when this call applied one. A store that another process
  /// (or this one's writes) moved past the assembler's position is read on from there.
  func consume(_ message: StreamMessage, _ assembler: inout CommitAssembler) throws -> Bool {
    let current = try store.streamPosition()?.sequence ?? 0
    if current > assembler.previous, message.sequence > current {
      assembler = CommitAssembler(after: current)
    }
    guard let whole = assembler.add(message) else { return false }
    let applied = try apply(whole, after: assembler.previous)
    assembler.applied(through: whole.sequence)
    return applied
  }

  /// Applies a commit (one message, or its parts joined) whose last message is at
  /// `message.sequence`, the store standing at `previous`; false when the store had applied it
  /// already (it checks then that the store holds the same events).
  private func apply(_ message: StreamMessage, after previous: UInt64) throws -> Bool {
    let (decoded, firstLSN, reason) = CommitMessage.commit(message)
    guard let commit = decoded else {
      throw ReplicationError.diverged(
        stream: stream, sequence: message.sequence, firstLSN: firstLSN, version: try store.version(),
        reason: "the message cannot be applied: \(reason)")
    }
    let position = StreamPosition(stream: stream, sequence: message.sequence, lsn: commit.lastLSN)
    let outcome = try store.applyReplicated(commit, at: position, after: previous)
    guard outcome != .applied else { return true }
    try settle(outcome, ReplicatedCommit(commit: commit, position: position, previous: previous))
    return false
  }

  /// What a commit the store did not apply means: nothing, when the store holds it already
  /// (checked); a divergence otherwise.
  private func settle(_ outcome: ReplicatedApply, _ item: ReplicatedCommit) throws {
    let (commit, sequence) = (item.commit, item.position.sequence)
    switch outcome {
    case .applied:
      return
    case .alreadyApplied(let current):
      guard commit.lastLSN <= current.lsn,
        try store.loggedCommit(from: commit.firstLSN, through: commit.lastLSN) == commit,
        sequence != current.sequence || commit.lastLSN == current.lsn
      else {
        throw ReplicationError.diverged(
          stream: stream, sequence: sequence, firstLSN: commit.firstLSN, version: current.lsn,
          reason: "the store applied another commit at this position")
      }
    case .notNext(let current, let version):
      let applied = current?.sequence ?? 0
      let why =
        applied != item.previous
        ? "the store's position is \(applied), so the next commit it can apply is at \(applied + 1)"
        : "its first LSN is not the store's version + 1"
      throw ReplicationError.diverged(
        stream: stream, sequence: sequence, firstLSN: commit.firstLSN, version: version, reason: why)
    case .otherHistory(let version):
      throw ReplicationError.diverged(
        stream: stream, sequence: sequence, firstLSN: commit.firstLSN, version: version,
        reason: "the commit was made after another event \(version) than the store's (its previous checksum "
          + "differs): the stream holds another history")
    }
  }

  /// Checks that the stream still holds, at the store's position, the commit the store applied
  /// there: a stream deleted and made again, or rewound by a server that lost acknowledged
  /// messages, shows here.
  /// Returns the stream's head.
  @discardableResult
  func verifyPosition() throws -> UInt64 {
    let state = try currentState()
    let head = state.lastSequence
    let position = try store.streamPosition()
    try check(state, position)
    guard let position, position.sequence > 0 else { return head }
    let mismatch = { (reason: String, first: UInt64?) in
      ReplicationError.diverged(
        stream: self.stream, sequence: position.sequence, firstLSN: first, version: position.lsn,
        reason: reason)
    }
    guard let message = try jetStream.message(stream, at: position.sequence) else {
      throw mismatch("the stream no longer holds the message the store applied last", nil)
    }
    if case .part = CommitMessage.share(message) {
      try verifyLastPart(message, position, mismatch)
      return head
    }
    let (decoded, firstLSN, reason) = CommitMessage.commit(message)
    guard let commit = decoded else {
      throw mismatch("the message there cannot be read: \(reason)", firstLSN)
    }
    guard commit.lastLSN == position.lsn,
      try store.loggedCommit(from: commit.firstLSN, through: commit.lastLSN) == commit
    else { throw mismatch("the stream's message there is not the commit the store applied", commit.firstLSN) }
    return head
  }

  /// Checks the last part of a commit at the store's position against the commit the store
  /// applied there, without reading the other parts (this runs every second while following):
  /// the same LSNs and previous checksum, and a payload that ends the store's encoding of the
  /// commit — whose last event's checksum covers its LSN.
  private func verifyLastPart(
    _ message: StreamMessage, _ position: StreamPosition, _ mismatch: (String, UInt64?) -> ReplicationError
  ) throws {
    let first = message.headers[CommitMessage.firstLSNHeader].flatMap(UInt64.init)
    guard case .part(let index, let count) = CommitMessage.share(message), index == count - 1, let first,
      first >= 1, first <= position.lsn,
      message.headers[CommitMessage.lastLSNHeader].flatMap(UInt64.init) == position.lsn
    else {
      throw mismatch("the stream's message there is not the end of the commit the store applied", first)
    }
    let commit = try store.loggedCommit(from: first, through: position.lsn)
    guard message.headers[CommitMessage.previousHeader] == String(commit.previousChecksum, radix: 16),
      CommitMessage.payload(commit).suffix(message.payload.count).elementsEqual(message.payload)
    else { throw mismatch("the stream's message there is not the commit the store applied", first) }
  }

  /// The sequence of the first message of the commit whose last message is at `sequence`: its
  /// first part's, or `sequence` itself for a commit of one message.
  static func firstSequence(ofCommitEndingAt sequence: UInt64, in stream: String, _ jetStream: JetStream)
    throws
    -> UInt64
  {
    guard let last = try jetStream.message(stream, at: sequence),
      case .part(let index, _) = CommitMessage.share(last), sequence > UInt64(index)
    else { return sequence }
    return sequence - UInt64(index)
  }

  /// The stream's state; none (0, 0) when the stream is gone (deleted under the store).
  private func currentState() throws -> StreamState {
    try jetStream.streamState(stream) ?? StreamState(firstSequence: 0, lastSequence: 0)
  }

  /// Checks that the stream holds what the store needs to go on: the message at its position
  /// (to check it) and every one after it.
  private func check(_ state: StreamState, _ position: StreamPosition?) throws {
    let sequence = position?.sequence ?? 0
    if let position, state.lastSequence < sequence {
      // While a clustered stream has no leader, nats-server 2.9 lets any of its copies answer for
      // it, a lagging one too: the head counts as below the store only when the stream does not
      // hold the store's last message either.
      if try jetStream.message(stream, at: sequence) != nil { return }
      throw ReplicationError.diverged(
        stream: stream, sequence: state.lastSequence, firstLSN: nil, version: position.lsn,
        reason:
          "the stream's head (\(state.lastSequence)) is below what the store has applied (\(sequence)): "
          + "the stream lost acknowledged commits, or was deleted and made again")
    }
    if state.firstSequence > max(sequence, 1) {
      throw ReplicationError.purged(stream: stream, sequence: sequence, firstSequence: state.firstSequence)
    }
  }

  /// Whether the stream's message at `sequence` carries exactly `payload`.
  private func holds(_ payload: [UInt8], at sequence: UInt64) throws -> Bool {
    try jetStream.message(stream, at: sequence)?.payload == payload
  }
}
