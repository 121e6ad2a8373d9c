/// One entry of the log: a change to one repository, at a log sequence number.
public struct Event: Sendable, Hashable {
  /// The log sequence number: 1 for the first event of a store, then contiguous.
  public var lsn: UInt64
  /// When the commit that wrote the event was made.
  public var time: CommitTime
  /// What changed.
  public var mutation: Mutation
  /// Whether this is the last event of its commit. A commit is the contiguous run of events
  /// written by one write transaction; the store's version moves from commit end to commit end.
  public var endsCommit: Bool
  /// The repository's place in insertion order (the order of unsorted results): 1 for the first
  /// id ever inserted, counting up; kept by updates, new for a re-insert after a delete.
  public var row: UInt64
  /// The LSN of the version of this id that the event replaces (an upsert's previous version, or
  /// the version a delete removes); `nil` for the first insert of an id (or a re-insert).
  public var previousLSN: UInt64?

  public init(
    lsn: UInt64, time: CommitTime, mutation: Mutation, endsCommit: Bool, row: UInt64 = 0,
    previousLSN: UInt64? = nil
  ) {
    self.lsn = lsn
    self.time = time
    self.mutation = mutation
    self.endsCommit = endsCommit
    self.row = row
    self.previousLSN = previousLSN
  }
}

/// The wall-clock time of a commit, in microseconds since 1970-01-01T00:00:00Z.
public struct CommitTime: Sendable, Hashable, Comparable, CustomStringConvertible {
  public var microsecondsSince1970: Int64

  public init(microsecondsSince1970: Int64) { self.microsecondsSince1970 = microsecondsSince1970 }

  public static func < (lhs: CommitTime, rhs: CommitTime) -> Bool {
    lhs.microsecondsSince1970 < rhs.microsecondsSince1970
  }

  /// `YYYY-MM-DDTHH:MM:SS.ffffffZ`.
  public var iso8601: String {
    let micros = microsecondsSince1970
    let seconds = micros >= 0 ? micros / 1_000_000 : (micros - 999_999) / 1_000_000
    let fraction = String(micros - seconds * 1_000_000)
    let padded = String(repeating: "0", count: 6 - fraction.count) + fraction
    return String(Timestamp(secondsSince1970: seconds).iso8601.dropLast()) + ".\(padded)Z"
  }

  public var description: String { iso8601 }
}

extension Event {
  /// The bytes the log stores for this event: versioned, checksummed (see `Docs/EventLog.md`).
  public var encodedBytes: [UInt8] { EventCodec.encode(self) }

  /// Decodes and checks bytes of the log's format written under `lsn`.
  public init(decoding bytes: [UInt8], lsn: UInt64) throws {
    self = try bytes.withUnsafeBytes { try EventCodec.decode($0, lsn: lsn) }
  }
}
