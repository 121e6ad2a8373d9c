import Foundation
import LMDB
import Testing

@testable import LiveLog

/// Every stored record carries a checksum over its row and its bytes, so that a damaged record
/// fails the read that meets it, naming its row, instead of reaching the caller altered (before,
/// `query` printed altered records for 107 of 144 bit flips in record values).
@Suite struct RecordChecksumTests {
  /// Where the current state's record values of `records` lie in the data file, by row.
  static func recordValues(_ dataFile: String, records: String = "repositories.records") throws
    -> [(row: UInt64, bytes: Range<Int>)]
  {
    let file = try DataFile(path: dataFile)
    let meta = try #require(try DataFileHealth.examine(path: dataFile)?.current)
    let database = try #require(NamedDatabases.read(file, meta: meta).databases.first { $0.name == records })
    let walker = TreeWalker(file: file, pageSize: meta.pageSize, lastPage: meta.lastPage, integerKeys: true)
    var values: [(UInt64, Range<Int>)] = []
    _ = walker.walk(
      root: database.record.root,
      onEntry: { entry in
        let row = entry.key.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
        switch entry.value {
        case .inline(let offset, let count): values.append((row, offset..<offset + count))
        case .overflow(let page, let count):
          let start = Int(page) * meta.pageSize + PageFormat.pageHeaderSize
          values.append((row, start..<start + count))
        }
      }, onDamage: { damage in Issue.record("the pristine store is damaged: \(damage)") })
    return values
  }

  /// A bit flipped anywhere in any record value makes every query that reads the record fail
  /// with the row named and the repair to run, never print a record; the repair then restores
  /// the answers.
  @Test func aFlippedBitInAnyRecordFailsTheQueryThatReadsIt() throws {
    let directory = try TemporaryDirectory()
    let pristine = directory.child("pristine")
    try DamageSupport.makeStore(at: pristine, count: 300, batch: 25)
    let queries = [
      ["query", "TRUEPREDICATE", "--format", "json"],
      ["query", "TRUEPREDICATE SORT(forks_count DESC)", "--format", "json"],
    ]
    let answers = try queries.map { try CommandLineTool(store: pristine).run($0).stdout }
    let values = try Self.recordValues(pristine + "/data.mdb")
    // Every record (the input repeats some repositories), each line of the first answer one.
    #expect(values.count == answers[0].split(separator: "\n").count)
    var random = SplitMix64(seed: 20_261_201)
    for trial in 0..<24 {
      let store = directory.child("damaged-\(trial)")
      try DamageSupport.copy(pristine, to: store)
      let (row, bytes) = values[Int.random(in: 0..<values.count, using: &random)]
      let offset = Int.random(in: bytes, using: &random)
      try DamageSupport.flip(store + "/data.mdb", at: offset, bit: Int.random(in: 0..<8, using: &random))
      let what =
        "trial \(trial): a bit of row \(row)'s record (byte \(offset - bytes.lowerBound) of \(bytes.count))"
      for arguments in queries {
        let result = try CommandLineTool(store: store).run(arguments)
        #expect(result.status == 1, "\(what): \(arguments) exited \(result.status)")
        #expect(
          result.stderr.contains("record at row \(row)") && result.stderr.contains("replay --in-place"),
          "\(what): \(result.stderr)")
      }
      if trial == 0 {
        let repair = try CommandLineTool(store: store).run(["replay", "--in-place"])
        #expect(repair.status == 0, "\(repair.stderr)")
        #expect(try queries.map { try CommandLineTool(store: store).run($0).stdout } == answers)
      }
      try? FileManager.default.removeItem(atPath: store)
    }
  }

  /// A whole, intact record under another row — a value that moved — fails too: the checksum
  /// covers the row.
  @Test func anIntactRecordUnderAnotherRowFailsItsRead() throws {
    let directory = try TemporaryDirectory()
    let store = try Store(directory: directory.child("store"))
    try store.write(QueryFixture.shared.repositories.prefix(3).map { .upsert($0) })
    let records = try store.repositoriesCollection().databases.records
    try store.environment.write { txn in
      let first = try #require(try txn.get(records, 1).map { Array($0) })
      try txn.put(records, 2, first)
    }
    let second = PrimaryKey.integer(QueryFixture.shared.repositories[1].id)
    #expect(throws: StoreError.corruptState(reason: "repositories: the record at row 2 fails its checksum")) {
      try store.record(in: "repositories", key: second)
    }
    #expect(
      try store.record(in: "repositories", key: .integer(QueryFixture.shared.repositories[0].id)) != nil)
    #expect(try !store.verify().passed)
  }

  /// A store of format 2 (records without checksums) is upgraded in place: every record gets its
  /// checksum, the answers stay, and an upgrade whose marker was not rewritten (a crash right
  /// after its transaction) is not run twice.
  @Test(arguments: [false, true]) func aStoreOfFormatTwoGetsItsRecordChecksums(interrupted: Bool) throws {
    let directory = try TemporaryDirectory()
    let path = directory.child("store")
    let ids: [Int64]
    let digest: StateDigest
    do {
      let store = try Store(directory: path)
      try store.write(QueryFixture.shared.repositories.prefix(40).map { .upsert($0) })
      ids = try store.results(try Query(parsing: "stargazers_count > 100")).ids()
      digest = try store.digest()
      // Take it back to format 2: records as the codec writes them, no checksum, no meta key.
      let records = try store.repositoriesCollection().databases.records
      try store.environment.write { txn in
        var rows: [(UInt64, [UInt8])] = []
        try txn.withCursor(records) { cursor in
          var entry = try cursor.first()
          while let current = entry {
            rows.append((current.integerKey ?? 0, Array(current.value.dropLast(4))))
            entry = try cursor.next()
          }
        }
        for (row, record) in rows { try txn.put(records, row, record) }
        _ = try txn.delete(store.meta, StoreLayout.recordChecksumsKey)
      }
    }
    try "LiveLog store\nformat 2\n".write(toFile: path + "/LIVELOG", atomically: true, encoding: .utf8)
    var readOnly = StoreOptions()
    readOnly.readOnly = true
    #expect(throws: StoreError.upgradeRequired(path: path, found: 2)) {
      try Store(directory: path, options: readOnly)
    }
    let progress = ProgressLog()
    var options = StoreOptions()
    options.progress = { progress.add($0) }
    do {
      let store = try Store(directory: path, options: options)
      #expect(progress.steps.last?.step == .upgrading && progress.steps.last?.completed == 40)
      #expect(try store.results(try Query(parsing: "stargazers_count > 100")).ids() == ids)
      #expect(try store.digest() == digest)
      #expect(try store.verify().passed)
    }
    #expect(
      try String(contentsOfFile: path + "/LIVELOG", encoding: .utf8).contains(
        "format \(StoreDirectory.currentFormat)"))
    if interrupted {
      try "LiveLog store\nformat 2\n".write(toFile: path + "/LIVELOG", atomically: true, encoding: .utf8)
      let store = try Store(directory: path)
      #expect(try store.digest() == digest)
      #expect(try store.verify().passed)
    }
  }
}
