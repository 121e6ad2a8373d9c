import LMDB
import Synchronization

/// Rebuilds a store's materialized state — every collection's records, rows and indexes, and
/// the catalog — from its log.
///
/// The events are copied byte for byte into the new store's log (unless `copiesLog` is false: a
/// verification's replay checks them without copying) while the replayer follows, in
/// memory, the collections and their schemas (from schema events) and where each record ends:
/// its row and its last version. Only then is the state written, once per surviving record, in
/// row order, one segment of the indexes per transaction, each laid out in memory and appended.
/// Records that were updated or deleted along the way cost the log copy alone. The rebuilt store
/// holds the same catalog, rows and index entries as one that received the events commit by
/// commit; only their layout (segments, pages, recent rows) may differ, which the digest does not
/// see.
struct Replayer {
  let source: Store
  let target: Store

  /// Events per write transaction of the log copy (and of an import).
  static let eventsPerTransaction = 20_000
  /// Batches of the log copy read and not yet appended, at most (`copyLog`); at least 1.
  static let batchesUnderWay = 3
  /// `eventsPerTransaction`, or fewer in tests.
  var eventsPerLogTransaction = Replayer.eventsPerTransaction
  /// Whether the target gets its indexes. A verification needs only their fingerprints, which
  /// `run` then computes from the records (`StateContent.fingerprint`) in a fraction of the time
  /// that laying out and writing the pages takes; the target then holds no index entries, and
  /// stays marked unfinished (it refuses to open).
  var buildsIndexes = true
  /// Whether the target gets a copy of the log. A verification compares states, and the copy
  /// would be the very events it has checked, byte for byte: without it the target's rows name
  /// versions of a log it lacks, its checkpoints summarize the source's log, and it stays marked
  /// unfinished (it refuses to open), like a target without indexes.
  var copiesLog = true
  /// Whether the target gets its key table. A verification needs only its digest, which `run`
  /// then computes from the records' keys (`StoredCollection.keyTableDigest`) instead of a put per
  /// record; the target then holds no keys, and stays marked unfinished (it refuses to open).
  var writesKeys = true

  /// What stands for the tables a replay leaves unwritten.
  struct UnwrittenTables {
    /// The fingerprints of the indexes by collection id, when `buildsIndexes` is false.
    var indexFingerprints: [UInt32: StateContent.IndexFingerprints] = [:]
    /// The digests of the key tables by table name, when `writesKeys` is false.
    var keyDigests: [String: StateDigest.DatabaseDigest] = [:]
  }

  /// Copies the source's events `1 ... last` to the empty target and builds the target's state
  /// as of `last`. Until the state is complete the target is marked unfinished and refuses to
  /// open: a replay cut short leaves no store that looks sound and is not.
  ///
  /// Returns what stands for the tables the target lacks (`buildsIndexes`, `writesKeys`).
  @discardableResult
  func run(through last: UInt64, progress: (ReplayProgress) -> Void) throws -> UnwrittenTables {
    let (snapshot, sourceCatalog) = try source.makeSnapshot()
    let (catalog, trackers) = try copyLog(through: last, from: snapshot, sourceCatalog, progress: progress)
    // The collections, with every version of their schemas; then each one's state.
    if !catalog.entries.isEmpty {
      try target.environment.write { txn in
        for entry in catalog.entries.values.sorted(by: { $0.id < $1.id }) {
          guard let schema = entry.versions.last?.schema else { continue }
          _ = try target.catalog.openDatabases(
            entry.name, keyType: schema.primaryKey.type, create: true, in: txn)
          try target.catalog.write(id: entry.id, name: entry.name, versions: entry.versions, txn)
        }
        try target.catalog.setStamp(catalog.versionCount, txn)
      }
    }
    // The checkpoints summarize the log alone, which the source holds as the copy does: worked
    // out in memory on a thread of their own beside the first segments' layouts (reading the
    // source's log in `snapshot`, as they read its records; the copy read that log in `snapshot`
    // first, so that the transaction's one write on a first cursor is done,
    // `prepareForReadsOnEveryCore`), and written, in key order, before the first segment is.
    // Not left running past the call, and let go once written: it holds the whole log's entries.
    var summary: BackgroundWork<Checkpoints.Summary?>? = BackgroundWork { [target, source] in
      try target.checkpointSummary(like: source, snapshot, through: last)
    }
    defer { _ = try? summary?.value() }
    let unwritten = try writeState(of: trackers, from: snapshot, sourceCatalog, progress: progress) {
      let entries = try summary?.value() ?? nil
      summary = nil
      try target.writeCheckpoints(entries)
    }
    // A target without its indexes, log or keys stays marked unfinished: opened, it would answer
    // queries from empty indexes, read records from a log it lacks, or find no record by key.
    if buildsIndexes && copiesLog && writesKeys {
      try target.environment.write { txn in _ = try txn.delete(target.meta, StoreLayout.incompleteReplayKey) }
    }
    return unwritten
  }

  /// Copies the events `1 ... last` into the target's log (when `copiesLog`) in transactions of
  /// `eventsPerLogTransaction`, checking every one, and follows them: the collections and
  /// their schemas, and where each record ends. This thread reads batch n (and follows its
  /// schema events), starts its check, on other threads, and its following (`Followers`), on a
  /// thread of its own once the check and batch n − 1's following end, then appends batch n − 2
  /// once it is followed: the checks and followings run beside the reads and appends. A batch
  /// goes into the log once its events are checked and followed, so a bad event stops the copy
  /// before its batch; the batches before it are copied, as without the overlap. At most
  /// `batchesUnderWay` (3) batches' bytes and checked events are held (about 6 MB of bytes each
  /// for the benchmark's repositories).
  private func copyLog(
    through last: UInt64, from snapshot: Snapshot, _ sourceCatalog: CatalogState,
    progress: (ReplayProgress) -> Void
  ) throws -> (ReplayCatalog, [UInt32: RowTracker]) {
    var catalog = ReplayCatalog()
    // Each tracker sized once for the records its collection holds in the source, rather than
    // grown through a rehash at every doubling. A hint only: a replay to an earlier version may
    // hold more or fewer, and a count the source cannot read (its state is what a repair
    // replaces) gives none.
    let events = Int(clamping: last)
    let capacities = try source.readState(snapshot, sourceCatalog) { read in
      Dictionary(
        uniqueKeysWithValues: sourceCatalog.all.map { collection in
          (collection.id, min((try? collection.count(read.txn)) ?? 0, events))
        })
    }
    let followers = Followers(capacities: capacities)
    // The batches read and not yet appended, oldest first, each with its check and following
    // under way. Each batch's following waits for its check, then for the batch before's
    // following (the trackers take events in log order): waiting for the last waits for all.
    var pending: [(batch: EventBatch, followed: BackgroundWork<Void>)] = []
    // Not left running past the call, even when a step fails.
    defer { _ = try? pending.last?.followed.value() }
    var next: UInt64 = 1
    var lastByteCount = 0
    // A batch that cannot be read or planned: the batches before it are still copied.
    var failure: (any Error)?
    while (next <= last && failure == nil) || !pending.isEmpty {
      if next <= last && failure == nil {
        do {
          let end = min(last, next + UInt64(eventsPerLogTransaction) - 1)
          let batch = try readBatch(
            from: next, through: end, snapshot, sourceCatalog, byteCapacity: lastByteCount + lastByteCount / 8
          )
          lastByteCount = batch.byteCount
          let plans = try CheckingPlans(batch, &catalog)
          let checked = BackgroundWork { try plans.check(batch) }
          let before = pending.last?.followed
          // Started at once, not when this thread next comes round: the followings then run back
          // to back on their threads while this one reads and appends. The check is waited for
          // first, whatever the batch before's following gives: so a following ends after its
          // check, and waiting for the last following waits for every work started.
          let followed = BackgroundWork<Void> {
            let checkedEvents = Result { try checked.value() }
            try before?.value()
            try followers.follow(checkedEvents.get())
          }
          pending.append((batch, followed))
          next = end + 1
        } catch {
          failure = error
        }
      }
      // The oldest batch is appended once followed, while the later ones are read, checked and
      // followed: at most `batchesUnderWay` batches' bytes are held.
      guard pending.count >= Self.batchesUnderWay || ((next > last || failure != nil) && !pending.isEmpty)
      else { continue }
      let (batch, followed) = pending.removeFirst()
      try followed.value()
      let isFirst = batch.lsns.first == 1
      if isFirst || copiesLog {
        try target.environment.write { txn in
          if isFirst { try target.markReplayIncomplete(txn) }
          guard copiesLog else { return }
          for index in 0..<batch.count {
            try batch.withEvent(at: index) { try target.log.append($0, at: batch.lsns[index], txn) }
          }
        }
      }
      progress(ReplayProgress(step: .copyingLog, completed: batch.lsns.last ?? 0, total: last))
    }
    if let failure { throw failure }
    return (catalog, followers.trackers())
  }

  /// The events `first ... end`, copied out of the source's map.
  private func readBatch(
    from first: UInt64, through end: UInt64, _ snapshot: Snapshot, _ sourceCatalog: CatalogState,
    byteCapacity: Int
  ) throws -> EventBatch {
    var batch = EventBatch(capacity: Int(end - first + 1), byteCapacity: byteCapacity)
    try source.readState(snapshot, sourceCatalog) { read in
      try read.forEachEvent(from: first, through: end) { lsn, bytes in
        batch.append(lsn: lsn, bytes)
        return true
      }
    }
    return batch
  }
}

/// The schema and key of each event of a batch, which the workers that check it share.
private struct CheckingPlans: Sendable {
  /// The schema an event's record decodes with and the field its key is. A class: each event
  /// reads its plan's schema in place, where a copy of a schema per event cost a verification a
  /// few percent in reference counting.
  final class Plan: Sendable {
    /// The collection's id in the catalog (events of format 1 name none).
    let collection: UInt32
    let schema: CollectionSchema
    let key: Field

    init(collection: UInt32, schema: CollectionSchema, key: Field) {
      self.collection = collection
      self.schema = schema
      self.key = key
    }
  }

  /// The plans, once per collection and schema version.
  let plans: [Plan]
  /// Each event's plan, by index in `plans` (-1: a schema event, or a collection without one).
  let planOfEvent: [Int32]

  /// Follows the batch's schema events in `catalog`, in order, since they say how later
  /// records decode; notes each other event's schema and key. The catalog is asked once per
  /// collection and schema version between two schema events, not once per event: copying its
  /// entries cost a verification a fifth of this step.
  init(_ batch: EventBatch, _ catalog: inout ReplayCatalog) throws {
    struct PlanKey: Hashable {
      var collection: UInt32
      var schemaVersion: Int
    }
    var plans: [Plan] = []
    var planOfEvent: [Int32] = []
    planOfEvent.reserveCapacity(batch.count)
    var known: [PlanKey: Int32] = [:]
    for (index, lsn) in batch.lsns.enumerated() {
      let plan: Int32 = try batch.withEvent(at: index) { raw in
        let header = try EventCodec.header(raw, lsn: lsn)
        if header.kind == .schema {
          try catalog.follow(schemaEvent: header)
          // A new version may change the key of the collection's events to come.
          known.removeAll()
          return -1
        }
        let version = PlanKey(collection: header.collection, schemaVersion: header.schemaVersion)
        if let plan = known[version] { return plan }
        var plan: Int32 = -1
        let entry = try catalog.entry(for: header)
        if let current = entry.versions.last?.schema {
          plans.append(
            Plan(collection: entry.id, schema: try catalog.schema(for: header), key: current.primaryKey))
          plan = Int32(plans.count - 1)
        }
        known[version] = plan
        return plan
      }
      planOfEvent.append(plan)
    }
    self.plans = plans
    self.planOfEvent = planOfEvent
  }

  /// Checks every event of `batch` (checksum, header, and its record as decoding would, without
  /// building the values) on every core, not only each record's last version: history must read
  /// too (as-of queries, diffs, export), and verification is where a bad one should come to light.
  func check(_ batch: EventBatch) throws -> [CheckedEvent?] {
    try ParallelMap.map(batch.count) { index in
      try batch.withEvent(at: index) { raw -> CheckedEvent? in
        let number = Int(planOfEvent[index])
        guard number >= 0 else { return nil }
        let plan = plans[number]
        let header = try EventCodec.header(raw, lsn: batch.lsns[index])
        if header.isUpsert {
          do {
            try RecordCodec.check(header.payload, schema: plan.schema)
          } catch let error as MalformedBytes {
            throw StoreError.corruptEvent(lsn: header.lsn, reason: error.description)
          }
        }
        return CheckedEvent(
          collection: plan.collection, event: FollowedEvent(header, key: try header.key(plan.key)))
      }
    }
  }
}

/// A checked event of a record, and its collection's id in the catalog.
private struct CheckedEvent: Sendable {
  var collection: UInt32
  var event: FollowedEvent
}

/// The row trackers of a replay's collections, by id, which the batches' followers take in turn
/// (`Replayer.copyLog`), each on a thread of its own once the one before it ends: the lock is
/// never waited for, and changes the trackers in place (a tracker handed from one thread to the
/// next as a value would be copied whole at its first change).
private final class Followers: Sendable {
  private let state = Mutex<[UInt32: RowTracker]>([:])
  /// Each collection's tracker's first capacity.
  private let capacities: [UInt32: Int]

  init(capacities: [UInt32: Int]) { self.capacities = capacities }

  func follow(_ events: [CheckedEvent?]) throws {
    try state.withLock { trackers in
      for case let checked? in events {
        // Not `trackers[id, default: RowTracker(capacity: …)]`: its autoclosure, capturing the
        // capacities, cost a heap context per event on this thread, which follows them one by one.
        if let slot = trackers.index(forKey: checked.collection) {
          try trackers.values[slot].follow(checked.event)
        } else {
          var tracker = RowTracker(capacity: capacities[checked.collection] ?? 0)
          try tracker.follow(checked.event)
          trackers[checked.collection] = tracker
        }
      }
    }
  }

  /// The trackers, taken out: once every batch is followed.
  func trackers() -> [UInt32: RowTracker] {
    state.withLock { trackers in
      defer { trackers = [:] }
      return trackers
    }
  }
}

/// How far a replay has come: first the log is copied (counted in events), then the state is
/// built (counted in records).
public struct ReplayProgress: Sendable, Hashable {
  /// The two steps of a replay, in order.
  public enum Step: Sendable, Hashable {
    /// Copying and checking events; `completed` is the last LSN copied.
    case copyingLog
    /// Writing records and indexes; `completed` counts the records written.
    case buildingState
  }

  /// The step under way.
  public var step: Step
  /// Events copied (`copyingLog`) or records written (`buildingState`) so far.
  public var completed: UInt64
  /// What the step has to do in all, in the same unit.
  public var total: UInt64

  /// The step and the count, for people: "building the state: 131,072 of 1,000,000 records".
  public var description: String {
    description(naming: step == .copyingLog ? "copying the log" : "building the state")
  }

  /// The description with the step called `name`: a verification's replay checks the log
  /// without copying it (`Replayer.copiesLog`).
  func description(naming name: String) -> String {
    "\(name): \(completed.formatted()) of \(total.formatted()) \(step == .copyingLog ? "events" : "records")"
  }

  /// The share of the step done, from 0 to 1.
  public var fractionOfStep: Double { total == 0 ? 1 : Double(completed) / Double(total) }
}

/// An event's place, as a replay follows it: its header's links and the key it concerns.
struct FollowedEvent: Sendable {
  var lsn: UInt64
  var isUpsert: Bool
  var row: UInt64
  var previousLSN: UInt64?
  var key: PrimaryKey

  init(_ header: EventHeader, key: PrimaryKey) {
    lsn = header.lsn
    isUpsert = header.isUpsert
    row = header.row
    previousLSN = header.previousLSN
    self.key = key
  }
}

/// Where each record of one collection stands after a run of events, checked the way a
/// commit-by-commit replay checks them: every event must agree with the state it lands on.
struct RowTracker {
  private(set) var rows: [PrimaryKey: (row: UInt64, lsn: UInt64)] = [:]
  private(set) var nextRow: UInt64 = 1

  init(capacity: Int = 0) { rows.reserveCapacity(capacity) }

  var count: Int { rows.count }

  mutating func follow(_ event: FollowedEvent) throws {
    let stored = rows[event.key]
    try Self.check(
      lsn: event.lsn, key: event.key, row: event.row, previousLSN: event.previousLSN,
      isUpsert: event.isUpsert,
      stored: stored, nextRow: nextRow)
    if let stored {
      rows[event.key] = event.isUpsert ? (stored.row, event.lsn) : nil
    } else {
      rows[event.key] = (event.row, event.lsn)
      nextRow += 1
    }
  }

  /// Checks that an event agrees with the state it lands on: a key that is stored must be named
  /// at its row and current version; a new one must be an upsert at the next row.
  static func check(
    lsn: UInt64, key: PrimaryKey, row: UInt64, previousLSN: UInt64?, isUpsert: Bool,
    stored: (row: UInt64, lsn: UInt64)?, nextRow: UInt64
  ) throws(StoreError) {
    if let stored {
      guard stored.row == row, stored.lsn == previousLSN else {
        throw .corruptEvent(
          lsn: lsn,
          reason: "names row \(row) and version \(previousLSN.map(String.init) ?? "none"), but key \(key) "
            + "is at row \(stored.row), version \(stored.lsn)")
      }
    } else {
      guard previousLSN == nil, isUpsert, row == nextRow else {
        throw .corruptEvent(
          lsn: lsn,
          reason: "names row \(row) for key \(key), which is not stored (the next row is \(nextRow))")
      }
    }
  }

  /// The records that exist after the events, in row order, each made by `make` from its key,
  /// row and the LSN of its current version.
  ///
  /// Each goes straight to its place: its rank among the rows that hold a record, which a bitmap
  /// of those rows gives. The bitmap has a bit per row ever used, which is at most one per event
  /// followed. Placing a million records through a table of places and an array in between took
  /// 150–200 ms of a verification, most of it in the first touch of fresh memory; this, about half.
  func survivors<Survivor>(_ make: (_ key: PrimaryKey, _ row: UInt64, _ lsn: UInt64) -> Survivor)
    -> [Survivor]
  {
    let words = Int((nextRow + 63) / 64)
    var bits = [UInt64](repeating: 0, count: words)
    for place in rows.values { bits[Int(place.row / 64)] |= 1 << (place.row % 64) }
    // The rows with a record before each word's first.
    var ranks = [Int](repeating: 0, count: words)
    var total = 0
    for word in 0..<words {
      ranks[word] = total
      total += bits[word].nonzeroBitCount
    }
    // `follow` gives each new key the next row, so no two keys share one; were it otherwise, the
    // places would leave gaps, and sorting is right whatever the rows.
    guard total == rows.count else {
      return rows.sorted { $0.value.row < $1.value.row }.map { make($0.key, $0.value.row, $0.value.lsn) }
    }
    return [Survivor](unsafeUninitializedCapacity: total) { buffer, count in
      for (key, place) in rows {
        let word = Int(place.row / 64)
        let below = bits[word] & (1 << (place.row % 64) - 1)
        buffer.initializeElement(at: ranks[word] + below.nonzeroBitCount, to: make(key, place.row, place.lsn))
      }
      count = total
    }
  }
}

extension Store {
  /// Rebuilds this store's state from its log, up to `lsn` (default: the end), into the empty or
  /// new directory `directory`, and returns the rebuilt store. `progress` is called after each
  /// batch: first of events copied, then of records written.
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
