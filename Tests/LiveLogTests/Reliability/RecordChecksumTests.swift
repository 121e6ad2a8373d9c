import Foundation
import LMDB
import Testing

@testable import LiveLog

/// A record is stored once, as the payload of its upsert event, whose checksum covers it: a
/// damaged record fails every read that meets it, naming its event, instead of reaching the
/// caller altered; and a state that points a row at another row's event is refused.
@Suite struct RecordChecksumTests {
  /// Where each event's value lies in the data file, by LSN.
  static func eventValues(_ dataFile: String) throws -> [(lsn: UInt64, bytes: Range<Int>)] {
    let file = try DataFile(path: dataFile)
    let meta = try #require(try DataFileHealth.examine(path: dataFile)?.current)
    let database = try #require(NamedDatabases.read(file, meta: meta).databases.first { $0.name == "log" })
    let walker = TreeWalker(file: file, pageSize: meta.pageSize, lastPage: meta.lastPage, integerKeys: true)
    var values: [(UInt64, Range<Int>)] = []
    _ = walker.walk(
      root: database.record.root,
      onEntry: { entry in
        let lsn = entry.key.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
        switch entry.value {
        case .inline(let offset, let count): values.append((lsn, offset..<offset + count))
        case .overflow(let page, let count):
          let start = Int(page) * meta.pageSize + PageFormat.pageHeaderSize
          values.append((lsn, start..<start + count))
        }
      }, onDamage: { damage in Issue.record("the pristine store is damaged: \(damage)") })
    return values
  }

  /// A bit flipped anywhere in the event of a record's current version makes every query that
  /// reads the record fail with the event named and what to do, never print a record.
  @Test func aFlippedBitInAnyCurrentRecordFailsTheQueryThatReadsIt() throws {
    let directory = try TemporaryDirectory()
    let pristine = directory.child("pristine")
    try DamageSupport.makeStore(at: pristine, count: 300, batch: 25)
    let queries = [
      ["query", "TRUEPREDICATE", "--format", "json"],
      ["query", "TRUEPREDICATE SORT(forks_count DESC)", "--format", "json"],
    ]
    let answers = try queries.map { try CommandLineTool(store: pristine).run($0).stdout }
    var current = Set<UInt64>()
    do {
      let store = try Store(directory: pristine)
      let collection = try store.repositoriesCollection()
      try store.environment.read { txn in
        try StateContent.forEachRow(of: collection, txn) { _, lsn, _ in current.insert(lsn) }
      }
    }
    let values = try Self.eventValues(pristine + "/data.mdb").filter { current.contains($0.lsn) }
    // Every record (the input repeats some repositories), each line of the first answer one.
    #expect(values.count == answers[0].split(separator: "\n").count)
    var random = SplitMix64(seed: 20_261_201)
    for trial in 0..<24 {
      let store = directory.child("damaged-\(trial)")
      try DamageSupport.copy(pristine, to: store)
      let (lsn, bytes) = values[Int.random(in: 0..<values.count, using: &random)]
      let offset = Int.random(in: bytes, using: &random)
      try DamageSupport.flip(store + "/data.mdb", at: offset, bit: Int.random(in: 0..<8, using: &random))
      let what = "trial \(trial): a bit of event \(lsn) (byte \(offset - bytes.lowerBound) of \(bytes.count))"
      for arguments in queries {
        let result = try CommandLineTool(store: store).run(arguments)
        #expect(result.status == 1, "\(what): \(arguments) exited \(result.status)")
        #expect(
          result.stderr.contains("event \(lsn)") && result.stderr.contains("backup"),
          "\(what): \(result.stderr)")
      }
      try? FileManager.default.removeItem(atPath: store)
    }
  }

  /// A row pointed at another row's intact event fails its read: the event names its row.
  @Test func anIntactRecordUnderAnotherRowFailsItsRead() throws {
    let directory = try TemporaryDirectory()
    let store = try Store(directory: directory.child("store"))
    // More than a small commit: the rows go to the row table, not the recent rows.
    try store.write(QueryFixture.shared.repositories.prefix(300).map { .upsert($0) })
    let collection = try store.repositoriesCollection()
    try store.environment.write { txn in
      let first = try #require(try collection.rowTable.slot(of: 1, txn))
      let second = try #require(try collection.rowTable.slot(of: 2, txn))
      try collection.rowTable.apply(
        [RowTable.Change(row: 2, lsn: first.lsn, key: Array(second.key), isRemoval: false)], txn)
    }
    let lsn = try store.environment.read { try collection.rowTable.slot(of: 1, $0)?.lsn ?? 0 }
    let second = PrimaryKey.integer(QueryFixture.shared.repositories[1].id)
    #expect(
      throws: StoreError.corruptState(
        reason: "repositories: row 2 names event \(lsn), which is not an upsert of that row")
    ) {
      try store.record(in: "repositories", key: second)
    }
    #expect(
      try store.record(in: "repositories", key: .integer(QueryFixture.shared.repositories[0].id)) != nil)
    #expect(try !store.verify().passed)
  }

  /// A store of an older format is rebuilt from its log on its first writable open: the same
  /// answers and digest; an upgrade whose marker was not rewritten (a crash right after the swap)
  /// runs again and changes nothing.
  @Test(arguments: [false, true]) func aStoreOfAnOlderFormatIsRebuiltFromItsLog(interrupted: Bool) throws {
    let directory = try TemporaryDirectory()
    let path = directory.child("store")
    let ids: [Int64]
    let digest: StateDigest
    do {
      let store = try Store(directory: path)
      try store.write(QueryFixture.shared.repositories.prefix(40).map { .upsert($0) })
      ids = try store.results(try Query(parsing: "stargazers_count > 100")).ids()
      digest = try store.digest()
    }
    try "LiveLog store\nformat 4\n".write(toFile: path + "/LIVELOG", atomically: true, encoding: .utf8)
    var readOnly = StoreOptions()
    readOnly.readOnly = true
    #expect(throws: StoreError.upgradeRequired(path: path, found: 4)) {
      try Store(directory: path, options: readOnly)
    }
    let progress = ProgressLog()
    var options = StoreOptions()
    options.progress = { progress.add($0) }
    do {
      let store = try Store(directory: path, options: options)
      #expect(progress.steps.last?.step == .upgrading(.buildingState) && progress.steps.last?.completed == 40)
      #expect(try store.results(try Query(parsing: "stargazers_count > 100")).ids() == ids)
      #expect(try store.digest() == digest)
      #expect(try store.verify().passed)
    }
    #expect(
      try String(contentsOfFile: path + "/LIVELOG", encoding: .utf8).contains(
        "format \(StoreDirectory.currentFormat)"))
    if interrupted {
      try "LiveLog store\nformat 4\n".write(toFile: path + "/LIVELOG", atomically: true, encoding: .utf8)
      let store = try Store(directory: path)
      #expect(try store.digest() == digest)
      #expect(try store.verify().passed)
    }
  }
}
