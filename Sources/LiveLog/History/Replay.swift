import LMDB

/// Rebuilds a store's materialized state — records, rows and every index — from its log.
///
/// The events are copied byte for byte into the new store's log, and each commit is applied by
/// the same materializer that serves writes, so a replayed store is the store itself, rebuilt:
/// same rows, same index entries, same digest.
struct Replayer {
  let source: Store
  let target: Store

  /// Events per write transaction of the target: large enough to amortize the commit, small
  /// enough to keep the transaction's dirty pages in memory.
  static let eventsPerTransaction = 20_000

  /// Applies the source's events `target.version + 1 ... last` to the target, calling `progress`
  /// with the last LSN applied after each transaction.
  func run(through last: UInt64, progress: (UInt64) -> Void) throws {
    var next = try target.version() + 1
    let snapshot = try source.environment.makeSnapshot()
    while next <= last {
      // About `eventsPerTransaction` events, ending at a commit end: a commit split across two
      // transactions would lay its index blocks out differently from the original write.
      var batch: [(lsn: UInt64, bytes: [UInt8])] = []
      try snapshot.read { txn in
        try source.log.forEachRaw(from: next, through: last, txn) { lsn, bytes in
          batch.append((lsn, Array(bytes)))
          let header = try EventCodec.header(bytes, lsn: lsn)
          return !(header.endsCommit && batch.count >= Self.eventsPerTransaction)
        }
      }
      guard let end = batch.last?.lsn else { break }
      try EventApplier(target: target).apply(batch)
      next = end + 1
      progress(end)
    }
  }
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
      func mismatch(_ reason: String) -> StoreError { .corruptEvent(lsn: lsn, reason: reason) }
      let id = header.id
      let stored = try materializer.row(of: id, txn)
      if let stored {
        guard stored.row == header.row, stored.lsn == header.previousLSN else {
          throw mismatch(
            "names row \(header.row) and version \(header.previousLSN.map(String.init) ?? "none"), but id \(id) "
              + "is at row \(stored.row), version \(stored.lsn)")
        }
      } else {
        guard header.previousLSN == nil, header.isUpsert, header.row == nextRow else {
          throw mismatch(
            "names row \(header.row) for id \(id), which is not stored (the next row is \(nextRow))")
        }
      }
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
  /// new directory `directory`, and returns the rebuilt store. `progress` gets the last LSN
  /// applied, after each batch of about 20,000 events.
  public func replay(
    into directory: String, through lsn: UInt64? = nil, options: StoreOptions = StoreOptions(),
    progress: (UInt64) -> Void = { _ in }
  ) throws -> Store {
    let last = try lsn ?? version()
    let current = try version()
    guard last <= current else { throw StoreError.lsnOutOfRange(requested: last, version: current) }
    let target = try Store(directory: directory, options: options)
    guard try target.version() == 0 else {
      throw StoreError.notAStore(
        path: directory, reason: "replay needs an empty store, and this one has events")
    }
    try Replayer(source: self, target: target).run(through: last, progress: progress)
    return target
  }
}
