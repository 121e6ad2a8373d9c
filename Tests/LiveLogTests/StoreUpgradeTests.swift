import Foundation
import LMDB
import Synchronization
import Testing

@_spi(Replication) @testable import LiveLog

/// A store written by the code of format 1 (kept in Tests/Fixtures/stores/format-1) opens under
/// the current format: upgraded in place by a replay of its log into a new data file, with the
/// same answers and the same log.
@Suite struct StoreUpgradeTests {
  static let fixture = Fixtures.root.deletingLastPathComponent().appendingPathComponent("stores/format-1")

  /// A copy of the fixture store, which the test may change.
  static func copy(into directory: TemporaryDirectory) throws -> String {
    let path = directory.child("store")
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    for name in ["data.mdb", "LIVELOG"] {
      try FileManager.default.copyItem(
        atPath: fixture.appendingPathComponent(name).path,
        toPath: (path as NSString).appendingPathComponent(name))
    }
    return path
  }

  static func lines(_ name: String) throws -> [String] {
    try String(contentsOf: fixture.appendingPathComponent(name), encoding: .utf8).split(separator: "\n").map(
      String.init)
  }

  /// The field values of the records in an NDJSON file the format-1 code wrote, read as they were
  /// written (without `Repository.complete`, which fills in what inputs leave out).
  static func values(_ name: String) throws -> [[FieldValue]] {
    let file = try RecordFile(path: fixture.appendingPathComponent(name).path)
    return try file.mutations(for: RecordInput(schema: Repository.schema.declaration)).compactMap {
      $0.record?.values
    }
  }

  @Test func aStoreOfFormatOneIsUpgradedInPlaceAndAnswersAsBefore() throws {
    let directory = try TemporaryDirectory()
    let path = try Self.copy(into: directory)
    // Read-only opens cannot upgrade, and say how to.
    var readOnly = StoreOptions()
    readOnly.readOnly = true
    #expect(throws: StoreError.upgradeRequired(path: path, found: 1)) {
      try Store(directory: path, options: readOnly)
    }
    let progress = ProgressLog()
    var options = StoreOptions()
    options.progress = { progress.add($0) }
    let store = try Store(directory: path, options: options)
    #expect(
      !progress.steps.isEmpty
        && progress.steps.allSatisfy { if case .upgrading = $0.step { true } else { false } })
    // Counted in what the replay counts: events copied, then records written.
    #expect(progress.steps.first?.description == "upgrading the store, copying the log: 336 of 336 events")
    #expect(progress.steps.last?.description == "upgrading the store, building the state: 300 of 300 records")
    #expect(
      try String(contentsOfFile: path + "/LIVELOG", encoding: .utf8).contains(
        "format \(StoreDirectory.currentFormat)"))
    // The log is untouched: the same 336 events, read as repositories at schema version 1.
    #expect(try store.version() == 336)
    let events = try store.events()
    #expect(
      events.count == 336 && events.allSatisfy { $0.collection == "repositories" && $0.schemaVersion == 1 })
    #expect(try store.schemaHistory(of: "repositories").map(\.lsn) == [0])
    // The answers the format-1 code gave.
    let all = try store.objects(Repository.self)
    #expect(all.map(\.fieldValues) == (try Self.values("all.ndjson")))
    let asOf = try store.results(in: "repositories", try Query(parsing: "language == 'Assembly'"), asOf: 60)
    #expect(try asOf.indices.map { try asOf.record(at: $0).json } == Self.lines("assembly-as-of-60.ndjson"))
    let tetris = try store.results(
      try Query(parsing: "full_name CONTAINS[c] 'tetris'").sorted(by: "stargazers_count", ascending: false))
    let stored =
      try JSONSerialization.jsonObject(
        with: Data(contentsOf: Self.fixture.appendingPathComponent("tetris-by-stars.json")))
      as? [[String: Any]]
    #expect(try tetris.ids() == (stored ?? []).compactMap { ($0["id"] as? NSNumber)?.int64Value })
    // The rebuilt state equals the upgraded one, and the store takes new writes.
    #expect(try store.verify().passed)
    var repository = Repository(id: 5, fullName: "new/five")
    repository.createdAt = Timestamp(secondsSince1970: 1_600_000_000, nanoseconds: 5)
    #expect(try store.write([.upsert(repository)]).firstLSN == 337)
    #expect(try store.results(try Query(parsing: "created_at > 2020-09-13T12:26:40Z")).ids().contains(5))
    #expect(try store.verify().passed)
  }

  @Test func anExportOfFormatOneImportsIntoANewStoreAsTheSameLog() throws {
    let directory = try TemporaryDirectory()
    let path = try Self.copy(into: directory)
    let upgraded = try Store(directory: path)
    let fresh = try Store(directory: directory.child("fresh"))
    let file = try RecordFile(
      path: Self.fixture.appendingPathComponent("export.ndjson").path, format: .ndjson)
    #expect(try fresh.importEvents(from: file).appended == 336)
    #expect(try fresh.digest() == upgraded.digest())
    var a: [[UInt8]] = []
    var b: [[UInt8]] = []
    try upgraded.export { a.append($0) }
    try fresh.export { b.append($0) }
    #expect(a == b)
  }
}

extension StoreUpgradeTests {
  /// Commands that write upgrade as those that read do: with a note saying what the upgrade
  /// does, and its progress. `replay --in-place` upgrades too, the same rebuild.
  @Test(arguments: [["ingest", "one.ndjson"], ["replay", "--in-place"], ["stats"]])
  func everyCommandUpgradesWithANoteAndProgress(arguments: [String]) throws {
    let directory = try TemporaryDirectory()
    let path = try Self.copy(into: directory)
    let input = directory.child("one.ndjson")
    try Data(#"{"id": 5, "full_name": "new/five"}"#.utf8).write(to: URL(fileURLWithPath: input))
    let result = try CommandLineTool(store: path).run(arguments.map { $0 == "one.ndjson" ? input : $0 })
    #expect(result.status == 0, "\(result.stderr)")
    #expect(
      result.stderr.contains(
        "note: upgrading \(path) from format 1 to format \(StoreDirectory.currentFormat): its log is replayed "
          + "into a new data file"), "\(result.stderr)")
    #expect(!result.stderr.contains("one transaction"))
    if arguments[0] != "replay" {
      #expect(
        result.stderr.contains("upgrading the store, copying the log: 336 of 336 events"), "\(result.stderr)")
      #expect(result.stderr.contains("upgrading the store, building the state: 300 of 300 records"))
    }
    #expect(
      try String(contentsOfFile: path + "/LIVELOG", encoding: .utf8).contains(
        "format \(StoreDirectory.currentFormat)"))
    let store = try Store(directory: path)
    #expect(try store.count(in: "repositories") == (arguments[0] == "ingest" ? 301 : 300))
    #expect(try store.verify().passed)
  }

  /// A replica's stream position and replica id survive an upgrade and `replay --in-place`,
  /// which keep its whole log; a replay into another directory is another store, and takes
  /// neither.
  @Test func theStreamPositionSurvivesAnUpgradeAndARepair() throws {
    let directory = try TemporaryDirectory()
    let path = try Self.copy(into: directory)
    let position = StreamPosition(stream: "repos", sequence: 5, lsn: 336)
    let replicaID = try Self.placeStreamPosition(position, inFormatOneStore: path)
    do {
      let upgraded = try Store(directory: path)
      #expect(try upgraded.streamPosition() == position)
      #expect(try upgraded.replicaID() == replicaID)
      let copy = try upgraded.replay(into: directory.child("copy"))
      #expect(try copy.streamPosition() == nil)
    }
    _ = try Store.repair(directory: path)
    let repaired = try Store(directory: path)
    #expect(try repaired.streamPosition() == position)
    #expect(try repaired.replicaID() == replicaID)
    #expect(try repaired.verify().passed)
  }

  /// A store marked format 6, whose trigram positions format 7 does not read, is not read as it
  /// is: a read-only open says to upgrade it, and a writable open rebuilds it from its log.
  @Test func aStoreOfFormatSixIsRebuiltBeforeItIsRead() throws {
    let directory = try TemporaryDirectory()
    let path = try Self.copy(into: directory)
    do { _ = try Store(directory: path) }
    try StoreDirectory(path: path).writeMarker(format: 6)
    var readOnly = StoreOptions()
    readOnly.readOnly = true
    #expect(throws: StoreError.upgradeRequired(path: path, found: 6)) {
      try Store(directory: path, options: readOnly)
    }
    let store = try Store(directory: path)
    #expect(
      try String(contentsOfFile: path + "/LIVELOG", encoding: .utf8).contains(
        "format \(StoreDirectory.currentFormat)"))
    #expect(try store.count(in: "repositories") == 300)
    #expect(try store.verify().passed)
  }

  /// Formats 5 and 6 kept a collection's index pages in `NAME.index`, whose trigram positions
  /// format 7 reads otherwise: a data file of theirs (a snapshot's) is told by that name; one of
  /// format 7 by its collections' lack of `NAME.columns`; and one of the current layout is not
  /// (nor one of format 8, laid out alike, whose recent entries the current format reads).
  @Test func aDataFileOfFormatSixIsToldByItsNames() throws {
    let directory = try TemporaryDirectory()
    for (names, format) in [
      (["log", "meta", "catalog", "repositories.keys", "repositories.rows", "repositories.index"], 6),
      (["log", "meta", "catalog", "repositories.keys", "repositories.rows", "repositories.indexes"], 7),
      (
        [
          "log", "meta", "catalog", "repositories.keys", "repositories.rows", "repositories.indexes",
          "repositories.columns",
        ], StoreDirectory.currentFormat
      ),
    ] {
      let path = directory.child("format-\(format)")
      try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
      do {
        let environment = try Environment.open(path: path)
        try environment.write { txn in
          for name in names { _ = try environment.openDatabase(name, create: true, in: txn) }
        }
      }
      #expect(StoreDirectory.format(ofDataFile: path + "/data.mdb") == format, "\(names)")
    }
  }

  /// A snapshot's data file from an older LiveLog is restored under its own format's marker, so
  /// that the first writable open upgrades it, stream position included; before, it got the
  /// current marker and read as an empty store. A current data file gets the current marker.
  @Test func aRestoredDataFileOfAnOlderFormatIsUpgraded() throws {
    let directory = try TemporaryDirectory()
    let old = try Self.copy(into: directory)
    let position = StreamPosition(stream: "repos", sequence: 9, lsn: 336)
    _ = try Self.placeStreamPosition(position, inFormatOneStore: old)
    let restored = directory.child("restored")
    try Store.restore(into: restored) { dataFile in
      try FileManager.default.copyItem(atPath: old + "/data.mdb", toPath: dataFile)
    }
    let marker = try String(contentsOfFile: restored + "/LIVELOG", encoding: .utf8)
    #expect(try StoreDirectory.parseMarker(marker, path: restored) < StoreDirectory.currentFormat)
    let store = try Store(directory: restored)
    #expect(try store.version() == 336)
    #expect(try store.count(in: "repositories") == 300)
    #expect(try store.streamPosition() == position)
    #expect(try store.verify().passed)
    let again = directory.child("again")
    try Store.restore(into: again) { _ in try store.writeEnvironmentCopy(into: again) }
    #expect(
      try String(contentsOfFile: again + "/LIVELOG", encoding: .utf8).contains(
        "format \(StoreDirectory.currentFormat)\n"))
  }

  /// Writes `position` and a replica id into the format-1 store at `path` as a replica of that
  /// format would hold them, opened for its log alone (as an upgrade opens it); returns the id.
  static func placeStreamPosition(_ position: StreamPosition, inFormatOneStore path: String) throws -> String
  {
    var options = StoreOptions()
    options.logOnly = true
    let store = try Store(directory: path, options: options)
    _ = try store.attachReplication(RefusingGate())
    defer { store.detachReplication() }
    let link = try #require(store.replicationLink.withLock { $0 })
    try store.environment.write { txn in try link.write(position, txn) }
    return try store.replicaID()
  }
}

/// A gate for a store that only holds a stream position: it takes no commit.
private struct RefusingGate: CommitGate {
  func admit(_ commit: EncodedCommit, after position: StreamPosition?) throws -> StreamPosition {
    throw StoreError.readOnly(path: "a test's replica")
  }
  func catchUp() throws {}
}

/// Progress reports, kept for the test.
final class ProgressLog: Sendable {
  private let log = Mutex<[StoreProgress]>([])
  func add(_ progress: StoreProgress) { log.withLock { $0.append(progress) } }
  var steps: [StoreProgress] { log.withLock { $0 } }
}
