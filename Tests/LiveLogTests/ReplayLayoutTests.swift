import Foundation
import LMDB
import Testing

@testable import LiveLog

/// A replay writes each collection's indexes as few large segments, while a store that grew
/// commit by commit holds many small ones and recent rows; digests and comparisons read entries,
/// not their layout.
@Suite struct ReplayLayoutTests {
  /// A store that received its repositories one commit at a time, then lost a few.
  static func growStore(in directory: TemporaryDirectory) throws -> Store {
    var options = StoreOptions()
    options.durability = .noSync
    options.recentCapacity = 40
    let store = try Store(directory: directory.child("live"), options: options)
    let repositories = Array(QueryFixture.shared.repositories.prefix(1_500))
    for repository in repositories { try store.write([.upsert(repository)]) }
    try store.write(
      repositories.prefix(30).enumerated().compactMap {
        $0.offset % 3 == 0 ? .delete(id: $0.element.id) : nil
      })
    return store
  }

  /// Each database's raw entries: key and value bytes.
  static func rawEntries(_ store: Store, _ database: Database) throws -> [[UInt8]] {
    try store.environment.read { txn in
      try txn.withCursor(database) { cursor in
        var entries: [[UInt8]] = []
        var entry = try cursor.first()
        while let current = entry {
          entries.append(Array(current.key) + [0xFF] + Array(current.value))
          entry = try cursor.next()
        }
        return entries
      }
    }
  }

  /// The distinct trigram codes of a store's segments.
  static func trigramCodes(_ store: Store) throws -> [UInt32] {
    var codes = Set<UInt32>()
    let collection = try store.repositoriesCollection()
    try store.environment.read { txn in
      try StateContent.forEachIndexEntry(of: collection, txn) { entry in
        if entry.kind == .trigram { codes.insert(entry.key.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }) }
      }
    }
    return codes.sorted()
  }

  @Test func aRebuiltStoreLaysOutItsIndexesDifferentlyAndReadsTheSame() throws {
    let directory = try TemporaryDirectory()
    let store = try Self.growStore(in: directory)
    let rebuilt = try store.replay(into: directory.child("rebuilt"))
    // The premise: the layouts differ (many small segments and recent rows, against one segment).
    let grown = try store.repositoriesCollection()
    let replayed = try rebuilt.repositoriesCollection()
    #expect(try RecentRowsTests.recentCount(store) > 0)
    #expect(try RecentRowsTests.recentCount(rebuilt) == 0)
    #expect(try RecentRowsTests.segments(store).count > 1)
    #expect(try RecentRowsTests.segments(rebuilt).count == 1)
    #expect(
      try Self.rawEntries(store, grown.databases.index) != Self.rawEntries(rebuilt, replayed.databases.index))
    #expect(try rebuilt.digest() == store.digest())
    #expect(try store.firstDifference(from: rebuilt) == nil)
    // Every trigram list reads the same rows through either layout, but for the few recent rows
    // whose filter lets the code through (`TrigramFilter`): candidates, which queries check.
    var (extra, tested) = (0, 0)
    try store.environment.read { a in
      try rebuilt.environment.read { b in
        let left = try IndexReader(collection: grown, txn: a)
        let right = try IndexReader(collection: replayed, txn: b)
        let recent = Set(left.recent.rows)
        for code in try Self.trigramCodes(store) {
          let prefix = IndexKeys.trigramPrefix(code)
          let (grownRows, replayedRows) = (
            try left.rows(of: prefix, kind: .trigram), try right.rows(of: prefix, kind: .trigram)
          )
          #expect(Set(replayedRows).isSubset(of: grownRows), "\(code)")
          let passed = Set(grownRows).subtracting(replayedRows)
          #expect(passed.isSubset(of: recent), "\(code)")
          extra += passed.count
          tested += recent.count
        }
      }
    }
    #expect(extra < tested / 20, "\(extra) of \(tested)")
  }

  @Test func replayToLSNZeroIsAnEmptyStore() throws {
    let directory = try TemporaryDirectory()
    let store = try Self.growStore(in: directory)
    let empty = try Store(directory: directory.child("empty"))
    #expect(try store.replay(into: directory.child("zero"), through: 0).digest() == empty.digest())
  }

  /// A posting missing from a list, or one too many, is found and named with its row.
  @Test(arguments: [false, true])
  func aChangedPostingIsNamedWithItsRow(addsARow: Bool) throws {
    let directory = try TemporaryDirectory()
    let store = try Self.growStore(in: directory)
    let rebuilt = try store.replay(into: directory.child("rebuilt"))
    let collection = try rebuilt.repositoriesCollection()
    // A trigram list of several rows with a gap between two of them.
    let (code, rows) = try rebuilt.environment.read { txn -> (UInt32, [Row]) in
      let reader = try IndexReader(collection: collection, txn: txn)
      for code in try Self.trigramCodes(rebuilt) {
        let rows = try reader.rows(of: IndexKeys.trigramPrefix(code), kind: .trigram)
        if rows.count >= 3, rows.indices.dropLast().contains(where: { rows[$0 + 1] - rows[$0] > 1 }) {
          return (code, rows)
        }
      }
      return (0, [])
    }
    try #require(rows.count >= 3)
    let affected: Row
    if addsARow {
      let gap = try #require(rows.indices.dropLast().first { rows[$0 + 1] - rows[$0] > 1 })
      affected = rows[gap] + 1
    } else {
      affected = rows[1]
    }
    try VerifyTests.damageIndex(
      of: rebuilt, collection,
      PostingEdit(
        kind: .trigram, key: IndexKeys.trigramPrefix(code), row: affected, positions: addsARow ? [0] : nil))
    let difference = try #require(try store.firstDifference(from: rebuilt))
    #expect(difference.database == "repositories.indexes")
    #expect(difference.key.contains("row \(affected)"), "\(difference)")
    #expect(try store.digest() != rebuilt.digest())
  }

  /// A replay copying the log in small transactions, into a store whose rows were updated,
  /// deleted and re-inserted many times, and ids of both signs, give the state of the store
  /// built commit by commit.
  @Test func aReplayInSmallTransactionsEqualsTheStoreBuiltCommitByCommit() throws {
    let directory = try TemporaryDirectory()
    var options = StoreOptions()
    options.durability = .noSync
    options.recentCapacity = 100
    let store = try Store(directory: directory.child("live"), options: options)
    var random = SplitMix64(seed: 12)
    let pool = QueryFixture.shared.repositories.prefix(9_000).enumerated().map { index, repository in
      var repository = repository
      if index % 7 == 0 { repository.id = -repository.id }
      return repository
    }
    try store.write(pool.map(Mutation.upsert))
    for _ in 0..<30 {
      var batch: [Mutation] = []
      for _ in 0..<Int.random(in: 1...300, using: &random) {
        var repository = pool.randomElement(using: &random) ?? pool[0]
        if Int.random(in: 0..<4, using: &random) == 0 {
          batch.append(.delete(id: repository.id))
        } else {
          repository.stargazersCount = Int64.random(in: 0...5_000, using: &random)
          repository.description = Bool.random(using: &random) ? nil : "edited \(repository.fullName)"
          batch.append(.upsert(repository))
        }
      }
      try store.write(batch)
    }
    let target = try Store(directory: directory.child("rebuilt"), options: options)
    var replayer = Replayer(source: store, target: target)
    replayer.eventsPerLogTransaction = 777
    try replayer.run(through: try store.version()) { _ in }
    #expect(try target.digest() == store.digest())
    #expect(try store.firstDifference(from: target) == nil)
  }

  /// A replay that stops after part of the log is copied leaves a directory that refuses to open
  /// and says why, rather than a store whose queries miss rows.
  @Test func aReplayCutShortLeavesAStoreThatRefusesToOpen() throws {
    let directory = try TemporaryDirectory()
    // Its checksum no longer holds.
    let (store, target, options) = try Self.storeWithEvent250(in: directory) { event, _ in
      event[event.count / 2] ^= 0x40
    }
    var replayer = Replayer(source: store, target: target)
    replayer.eventsPerLogTransaction = 100
    #expect(throws: StoreError.self) { try replayer.run(through: 300) { _ in } }
    // Events 1 to 200 (the schema event and 199 upserts) were copied, 100 at a time.
    #expect(try target.version() == 200)
    do {
      _ = try Store(directory: directory.child("rebuilt"), options: options)
      Issue.record("a store left by an unfinished replay opened")
    } catch StoreError.notAStore(_, let reason) {
      #expect(reason.contains("replay that did not finish"), "\(reason)")
    }
  }

  /// An event whose checksum holds but that disagrees with the state it lands on (it upserts a
  /// record as new that the event before it made) stops the copy where it is followed, on
  /// another thread, after the batches are read: the batches before its own are copied, and
  /// none from its own on, as when a checksum fails.
  @Test func anEventThatDisagreesWithTheStateStopsTheCopyBeforeItsBatch() throws {
    let directory = try TemporaryDirectory()
    // Event 249 again, sealed as 250: the same record made anew.
    let (store, target, _) = try Self.storeWithEvent250(in: directory) { event, previous in
      event = previous
      event.removeLast(4)
      EventCodec.seal(&event, lsn: 250, endsCommit: true)
    }
    let refusal = try Self.refusalOfEvent250(replaying: store, into: target)
    // Refused by the tracker, which follows it, not by the check of its bytes.
    #expect(refusal?.contains("is at row") == true, "\(refusal ?? "no refusal")")
  }

  /// An event whose checksum holds but whose record does not decode stops the copy where its
  /// batch is checked, on other threads: the batches before its own are copied, and none from
  /// its own on.
  @Test func anEventWhoseRecordDoesNotDecodeStopsTheCopyBeforeItsBatch() throws {
    let directory = try TemporaryDirectory()
    // The record cut short, and the event sealed again: its checksum holds.
    let (store, target, _) = try Self.storeWithEvent250(in: directory) { event, _ in
      event.removeLast(4 + 3)
      EventCodec.seal(&event, lsn: 250, endsCommit: true)
    }
    let refusal = try Self.refusalOfEvent250(replaying: store, into: target)
    #expect(refusal.map { !$0.contains("checksum") } == true, "\(refusal ?? "no refusal")")
  }

  /// Replays `store` into `target` through event 300, 30 events to a transaction, and returns
  /// why event 250 was refused (`nil` when nothing was), having checked that the events before
  /// its batch, 1 to 240, were copied and none after.
  private static func refusalOfEvent250(replaying store: Store, into target: Store) throws -> String? {
    var replayer = Replayer(source: store, target: target)
    replayer.eventsPerLogTransaction = 30
    var refusal: String?
    do {
      try replayer.run(through: 300) { _ in }
    } catch StoreError.corruptEvent(let lsn, let reason) {
      #expect(lsn == 250, "\(reason)")
      refusal = reason
    }
    // The batch of 241 to 270 holds the bad event.
    #expect(try target.version() == 240)
    return refusal
  }

  /// A store of 300 one-record commits (events 1 to 300: the schema and 299 upserts) whose
  /// event 250 `damage` rewrites behind the store's back, given the event before it; and an
  /// empty store for its replay.
  private static func storeWithEvent250(
    in directory: TemporaryDirectory, _ damage: (_ event: inout [UInt8], _ previous: [UInt8]) -> Void
  ) throws -> (source: Store, target: Store, options: StoreOptions) {
    var options = StoreOptions()
    options.durability = .noSync
    let store = try Store(directory: directory.child("live"), options: options)
    for repository in QueryFixture.shared.repositories.prefix(300) { try store.write([.upsert(repository)]) }
    try store.environment.write { txn in
      let previous = try #require(try txn.get(store.log.database, 249).map { Array($0) })
      var event = try #require(try txn.get(store.log.database, 250).map { Array($0) })
      damage(&event, previous)
      try txn.put(store.log.database, 250, event)
    }
    return (store, try Store(directory: directory.child("rebuilt"), options: options), options)
  }

}
