import Foundation
import LMDB

/// A LiveLog store: an append-only log of repository changes and the materialized state built
/// from it, in one LMDB environment in one directory.
///
/// ```swift
/// let store = try Store(directory: "repos.store")
/// let summary = try store.write([.upsert(repository), .delete(id: 42)])
/// print(summary.lastLSN)   // the store's new version
/// ```
///
/// A `Store` may be shared by every thread of a process, and several processes may open the same
/// directory: reads never wait, and writes are serialized (one at a time in this process, and by
/// LMDB's lock across processes).
public final class Store: Sendable {
  /// The store's directory.
  public let directory: String
  /// The options it was opened with.
  public let options: StoreOptions
  let environment: Environment
  let log: EventLog
  let materializer: Materializer
  /// Keeps live queries up to date (see `Results.changes`).
  let hub = LiveHub()

  /// Opens the store in `directory`, creating it if the directory does not exist or is empty.
  ///
  /// Throws `StoreError.notAStore` for a directory that holds something else and
  /// `StoreError.unsupportedFormat` for a store of a newer format; in both cases nothing in the
  /// directory is changed.
  public init(directory: String, options: StoreOptions = StoreOptions()) throws {
    self.directory = directory
    self.options = options
    _ = try StoreDirectory(path: directory).prepare(readOnly: options.readOnly)
    try InterruptedRepair.check(directory: directory)
    let environment: Environment
    do {
      environment = try Environment(path: directory, options: options.environmentOptions)
    } catch let error as LMDBError where error.isAccessDenied {
      // A write open needs write access; a read-only open needs only read access (without it,
      // not even the lock-free fallback of `Environment` can read).
      throw options.readOnly
        ? StoreError.accessDenied(path: directory, reason: error.description)
        : StoreError.readOnly(path: directory)
    } catch let error as LMDBError where error.isDiskFull {
      throw StoreError.diskFull(path: directory, reason: error.description)
    } catch let error as LMDBError where error.isInvalidFile {
      throw StoreError.notAStore(path: directory, reason: "its data.mdb is not an LMDB file")
    } catch let error as LMDBError where error.isDamagedFile {
      throw StoreError.damagedFile(path: directory, damage: error.message)
    }
    self.environment = environment
    let names = StoreLayout.self
    let open = { (txn: any ReadableTransaction, create: Bool) throws -> (EventLog, Materializer) in
      let log = try environment.openDatabase(names.log, flags: .integerKey, create: create, in: txn)
      let records = try environment.openDatabase(names.records, flags: .integerKey, create: create, in: txn)
      let rows = try environment.openDatabase(names.rows, flags: .integerKey, create: create, in: txn)
      let ids = try environment.openDatabase(names.ids, flags: .integerKey, create: create, in: txn)
      let meta = try environment.openDatabase(names.meta, create: create, in: txn)
      let trigrams = try environment.openDatabase(names.trigrams, create: create, in: txn)
      let terms = try environment.openDatabase(names.terms, create: create, in: txn)
      let ordered = try environment.openDatabase(names.ordered, create: create, in: txn)
      if try txn.get(meta, Materializer.incompleteReplayKey) != nil {
        throw StoreError.notAStore(
          path: directory,
          reason: "it is the target of a replay that did not finish (its log is ahead of its state); "
            + "delete it and replay again")
      }
      return (
        EventLog(database: log),
        Materializer(
          records: records, rows: rows, ids: ids, meta: meta, trigrams: trigrams, terms: terms,
          ordered: ordered)
      )
    }
    do {
      if options.readOnly {
        (log, materializer) = try environment.readOpeningDatabases { try open($0, false) }
      } else {
        (log, materializer) = try environment.write { try open($0, true) }
      }
    } catch let error as LMDBError where error.isNotFound {
      throw StoreError.notAStore(path: directory, reason: "its databases are missing")
    }
    hub.attach(self)
  }

  /// Whether the store was opened read-only without LMDB's lock file, because this process may
  /// not write it: safe while no other process writes the store (see `Environment.isUnlocked`).
  public var isUnlocked: Bool { environment.isUnlocked }

  /// The store's version: the LSN of the last committed event, 0 for an empty store.
  public func version() throws -> UInt64 {
    try environment.read { try log.lastLSN($0) }
  }

  /// The repository with `id` as of now, or `nil`.
  public func repository(id: Int64) throws -> Repository? {
    try environment.read { txn in
      guard let row = try materializer.row(of: id, txn)?.row,
        let bytes = try materializer.record(at: row, txn)
      else {
        return nil
      }
      return try StoredRecord.repository(bytes, row: row)
    }
  }

  /// Number of repositories in the store.
  public func count() throws -> Int {
    try environment.read { try $0.statistics(materializer.records).entries }
  }

  // MARK: Writing

  /// Applies `mutations` as one atomic commit and returns what it did; live queries of this
  /// process hear of the commit at once.
  ///
  /// Within the batch the last mutation on an id wins. An upsert identical to the stored
  /// repository, or a delete of an id the store lacks, writes no event. Either every event of the
  /// commit and its materialized state are written, or (on any error) nothing is.
  @discardableResult
  public func write(_ mutations: [Mutation]) throws -> CommitSummary {
    guard !options.readOnly else { throw StoreError.readOnly(path: directory) }
    do {
      return try commit(mutations)
    } catch let error as LMDBError where error.isMapLimitReached {
      throw StoreError.mapLimitReached(
        path: directory, maximum: options.maximumMapSize ?? environment.info.mapSize)
    } catch let error as LMDBError where error.isDiskFull {
      throw StoreError.diskFull(path: directory, reason: error.description)
    }
  }

  private func commit(_ mutations: [Mutation]) throws -> CommitSummary {
    defer { hub.wake() }
    let batch = Batch(mutations)
    let time = CommitTime(microsecondsSince1970: Int64(Date().timeIntervalSince1970 * 1_000_000))
    return try environment.write { txn in
      var summary = CommitSummary()
      var nextRow = try materializer.nextRow(txn)
      var changes: [RecordChange] = []
      changes.reserveCapacity(batch.count)
      for index in batch.indices {
        switch mutations[index] {
        case .upsert(let repository):
          if let (row, current) = try materializer.row(of: repository.id, txn) {
            guard let stored = try materializer.record(at: row, txn) else {
              throw StoreError.corruptState(
                reason: "id \(repository.id) maps to row \(row), which has no record")
            }
            let (event, start) = EventCodec.beginUpsert(repository, time: time, row: row, previous: current)
            if EventCodec.record(in: event, from: start, equals: stored) {
              summary.unchanged += 1
              continue
            }
            changes.append(
              RecordChange(
                kind: .updated, id: repository.id, row: row, oldRecord: Array(stored), previousLSN: current,
                event: event, recordStart: start, recordEnd: event.count, newValues: repository.fieldValues))
            summary.updated += 1
          } else {
            let (event, start) = EventCodec.beginUpsert(repository, time: time, row: nextRow, previous: 0)
            changes.append(
              RecordChange(
                kind: .inserted, id: repository.id, row: nextRow, previousLSN: 0, event: event,
                recordStart: start, recordEnd: event.count, newValues: repository.fieldValues))
            nextRow += 1
            summary.inserted += 1
          }
        case .delete(let id):
          guard let (row, current) = try materializer.row(of: id, txn) else {
            summary.unchanged += 1
            continue
          }
          let stored = try materializer.record(at: row, txn).map { Array($0) }
          changes.append(
            RecordChange(
              kind: .deleted, id: id, row: row, oldRecord: stored, previousLSN: current, event: [],
              recordStart: 0,
              recordEnd: 0))
          summary.deleted += 1
        }
      }
      guard !changes.isEmpty else { return summary }
      var lsn = try log.lastLSN(txn)
      summary.firstLSN = lsn + 1
      for index in changes.indices {
        lsn += 1
        let ends = index == changes.count - 1
        changes[index].lsn = lsn
        if changes[index].kind == .deleted {
          changes[index].event = EventCodec.encodeDelete(
            id: changes[index].id, lsn: lsn, time: time, endsCommit: ends, row: changes[index].row,
            previous: changes[index].previousLSN)
        } else {
          EventCodec.seal(&changes[index].event, lsn: lsn, endsCommit: ends)
        }
        try log.append(changes[index].event, at: lsn, txn)
      }
      summary.lastLSN = lsn
      summary.commits = 1
      try materializer.apply(changes, nextRow: nextRow, txn)
      return summary
    }
  }

  /// Applies `mutations` as one atomic commit; see `write(_:)` for arrays.
  @discardableResult
  public func write(_ mutations: some Sequence<Mutation>) throws -> CommitSummary {
    try write(Array(mutations))
  }

  // MARK: Reading the log

  /// Calls `body` with each event from `first` through `last` (default: the end), in order,
  /// until it returns false. Every event's checksum is checked.
  public func forEachEvent(
    from first: UInt64 = 1, through last: UInt64? = nil, _ body: (Event) throws -> Bool
  )
    throws
  {
    let snapshot = try environment.makeSnapshot()
    try snapshot.read { txn in
      let end = try last ?? log.lastLSN(txn)
      try log.forEach(from: Swift.max(first, 1), through: end, txn, body)
    }
  }

  /// The events from `first` through `last` (default: the end).
  public func events(from first: UInt64 = 1, through last: UInt64? = nil) throws -> [Event] {
    var events: [Event] = []
    try forEachEvent(from: first, through: last) {
      events.append($0)
      return true
    }
    return events
  }
}

/// Which mutations of a batch take effect: the last on each id, in the order of those last
/// mutations.
struct Batch {
  /// Positions in the batch of the mutations that take effect.
  var indices: [Int]

  init(_ mutations: [Mutation]) {
    var latest: [Int64: Int] = [:]
    latest.reserveCapacity(mutations.count)
    for index in mutations.indices { latest[mutations[index].id] = index }
    if latest.count == mutations.count {
      indices = Array(mutations.indices)
    } else {
      indices = mutations.indices.filter { latest[mutations[$0].id] == $0 }
    }
  }

  var count: Int { indices.count }
}

/// Names of the store's LMDB databases.
enum StoreLayout {
  static let log = "log"
  static let records = "records"
  static let rows = "rows"
  static let ids = "ids"
  static let meta = "meta"
  static let trigrams = "index.trigrams"
  static let terms = "index.terms"
  static let ordered = "index.ordered"
}

/// Decoding of records read from the `records` database.
enum StoredRecord {
  static func repository(_ bytes: UnsafeRawBufferPointer, row: UInt64) throws -> Repository {
    let values: [FieldValue]
    do {
      values = try RecordCodec.decode(bytes, schema: Repository.schema)
    } catch {
      throw StoreError.corruptState(reason: "record at row \(row): \(error)")
    }
    guard let repository = Repository(fieldValues: values) else {
      throw StoreError.corruptState(reason: "record at row \(row) lacks an id or a full name")
    }
    return repository
  }
}

extension Store {
  /// Returns once every live query of this store has taken every commit up to the store's
  /// version now (including other processes' commits): their changes are then on the way.
  public func synchronizeLiveQueries() {
    hub.catchUp()
  }

  /// Flushes every commit to the disk: after writes in `.noSync` or `.noMetaSync` mode, this
  /// makes them durable.
  public func sync() throws {
    try environment.sync()
  }
}

extension Store {
  /// Every repository in insertion order (the order of unsorted results).
  func allRepositories() throws -> [Repository] {
    try environment.read { txn in
      try txn.withCursor(materializer.records) { cursor in
        var result: [Repository] = []
        var entry = try cursor.first()
        while let current = entry {
          result.append(try StoredRecord.repository(current.value, row: current.integerKey ?? 0))
          entry = try cursor.next()
        }
        return result
      }
    }
  }
}
