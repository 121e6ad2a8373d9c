/// One entry of the log: a change to one record of one collection, or a new version of a
/// collection's schema, at a log sequence number.
public struct Event: Sendable, Hashable {
  /// What an event records.
  public enum Change: Sendable, Hashable {
    /// The record, inserted or replacing the stored one with the same key; its values follow the
    /// schema version the event was written with.
    case upsert(RecordValues)
    /// The record with this key was removed.
    case delete(PrimaryKey)
    /// The collection was created (version 1) or its schema changed: this is the new version.
    case schema(CollectionSchema)
  }

  /// The log sequence number: 1 for the first event of a store, then contiguous.
  public var lsn: UInt64
  /// When the commit that wrote the event was made.
  public var time: CommitTime
  /// The collection the event belongs to.
  public var collection: String
  /// The version of the collection's schema the event was written with (for a schema event: the
  /// version it makes).
  public var schemaVersion: Int
  /// What changed.
  public var change: Change
  /// Whether this is the last event of its commit. A commit is the contiguous run of events
  /// written by one write transaction; the store's version moves from commit end to commit end.
  public var endsCommit: Bool
  /// The record's place in its collection's insertion order (the order of unsorted results): 1
  /// for the first key ever inserted, counting up; kept by updates, new for a re-insert after a
  /// delete. 0 for schema events.
  public var row: UInt64
  /// The LSN of the version of this record that the event replaces (an upsert's previous
  /// version, or the version a delete removes); `nil` for the first insert of a key (or a
  /// re-insert). For a schema event: the LSN of the schema's previous version, if it had one.
  public var previousLSN: UInt64?

  public init(
    lsn: UInt64, time: CommitTime, collection: String, schemaVersion: Int, change: Change, endsCommit: Bool,
    row: UInt64 = 0, previousLSN: UInt64? = nil
  ) {
    self.lsn = lsn
    self.time = time
    self.collection = collection
    self.schemaVersion = schemaVersion
    self.change = change
    self.endsCommit = endsCommit
    self.row = row
    self.previousLSN = previousLSN
  }

  /// The primary key of the record the event concerns (`nil` for a schema event).
  public var key: PrimaryKey? {
    switch change {
    case .upsert(let record): record.primaryKey
    case .delete(let key): key
    case .schema: nil
    }
  }

  /// The upserted record as a `R`, or `nil` for a delete, a schema event or another
  /// collection's event.
  public func record<R: Record>(as type: R.Type) throws -> R? {
    guard collection == R.schema.declaration.name, case .upsert(let record) = change else { return nil }
    return try R(values: record)
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

extension Event.Change {
  /// The record of an upsert, or `nil`.
  public var upsertedRecord: RecordValues? {
    if case .upsert(let record) = self { return record }
    return nil
  }
}
