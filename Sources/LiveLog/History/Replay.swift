import LMDB

/// Rebuilds a store's materialized state — records, rows and every index — from its log.
///
/// The events are copied byte for byte into the new store's log while the replayer follows, in
/// memory, where each repository ends: its row and its last version. Only then is the state
/// written, once per surviving repository, in row order and in large transactions. Repositories
/// that were updated or deleted along the way cost the log copy alone, and each posting list is
/// written in long ascending runs instead of once per commit. The rebuilt store holds the same
/// records, rows and index postings as one that received the events commit by commit; only the
/// split of posting lists into blocks may differ, which the digest does not see.
struct Replayer {
  let source: Store
  let target: Store

  /// Events per write transaction of the log copy (and of an import).
  static let eventsPerTransaction = 20_000
  /// `eventsPerTransaction`, or fewer in tests.
  var eventsPerLogTransaction = Replayer.eventsPerTransaction
  /// Repositories per write transaction of the state: large enough that most posting lists grow
  /// by long runs, small enough to keep the transaction's postings (about 100 per record, 8 bytes
  /// each, twice while sorting) within a few hundred megabytes.
  var rowsPerTransaction = 131_072

  /// Copies the source's events `1 ... last` to the empty target and builds the target's state
  /// as of `last`. Until the state is complete the target is marked unfinished and refuses to
  /// open: a replay cut short leaves no store that looks sound and is not.
  func run(through last: UInt64, progress: (ReplayProgress) -> Void) throws {
    let snapshot = try source.environment.makeSnapshot()
    var tracker = RowTracker()
    var next: UInt64 = 1
    while next <= last {
      let end = min(last, next + UInt64(eventsPerLogTransaction) - 1)
      var batch: [(lsn: UInt64, bytes: [UInt8])] = []
      batch.reserveCapacity(Int(end - next + 1))
      try snapshot.read { txn in
        try source.log.forEachRaw(from: next, through: end, txn) { lsn, bytes in
          batch.append((lsn, Array(bytes)))
          return true
        }
      }
      // Every version is decoded (checksum, header and record), not only the last: history must
      // read too (as-of queries, diffs, export), and verification is where a bad one should come
      // to light.
      let copied = batch
      let events = try ParallelMap.map(copied.count) { index in
        try copied[index].bytes.withUnsafeBytes { try EventCodec.decode($0, lsn: copied[index].lsn) }
      }
      for event in events { try tracker.follow(event) }
      let isFirst = next == 1
      try target.environment.write { txn in
        if isFirst { try target.materializer.markReplayIncomplete(txn) }
        for event in batch { try target.log.append(event.bytes, at: event.lsn, txn) }
      }
      next = end + 1
      progress(ReplayProgress(step: .copyingLog, completed: end, total: last))
    }
    let survivors = tracker.survivors()
    var start = 0
    while start < survivors.count {
      let chunk = survivors[start..<min(start + rowsPerTransaction, survivors.count)]
      try snapshot.read { sourceTxn in
        // Computed before the write: a write that outgrows the map runs again, and need not
        // index the records again.
        let records = MapPointers(values: try chunk.map { try source.log.record(at: $0.lsn, sourceTxn) })
        let rows = chunk.map(\.row)
        let entries = try ParallelMap.map(rows.count) { index in
          try Materializer.entries(of: records.values[index], row: rows[index])
        }
        try target.environment.write { txn in
          try target.materializer.insertInRowOrder(chunk, records: records.values, entries: entries, txn)
        }
      }
      start = chunk.endIndex
      progress(
        ReplayProgress(step: .buildingState, completed: UInt64(start), total: UInt64(survivors.count)))
    }
    // A store that has seen no event has no next row yet.
    guard last > 0 else { return }
    try target.environment.write { txn in
      try target.materializer.insertRowsById(survivors, nextRow: tracker.nextRow, txn)
    }
  }
}

/// Records of a read transaction, shared with the workers that index them. They point into the
/// source's map, which stays mapped while the transaction is open — for the whole parallel call,
/// since the calling thread waits inside it — and nobody writes through them.
private struct MapPointers: @unchecked Sendable {
  let values: [UnsafeRawBufferPointer]
}

/// How far a replay has come: first the log is copied (counted in events), then the state is
/// built (counted in repositories).
public struct ReplayProgress: Sendable, Hashable {
  /// The two steps of a replay, in order.
  public enum Step: Sendable, Hashable {
    /// Copying and checking events; `completed` is the last LSN copied.
    case copyingLog
    /// Writing records and indexes; `completed` counts the repositories written.
    case buildingState
  }

  /// The step under way.
  public var step: Step
  /// Events copied (`copyingLog`) or repositories written (`buildingState`) so far.
  public var completed: UInt64
  /// What the step has to do in all, in the same unit.
  public var total: UInt64

  /// The step and the count, for people: "building the state: 131,072 of 1,000,000 repositories".
  public var description: String {
    let (name, unit) =
      step == .copyingLog ? ("copying the log", "events") : ("building the state", "repositories")
    return "\(name): \(completed.formatted()) of \(total.formatted()) \(unit)"
  }

  /// The share of the step done, from 0 to 1.
  public var fractionOfStep: Double { total == 0 ? 1 : Double(completed) / Double(total) }
}

/// Where each repository stands after a run of events, checked the way a commit-by-commit replay
/// checks them: every event must agree with the state it lands on.
struct RowTracker {
  private(set) var rows: [Int64: (row: UInt64, lsn: UInt64)] = [:]
  private(set) var nextRow: UInt64 = 1

  mutating func follow(_ event: Event) throws {
    let id = event.mutation.id
    let isUpsert = if case .upsert = event.mutation { true } else { false }
    let stored = rows[id]
    try Self.check(
      lsn: event.lsn, id: id, row: event.row, previousLSN: event.previousLSN, isUpsert: isUpsert,
      stored: stored, nextRow: nextRow)
    if let stored {
      rows[id] = isUpsert ? (stored.row, event.lsn) : nil
    } else {
      rows[id] = (event.row, event.lsn)
      nextRow += 1
    }
  }

  /// Checks that an event agrees with the state it lands on: an id that is stored must be named
  /// at its row and current version; a new one must be an upsert at the next row.
  static func check(
    lsn: UInt64, id: Int64, row: UInt64, previousLSN: UInt64?, isUpsert: Bool,
    stored: (row: UInt64, lsn: UInt64)?, nextRow: UInt64
  ) throws(StoreError) {
    if let stored {
      guard stored.row == row, stored.lsn == previousLSN else {
        throw .corruptEvent(
          lsn: lsn,
          reason: "names row \(row) and version \(previousLSN.map(String.init) ?? "none"), but id \(id) "
            + "is at row \(stored.row), version \(stored.lsn)")
      }
    } else {
      guard previousLSN == nil, isUpsert, row == nextRow else {
        throw .corruptEvent(
          lsn: lsn, reason: "names row \(row) for id \(id), which is not stored (the next row is \(nextRow))")
      }
    }
  }

  /// The repositories that exist after the events, in row order.
  func survivors() -> [StoredRow] {
    rows.map { StoredRow(id: $0.key, row: $0.value.row, lsn: $0.value.lsn) }.sorted { $0.row < $1.row }
  }
}

/// A repository's place in the state: its id, row and the LSN of its current version.
struct StoredRow {
  var id: Int64
  var row: UInt64
  var lsn: UInt64
}

/// Appends events, as bytes of the log's own format, to a store and materializes them: the
/// common core of replay and import.
struct EventApplier {
  let target: Store

  /// Appends and applies `events` (contiguous, starting one past the target's version) in one
  /// write transaction, commit by commit.
  func apply(_ events: [(lsn: UInt64, bytes: [UInt8])]) throws {
    var decoded: [(header: EventHeaderCopy, bytes: [UInt8])] = []
    decoded.reserveCapacity(events.count)
    for (lsn, bytes) in events {
      let header = try bytes.withUnsafeBytes { raw in
        let header = try EventCodec.header(raw, lsn: lsn)
        return try EventHeaderCopy(
          header, payloadOffset: raw.count - EventCodec.checksumSize - header.payload.count)
      }
      decoded.append((header, bytes))
    }
    try target.environment.write { txn in
      var expected = try target.log.lastLSN(txn) + 1
      var commit: [(header: EventHeaderCopy, bytes: [UInt8])] = []
      for event in decoded {
        guard event.header.lsn == expected else {
          throw StoreError.corruptEvent(lsn: event.header.lsn, reason: "expected LSN \(expected) next")
        }
        expected += 1
        commit.append(event)
        if event.header.endsCommit {
          try apply(commit, txn)
          commit.removeAll(keepingCapacity: true)
        }
      }
      if !commit.isEmpty { try apply(commit, txn) }
    }
  }

  /// One commit's events: appended verbatim, then materialized. Each event must agree with the
  /// state it lands on: its row, and the version it says it replaces.
  private func apply(_ events: [(header: EventHeaderCopy, bytes: [UInt8])], _ txn: WriteTransaction) throws {
    let materializer = target.materializer
    var nextRow = try materializer.nextRow(txn)
    var changes: [RecordChange] = []
    changes.reserveCapacity(events.count)
    for (header, bytes) in events {
      let lsn = header.lsn
      let id = header.id
      let stored = try materializer.row(of: id, txn)
      try RowTracker.check(
        lsn: lsn, id: id, row: header.row, previousLSN: header.previousLSN, isUpsert: header.isUpsert,
        stored: stored, nextRow: nextRow)
      let old = try stored.flatMap { try materializer.record(at: $0.row, txn) }.map { Array($0) }
      let kind: RecordChange.Kind = header.isUpsert ? (stored == nil ? .inserted : .updated) : .deleted
      if kind == .inserted { nextRow += 1 }
      var change = RecordChange(
        kind: kind, id: id, row: header.row, oldRecord: old, previousLSN: header.previousLSN ?? 0,
        event: bytes,
        recordStart: header.payloadOffset, recordEnd: bytes.count - EventCodec.checksumSize)
      change.lsn = lsn
      try target.log.append(bytes, at: lsn, txn)
      changes.append(change)
    }
    try materializer.apply(changes, nextRow: nextRow, txn)
  }
}

/// The parts of an event header a replay keeps after the read transaction has ended.
struct EventHeaderCopy {
  var lsn: UInt64
  /// The id the event concerns.
  var id: Int64
  var isUpsert: Bool
  var endsCommit: Bool
  var row: UInt64
  var previousLSN: UInt64?
  /// Where the payload starts in the event's bytes.
  var payloadOffset: Int

  init(_ header: EventHeader, payloadOffset: Int) throws {
    id = try header.id()
    lsn = header.lsn
    isUpsert = header.isUpsert
    endsCommit = header.endsCommit
    row = header.row
    previousLSN = header.previousLSN
    self.payloadOffset = payloadOffset
  }
}

extension Store {
  /// Rebuilds this store's state from its log, up to `lsn` (default: the end), into the empty or
  /// new directory `directory`, and returns the rebuilt store. `progress` is called after each
  /// batch: first of events copied, then of repositories written.
  public func replay(
    into directory: String, through lsn: UInt64? = nil, options: StoreOptions = StoreOptions(),
    progress: (ReplayProgress) -> Void = { _ in }
  ) throws -> Store {
    let last = try lsn ?? version()
    let current = try version()
    guard last <= current else { throw StoreError.lsnOutOfRange(requested: last, version: current) }
    // Start the rebuilt map as large as this one: the state is written in large transactions,
    // and each time one outgrows the map it is aborted and written again into a larger one.
    var options = options
    let wanted = environment.info.mapSize
    options.mapSize = max(options.mapSize, min(wanted, options.maximumMapSize ?? wanted))
    let target = try Store(directory: directory, options: options)
    guard try target.version() == 0 else {
      throw StoreError.notAStore(
        path: directory, reason: "replay needs an empty store, and this one has events")
    }
    try Replayer(source: self, target: target).run(through: last, progress: progress)
    return target
  }
}
