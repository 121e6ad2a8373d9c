import Foundation
import Testing

@testable import LiveLog

#if canImport(Glibc)
  import Glibc
#endif

/// A damaged data file never kills a command: truncated (to 0, to 8 KiB, in the middle), a
/// zeroed page of the log, a zeroed meta page. Each command exits 1 with a message that names
/// the damage and the next step, or answers what the damage did not touch; none dies by signal
/// (LMDB would: SIGBUS past the end of a truncated file, `Assertion 'IS_LEAF(mp)' failed`).
@Suite(.serialized) struct DamagedFileTests {
  /// Every command that reads the store, with what it needs to run.
  static func commands(_ directory: TemporaryDirectory) throws -> [[String]] {
    let good = directory.child("good.ndjson")
    try Reliability.write(Reliability.repositories(from: 800_000, count: 3, tag: "more"), to: good)
    return [
      ["log"], ["log", "--format", "ndjson"], ["verify"], ["query", "stargazers_count > 10"],
      ["query", "full_name CONTAINS 'a'", "--format", "json"], ["stats"], ["export"], ["replay"],
      ["replay", "--verify"], ["explain", "language == 'Python'"],
      ["diff", "id > 0", "--from", "1", "--to", "30"],
      ["watch", "id > 0", "--until", "1"], ["ingest", good], ["replay", "--in-place"],
    ]
  }

  /// Runs every command on `store`; each either succeeds or exits 1 saying what is damaged and
  /// what to do. Returns how many failed.
  @discardableResult
  static func expectReportsNotSignals(_ store: String, _ directory: TemporaryDirectory, _ what: String) throws
    -> Int
  {
    var failed = 0
    for arguments in try commands(directory) {
      let result = try CommandLineTool(store: store).run(arguments)
      DamageSupport.expectNoSignal(result, "\(what): \(arguments)")
      if result.status != 0 {
        failed += 1
        #expect(result.status == 1, "\(what): \(arguments): \(result.stderr)")
        let text = result.stdout + result.stderr
        #expect(text.contains("damaged"), "\(what): \(arguments): \(text.suffix(400))")
        #expect(
          text.contains("salvage") || text.contains("replay --in-place"),
          "\(what): \(arguments): \(text.suffix(400))")
      }
    }
    return failed
  }

  @Test(arguments: [0, 4_096, 8_192, 300_000])
  func aTruncatedFileIsReportedByEveryCommand(size: Int) throws {
    let directory = try TemporaryDirectory()
    let store = directory.child("store")
    try DamageSupport.makeStore(at: store, count: 300, batch: 30)
    #expect(Reliability.fileSize(store + "/data.mdb") > 300_000)
    DamageSupport.truncate(store + "/data.mdb", to: size)
    let failed = try Self.expectReportsNotSignals(store, directory, "truncated to \(size)")
    #expect(failed == (try Self.commands(directory)).count, "every command needs the file's pages")
    let stats = try CommandLineTool(store: store).run(["stats"])
    #expect(
      stats.stderr.contains(size == 0 ? "the file is empty (0 bytes)" : "it was truncated"), "\(stats.stderr)"
    )
    // Nothing was written: not even an empty store in place of the truncated file.
    #expect(Reliability.fileSize(store + "/data.mdb") == size)
  }

  @Test func aZeroedPageOfTheLogIsReportedNotAborted() throws {
    let directory = try TemporaryDirectory()
    let store = directory.child("store")
    try DamageSupport.makeStore(at: store, count: 600, batch: 20)
    let leaves = try DataFileLayout.logLeafPages(store + "/data.mdb")
    #expect(leaves.count > 4)
    let page = leaves[leaves.count / 2]
    try DamageSupport.overwrite(store + "/data.mdb", at: Int(page) * 4096, count: 4096)
    try Self.expectReportsNotSignals(store, directory, "zeroed page \(page)")
    let tool = CommandLineTool(store: store)
    for arguments in [["log"], ["export"], ["replay"], ["replay", "--in-place"]] {
      let result = try tool.run(arguments)
      #expect(result.status == 1, "\(arguments)")
      #expect(
        result.stderr.contains("IS_LEAF") || result.stderr.contains("damaged"),
        "\(arguments): \(result.stderr)")
    }
    let verify = try tool.run(["verify"])
    #expect(verify.status == 1)
    #expect(verify.stdout.contains("database log: page \(page)"), "\(verify.stdout)")
    #expect(verify.stderr.contains("salvage --into"), "\(verify.stderr)")
  }

  /// Damage confined to a database a replay rebuilds without reading it is reported with the
  /// way out that works, `replay --in-place` — which then repairs the store with its log intact —
  /// while damage to the log calls for a salvage (above).
  /// Commits of more than `RecentRows.smallCommit` records go to the row table and the segments;
  /// those of 20 records stay in the recent rows.
  @Test(arguments: [
    ("repositories.keys", 300), ("repositories.rows", 300), ("repositories.indexes", 300),
    ("repositories.recent", 20), ("catalog", 300), ("checkpoints", 300),
  ])
  func damageToARebuiltDatabaseIsRepairedByReplayInPlace(database: String, batch: Int) throws {
    #expect(Store.repairRebuilds(database: database))
    let directory = try TemporaryDirectory()
    let store = directory.child("store")
    try DamageSupport.makeStore(at: store, count: 600, batch: batch)
    let original = try DamageSupport.export(store)
    let leaves = try DataFileLayout.leafPages(of: database, in: store + "/data.mdb")
    let page = try #require(leaves.last)
    try DamageSupport.overwrite(store + "/data.mdb", at: Int(page) * 4096, count: 4096)
    let tool = CommandLineTool(store: store)
    let verify = try tool.run(["verify"])
    #expect(verify.status == 1)
    #expect(verify.stdout.contains("database \(database): page \(page)"), "\(verify.stdout)")
    #expect(verify.stderr.contains("replay --in-place"), "\(verify.stdout)")
    #expect(!verify.stderr.contains("salvage"), "\(verify.stderr)")
    let repair = try tool.run(["replay", "--in-place"])
    #expect(repair.status == 0, "\(repair.stderr)")
    #expect(try tool.run(["verify"]).status == 0)
    #expect(try DamageSupport.export(store) == original)
  }

  /// Of the layout's databases, a repair rebuilds the state's and neither the log, which it
  /// reads, nor `meta`, which every open reads, nor the stream position, which it copies.
  @Test func theDatabasesARepairRebuildsAreTheState() {
    for name in StoreLayout.fixedNames {
      #expect(
        Store.repairRebuilds(database: name) == [StoreLayout.catalog, StoreLayout.checkpoints].contains(name))
    }
    for suffix in CollectionDatabases.suffixes {
      #expect(Store.repairRebuilds(database: "repositories.\(suffix)"))
    }
    for earlier in ["records", "ids", "repositories.records", "repositories.index.trigrams", "index.terms"] {
      #expect(!Store.repairRebuilds(database: earlier), "\(earlier)")
    }
  }

  @Test func aZeroedCurrentMetaPageIsNamedAndTheOtherOneIsUsedBySalvage() throws {
    let directory = try TemporaryDirectory()
    let store = directory.child("store")
    let acknowledged = try DamageSupport.makeStore(at: store, count: 300, batch: 30)
    let original = try DamageSupport.export(store)
    // Transaction N writes meta page N mod 2: the current one is the page of the higher id.
    let data = try #require(FileManager.default.contents(atPath: store + "/data.mdb"))
    let ids = [0, 4096].map { base in
      data[(base + 144)..<(base + 152)].reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
    }
    let current = ids[0] > ids[1] ? 0 : 1
    try DamageSupport.overwrite(store + "/data.mdb", at: current * 4096, count: 4096)
    try Self.expectReportsNotSignals(store, directory, "zeroed meta page \(current)")
    let stats = try CommandLineTool(store: store).run(["stats"])
    #expect(stats.stderr.contains("meta page \(current) is damaged"), "\(stats.stderr)")
    #expect(
      stats.stderr.contains("meta page \(1 - current) (transaction \(ids[1 - current])) is intact"),
      "\(stats.stderr)")
    // Salvage starts from the intact meta page, and the page scan finds the last commit's events.
    let salvaged = directory.child("salvaged")
    let salvage = try CommandLineTool(store: store).run(["salvage", "--into", salvaged])
    #expect(salvage.status == 1, "the log's length is not certain without the current meta page")
    #expect(
      salvage.stdout.contains("recovered: LSN 1–\((acknowledged.last ?? 0).formatted())"), "\(salvage.stdout)"
    )
    #expect(try DamageSupport.export(salvaged) == original)
    #expect(try CommandLineTool(store: salvaged).run(["verify"]).status == 0)
  }
}
