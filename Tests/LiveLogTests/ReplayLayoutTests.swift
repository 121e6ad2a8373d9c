import Foundation
import LMDB
import Testing

@testable import LiveLog

/// A replay writes each posting list in long runs, so its blocks split differently from those of
/// a store that grew commit by commit; digests and comparisons read postings, not blocks.
@Suite struct ReplayLayoutTests {
  /// A store that received its repositories one commit at a time, then lost a few.
  static func growStore(in directory: TemporaryDirectory) throws -> Store {
    var options = StoreOptions()
    options.durability = .noSync
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

  @Test func aRebuiltStoreLaysOutPostingsDifferentlyAndReadsTheSame() throws {
    let directory = try TemporaryDirectory()
    let store = try Self.growStore(in: directory)
    let rebuilt = try store.replay(into: directory.child("rebuilt"))
    // The premise: the blocks differ (lists grown one row at a time fill blocks to the brim;
    // a replay splits each run evenly), here those of long lists such as `fork == false`.
    #expect(
      try Self.rawEntries(store, store.repositoriesCollection().databases.terms)
        != Self.rawEntries(rebuilt, rebuilt.repositoriesCollection().databases.terms))
    #expect(try rebuilt.digest() == store.digest())
    #expect(try store.firstDifference(from: rebuilt) == nil)
    // Every posting list reads the same rows, with those of the grown store's segment of recent
    // rows (a replay writes none).
    let grown = try store.repositoriesCollection().databases.trigrams
    let replayed = try rebuilt.repositoriesCollection().databases.trigrams
    try store.environment.read { a in
      try rebuilt.environment.read { b in
        #expect(try RecentTrigrams.count(in: grown, a) > 0)
        #expect(try RecentTrigrams.count(in: replayed, b) == 0)
        for code in try Self.trigramCodes(store) {
          let prefix = IndexKeys.trigramPrefix(code)
          let rows = RowSet.union(
            try PostingBlocks.read(prefix, in: grown, a),
            try RecentTrigrams.rows(holdingAll: [code], in: grown, a))
          #expect(rows == (try PostingBlocks.read(prefix, in: replayed, b)))
        }
      }
    }
  }

  @Test func replayToLSNZeroIsAnEmptyStore() throws {
    let directory = try TemporaryDirectory()
    let store = try Self.growStore(in: directory)
    let empty = try Store(directory: directory.child("empty"))
    #expect(try store.replay(into: directory.child("zero"), through: 0).digest() == empty.digest())
  }

  /// A posting missing from one block, or one too many, is found and named with its row.
  @Test(arguments: [false, true])
  func aChangedPostingIsNamedWithItsRow(addsARow: Bool) throws {
    let directory = try TemporaryDirectory()
    let store = try Self.growStore(in: directory)
    let rebuilt = try store.replay(into: directory.child("rebuilt"))
    let (key, rows) = try rebuilt.environment.read { txn in
      try txn.withCursor(rebuilt.repositoriesCollection().databases.trigrams) { cursor -> ([UInt8], [Row]) in
        var entry = try cursor.first()
        // A block of several rows, a few blocks in.
        for _ in 0..<40 { entry = try cursor.next() }
        while let current = entry, try PostingBlocks.header(current.value).count < 3 {
          entry = try cursor.next()
        }
        let current = try #require(entry)
        let first = current.key[4...].reduce(Row(0)) { $0 << 8 | Row($1) }
        var rows: [Row] = []
        try PostingBlocks.decode(current.value, firstRow: first, into: &rows)
        return (Array(current.key), rows)
      }
    }
    var changed = rows
    let affected: Row
    if addsARow {
      let gap = try #require(rows.indices.dropLast().first { rows[$0 + 1] - rows[$0] > 1 })
      affected = rows[gap] + 1
      changed.insert(affected, at: gap + 1)
    } else {
      affected = rows[1]
      changed.remove(at: 1)
    }
    try rebuilt.environment.write { txn in
      try txn.put(
        rebuilt.repositoriesCollection().databases.trigrams, key, PostingBlocks.encode(changed[...]))
    }
    let difference = try #require(try store.firstDifference(from: rebuilt))
    #expect(difference.database == "repositories.index.trigrams")
    #expect(difference.key.hasSuffix("row \(affected)"), "\(difference)")
    #expect(try store.digest() != rebuilt.digest())
  }

  /// Small state transactions (posting lists appended to across transactions, two workers per
  /// transaction) and ids of both signs give the state of the store built commit by commit.
  @Test func aReplayInSmallTransactionsEqualsTheStoreBuiltCommitByCommit() throws {
    let directory = try TemporaryDirectory()
    var options = StoreOptions()
    options.durability = .noSync
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
    replayer.rowsPerTransaction = 2_500
    replayer.eventsPerLogTransaction = 777
    try replayer.run(through: try store.version()) { _ in }
    #expect(try target.digest() == store.digest())
    #expect(try store.firstDifference(from: target) == nil)
  }

  /// A replay that stops after part of the log is copied leaves a directory that refuses to open
  /// and says why, rather than a store whose queries miss rows.
  @Test func aReplayCutShortLeavesAStoreThatRefusesToOpen() throws {
    let directory = try TemporaryDirectory()
    var options = StoreOptions()
    options.durability = .noSync
    let store = try Store(directory: directory.child("live"), options: options)
    for repository in QueryFixture.shared.repositories.prefix(300) { try store.write([.upsert(repository)]) }
    // Damage event 250 behind the store's back: its checksum no longer holds.
    try store.environment.write { txn in
      var bytes = try #require(try txn.get(store.log.database, 250).map { Array($0) })
      bytes[bytes.count / 2] ^= 0x40
      try txn.put(store.log.database, 250, bytes)
    }
    let target = try Store(directory: directory.child("rebuilt"), options: options)
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

  static func trigramCodes(_ store: Store) throws -> [UInt32] {
    try Set(
      rawEntries(store, store.repositoriesCollection().databases.trigrams).compactMap {
        $0[0] == RecentTrigrams.slot
          ? nil : UInt32($0[0]) << 24 | UInt32($0[1]) << 16 | UInt32($0[2]) << 8 | UInt32($0[3])
      }
    ).sorted()
  }
}
