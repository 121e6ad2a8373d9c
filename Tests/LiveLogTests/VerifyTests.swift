import Foundation
import LMDB
import Testing

@testable import LiveLog

/// `verify` replays into a scratch store without its indexes and fingerprints what they would
/// hold from the records (`Replayer.buildsIndexes`). These check that shortcut against the
/// indexes themselves, read back from pages and recent rows, and that a damaged index is still
/// found and named.
@Suite struct VerifyTests {
  /// A store of both kinds of keys and every index kind: repositories (integer keys, covering
  /// ordered pages) and the generated collection (string keys, lists, dates, doubles, text that
  /// folds unusually); large commits (segments), small ones (recent rows), updates, deletes and
  /// re-inserts; and a collection whose records were all deleted.
  static func mixedStore(in directory: TemporaryDirectory, seed: UInt64) throws -> Store {
    var options = StoreOptions()
    options.durability = .noSync
    options.recentCapacity = 30
    let store = try Store(directory: directory.child("live"), options: options)
    var random = SplitMix64(seed: seed)
    let repositories = Array(QueryFixture.shared.repositories.prefix(1_200))
    try store.write(repositories.prefix(700).map(Mutation.upsert))
    for repository in repositories[700...] where random.next() % 4 == 0 {
      try store.write([.upsert(repository)])
    }
    try store.createCollection(GeneratedCollection.schema)
    let things = GeneratedCollection.records(count: 800, seed: seed)
    func thing(_ values: [FieldValue]) -> Mutation {
      .upsert(RecordValues(schema: GeneratedCollection.schema, values: values))
    }
    try store.write(things.prefix(600).map(thing))
    for round in 0..<40 {
      let index = Int(random.next() % 600)
      switch random.next() % 4 {
      case 0:
        try store.write([
          .delete(from: GeneratedCollection.schema, key: try #require(PrimaryKey(things[index][0])))
        ])
      case 1:
        try store.write([thing(things[index])])
      case 2:
        var values = GeneratedCollection.record(index, &random)
        values[0] = things[index][0]
        try store.write([thing(values)])
      default:
        var changed = repositories[index]
        changed.stargazersCount = Int64(round)
        changed.description = round % 2 == 0 ? nil : "Ünïcode \(round) ſtar"
        try store.write([.upsert(changed)])
      }
    }
    try store.write([.delete(id: repositories[3].id), .delete(id: repositories[700].id)])
    let gone = CollectionSchema(name: "gone", primaryKey: "key", fields: GeneratedCollection.schema.fields)
    try store.createCollection(gone)
    let goneRecords = GeneratedCollection.records(count: 20, seed: seed + 1)
    try store.write(
      goneRecords.map { .upsert(RecordValues(schema: gone, values: $0)) })
    try store.write(try goneRecords.map { .delete(from: gone, key: try #require(PrimaryKey($0[0]))) })
    return store
  }

  /// Each collection's index fingerprints as read from its pages and recent rows, by name.
  static func indexFingerprints(_ store: Store) throws -> [String: StateContent.IndexFingerprints] {
    try store.read { txn, state in
      var all: [String: StateContent.IndexFingerprints] = [:]
      for collection in state.all {
        all[collection.name] = try StateContent.indexFingerprints(of: collection, byRow: true, txn)
      }
      return all
    }
  }

  /// Damages `collection`'s index behind the store's back: `edit` applied to the pages of the
  /// segment that holds its row, as no commit would.
  static func damageIndex(of store: Store, _ collection: StoredCollection, _ edit: PostingEdit) throws {
    try store.environment.write { txn in
      let directory = try collection.directory(txn)
      let segment = try #require(directory.segment(of: edit.row))
      try SegmentEditor(
        index: collection.databases.index, segment: directory.starts[segment], txn: txn,
        coversKeys: directory.coversKeys
      )
      .apply([edit])
    }
  }

  /// A row well inside `collection`'s segments (in their pages, not the recent rows), the code of
  /// its record's first trigram posting, and that code's positions.
  static func firstTrigram(ofARowIn store: Store, _ collection: StoredCollection) throws -> (
    UInt32, Row, [UInt32]
  ) {
    try store.environment.read { txn in
      let directory = try collection.directory(txn)
      let recent = Set(try RecentRows.load(collection, txn).rows)
      let start = directory.starts[directory.starts.count / 2] + 3
      let row = try #require((start..<start + 50).first { !recent.contains($0) })
      let record = try #require(try collection.record(at: UInt64(row), txn))
      let entries = try collection.entries(of: record, row: UInt64(row))
      let posting = try #require(entries.trigrams.first)
      let code = UInt32(truncatingIfNeeded: posting >> 32)
      let positions = entries.trigrams.filter { UInt32(truncatingIfNeeded: $0 >> 32) == code }
        .map { UInt32(truncatingIfNeeded: $0) }
      return (code, row, positions)
    }
  }

  /// How two fingerprints differ, in a line; `nil` when they agree.
  static func mismatch(_ a: StateContent.IndexFingerprints?, _ b: StateContent.IndexFingerprints?) -> String?
  {
    let a = a ?? .init()
    let b = b ?? .init()
    guard let row = a.firstDifferingRow(from: b) else {
      return a.entries == b.entries ? nil : "\(a.entries) entries against \(b.entries)"
    }
    return "\(a.entries) entries against \(b.entries), first differing at row \(row)"
  }

  @Test(arguments: [UInt64(3), 4])
  func fingerprintsFromRecordsEqualTheIndexesReadBack(seed: UInt64) throws {
    let directory = try TemporaryDirectory()
    let store = try Self.mixedStore(in: directory, seed: seed)
    #expect(try RecentRowsTests.recentCount(store) > 0)
    let live = try Self.indexFingerprints(store)
    let replayed = try Self.indexFingerprints(try store.replay(into: directory.child("replayed")))
    let scratch = try Store(directory: directory.child("scratch"))
    var replayer = Replayer(source: store, target: scratch)
    replayer.buildsIndexes = false
    let computed = try replayer.run(through: try store.version()) { _ in }
    let names = try scratch.read { _, state in
      Dictionary(uniqueKeysWithValues: state.all.map { ($0.id, $0.name) })
    }
    let byName = Dictionary(
      uniqueKeysWithValues: computed.indexFingerprints.map { (names[$0.key] ?? "?", $0.value) })
    #expect(Set(live.keys) == ["repositories", "things", "gone"])
    for name in live.keys {
      #expect((live[name]?.entries ?? 0) > 0 || name == "gone", "\(name) has no entries")
      #expect(Self.mismatch(live[name], replayed[name]) == nil, "\(name): the replay's pages differ")
      #expect(Self.mismatch(live[name], byName[name]) == nil, "\(name): the records' fingerprints differ")
    }
    // The scratch store holds no index entries, and says it is unfinished.
    #expect(try scratch.environment.read { try $0.get(scratch.meta, StoreLayout.incompleteReplayKey) } != nil)
    #expect(try Self.indexFingerprints(scratch).values.allSatisfy { $0.entries == 0 })
    let report = try store.verify(scratchParent: directory.path)
    #expect(report.passed, "\(report.difference.map(String.init(describing:)) ?? "")")
    #expect(report.digest == (try store.digest()))
  }

  /// The fingerprint read from a record's bytes in place (`StateContent.fingerprint(ofRecord:)`)
  /// equals the one the index reader computes (`IndexEntry.fingerprint`) for the entries the
  /// writer files for the decoded record (`IndexEntries`), each ordered one with its copy in the
  /// ordered columns (`IndexEntry.columnCopy(ofOrdered:)`): over generated records of every type,
  /// text that is not ASCII, ASCII text with capitals and NUL bytes, records stored with fewer
  /// slots than the schema has (written before fields were added), whose missing fields file
  /// nil's entries, or with more (a later schema's), and under a schema whose fields `kind`
  /// (indexed) and `note` are retired. A value of the wrong type in an indexed field is refused.
  @Test func fingerprintsReadFromRecordBytesEqualThoseOfTheFiledEntries() throws {
    let all = GeneratedCollection.schema
    let retired = CollectionSchema(
      name: all.name, primaryKey: all.primaryKey.name,
      slotted: all.fields.filter { $0.name != "kind" && $0.name != "note" }, slotCount: all.slotCount)
    #expect(retired.field(named: "kind") == nil && retired.slotCount == all.slotCount)
    let title = try #require(all.field(named: "title")).position
    let owner = try #require(all.field(named: "owner.name")).position
    var random = SplitMix64(seed: 21)
    var scratch = StateContent.FingerprintScratch()
    let none = UnsafeBufferPointer<UInt32>(start: nil, count: 0)
    for index in 0..<4_000 {
      let schema = index % 2 == 0 ? all : retired
      var values = GeneratedCollection.record(index, &random)
      switch index % 8 {
      case 1, 2: values = Array(values.prefix(Int(random.next() % UInt64(values.count)) + 1))
      case 3, 4:
        values[title] = .string("Ab\u{0}CD-\(index)")
        values[owner] = .string("\u{0}\u{0}X")
      case 5, 6: values += [.string("Later"), .integer(5)]
      default: break
      }
      let row = Row(index + 1)
      let bytes = RecordCodec.encode(values)
      let read = try bytes.withUnsafeBytes {
        try StateContent.fingerprint(ofRecord: $0, schema: schema, row: row, &scratch)
      }
      let entries = IndexEntries(
        try bytes.withUnsafeBytes { try RecordCodec.decode($0, schema: schema) }, schema: schema)
      var sum: UInt64 = 0
      var count = 0
      func add(_ part: (sum: UInt64, entries: Int)) {
        sum &+= part.sum
        count += part.entries
      }
      for posting in entries.trigrams {
        let key = IndexKeys.trigramPrefix(UInt32(truncatingIfNeeded: posting >> 32))
        let position = [UInt32(truncatingIfNeeded: posting)]
        add(
          key.withUnsafeBytes { key in
            position.withUnsafeBufferPointer { StateContent.IndexEntry.fingerprint(.trigram, key, row, $0) }
          })
      }
      for term in entries.terms {
        add(term.withUnsafeBytes { StateContent.IndexEntry.fingerprint(.term, $0, row, none) })
      }
      for entry in entries.ordered {
        var key = [entry.field]
        entry.key.append(to: &key, width: Int(entry.width))
        let ordered = key.withUnsafeBytes { StateContent.IndexEntry.fingerprint(.ordered, $0, row, none) }
        add(ordered)
        // And its copy in the ordered columns.
        add((StateContent.IndexEntry.columnCopy(ofOrdered: ordered.sum), 1))
      }
      #expect(read.sum == sum && read.entries == count, "record \(index): \(values)")
    }
    var wrong = GeneratedCollection.record(0, &random)
    wrong[title] = .integer(7)
    let bytes = RecordCodec.encode(wrong)
    #expect(throws: MalformedBytes.self) {
      try bytes.withUnsafeBytes {
        try StateContent.fingerprint(ofRecord: $0, schema: all, row: 1, &scratch)
      }
    }
  }

  /// A verification's replay copies no log (`Replayer.copiesLog`): its target's log stays empty,
  /// its progress says the log is checked, and its checkpoints, summarized from the source's log,
  /// equal the source's and those of a replay that copies the log.
  @Test func aReplayWithoutTheLogSummarizesTheSourcesLog() throws {
    let directory = try TemporaryDirectory()
    let store = try Self.mixedStore(in: directory, seed: 8)
    let version = try store.version()
    let scratch = try Store(directory: directory.child("scratch"))
    var replayer = Replayer(source: store, target: scratch)
    replayer.buildsIndexes = false
    replayer.copiesLog = false
    var steps: Set<ReplayProgress.Step> = []
    let fingerprints = try replayer.run(through: version) { steps.insert($0.step) }
    #expect(steps == [.copyingLog, .buildingState])
    #expect(try scratch.environment.read { try scratch.log.lastLSN($0) } == 0)
    #expect(try scratch.environment.read { try $0.get(scratch.meta, StoreLayout.incompleteReplayKey) } != nil)
    // The marker is not content (verify removes it too).
    try scratch.environment.write { txn in _ = try txn.delete(scratch.meta, StoreLayout.incompleteReplayKey) }
    let live = try store.digest()
    let scratchDigest = try scratch.read {
      try scratch.digest($0, $1, indexFingerprints: fingerprints.indexFingerprints)
    }
    let copied = try store.replay(into: directory.child("copied")).digest()
    let liveCheckpoints = try #require(live.databases[StoreLayout.checkpoints])
    #expect(liveCheckpoints.entries > 1)
    #expect(scratchDigest.databases[StoreLayout.checkpoints] == liveCheckpoints)
    #expect(copied.databases[StoreLayout.checkpoints] == liveCheckpoints)
    // Everything but the log equals the live store's.
    var withoutLog = live.databases
    withoutLog[StoreLayout.log] = nil
    var scratchWithoutLog = scratchDigest.databases
    scratchWithoutLog[StoreLayout.log] = nil
    #expect(scratchWithoutLog == withoutLog)
    // Verify's progress says what its first step does.
    var phases: [String] = []
    #expect(try store.verify(scratchParent: directory.path) { phase, _, _ in phases.append(phase) }.passed)
    #expect(phases.first?.hasPrefix("checking the log: ") == true, "\(phases)")
    #expect(!phases.contains { $0.contains("copying") }, "\(phases)")
  }

  /// A verification's replay writes no key tables (`Replayer.writesKeys`): it digests, from the
  /// records' keys, the tables it would have written, which equal the live store's (integer keys
  /// as LMDB orders them, unsigned: a negative one last), and its target stays marked unfinished.
  @Test func aReplayWithoutKeysDigestsTheTablesItWouldWrite() throws {
    let directory = try TemporaryDirectory()
    let store = try Self.mixedStore(in: directory, seed: 9)
    let extremes = zip([Int64.min, -1, 0, Int64.max], QueryFixture.shared.repositories).map {
      id, repository in
      var repository = repository
      repository.id = id
      return Mutation.upsert(repository)
    }
    try store.write(extremes)
    let scratch = try Store(directory: directory.child("scratch"))
    var replayer = Replayer(source: store, target: scratch)
    replayer.writesKeys = false
    let unwritten = try replayer.run(through: try store.version()) { _ in }
    let live = try store.digest()
    let collections = try store.read { _, state in state.all }
    #expect(collections.count == 3)
    for collection in collections {
      let name = collection.databases.keys.name
      #expect(unwritten.keyDigests[name] == live.databases[name], "\(name)")
      #expect(try scratch.environment.read { try $0.statistics(collection.databases.keys).entries } == 0)
    }
    // With its log and indexes, only the keys keep it unfinished.
    #expect(try scratch.environment.read { try $0.get(scratch.meta, StoreLayout.incompleteReplayKey) } != nil)
  }

  /// A key table that names a wrong row is found by its digest, and the entry named by the
  /// comparison entry by entry, against the key table the verification writes only then.
  @Test(arguments: ["repositories", "things"])
  func aKeyNamingAnotherRowIsFoundAndNamed(collectionName: String) throws {
    let directory = try TemporaryDirectory()
    let store = try Self.mixedStore(in: directory, seed: 10)
    let collection = try #require(
      try store.read { _, state in state.all.first { $0.name == collectionName } })
    let (key, row) = try #require(
      try store.environment.read { txn in
        try txn.withCursor(collection.databases.keys) { cursor in
          try cursor.last().map { (Array($0.key), $0.value.loadUnaligned(as: UInt32.self)) }
        }
      })
    try store.environment.write { txn in
      try withUnsafeBytes(of: (row &+ 1).littleEndian) { damaged in
        try key.withUnsafeBytes { try txn.put(collection.databases.keys, $0, damaged) }
      }
    }
    func described(_ row: UInt32) -> String {
      var hasher = DigestHasher()
      withUnsafeBytes(of: row.littleEndian) { hasher.combine($0) }
      return "4 bytes (hash \(String(hasher.value, radix: 16)))"
    }
    let report = try store.verify(scratchParent: directory.path)
    #expect(!report.passed)
    let difference = try #require(report.difference)
    #expect(difference.database == collection.databases.keys.name, "\(difference)")
    let number = key.withUnsafeBytes { Int64(bitPattern: $0.loadUnaligned(as: UInt64.self)) }
    #expect(difference.key == "key \(number)", "\(difference)")
    #expect(difference.live == described(row &+ 1), "\(difference)")
    // The entry as the replay has it: the key table written for the comparison.
    #expect(difference.rebuilt == described(row), "\(difference)")
  }

  /// A damaged catalog that names two collections alike gives two tables of each name: the
  /// digest (whose tables are read side by side) keeps one of them, and verify reports the
  /// damage rather than stopping the process.
  @Test func aCatalogNamingTwoCollectionsAlikeDigestsWithoutATrap() throws {
    let directory = try TemporaryDirectory()
    var options = StoreOptions()
    options.durability = .noSync
    do {
      let store = try Store(directory: directory.child("live"), options: options)
      try store.write(QueryFixture.shared.repositories.prefix(2_000).map(Mutation.upsert))
      let collection = try store.repositoriesCollection()
      try store.environment.write { txn in
        try store.catalog.write(id: 7, name: collection.name, versions: collection.versions, txn)
      }
    }
    let store = try Store(directory: directory.child("live"), options: options)
    let names = try store.read { _, state in state.all.map(\.name) }
    #expect(names.filter { $0 == "repositories" }.count == 2, "the premise: two entries of one name")
    let digest = try store.digest()
    #expect(digest.databases["repositories.rows"]?.entries == 2_000)
    // The replay finds the damage, whichever way: an error or a difference.
    do {
      let report = try store.verify(scratchParent: directory.path)
      #expect(report.difference != nil)
    } catch let error as StoreError {
      #expect("\(error)".contains("corrupt"))
    }
  }

  /// An entry of the live log outside its events `1 ... version` (key 0, which no replay reads)
  /// makes the logs differ, though the scratch store copies no log to compare: verify fails and
  /// names the log and the entry.
  @Test func aLogEntryOutsideTheEventsIsNamed() throws {
    let directory = try TemporaryDirectory()
    let store = try Self.mixedStore(in: directory, seed: 9)
    try store.environment.write { txn in try txn.put(store.log.database, UInt64(0), [1, 2, 3]) }
    let report = try store.verify(scratchParent: directory.path)
    let difference = try #require(report.difference)
    #expect(difference.database == StoreLayout.log, "\(difference)")
    #expect(difference.rebuilt == "nothing", "\(difference)")
  }

  /// A posting added to the live index (a row filed under a trigram its record lacks) fails
  /// verify, which names the index and the row: the scratch store builds its indexes only then.
  @Test func aDamagedIndexIsFoundAndNamed() throws {
    let directory = try TemporaryDirectory()
    let store = try Self.mixedStore(in: directory, seed: 5)
    let collection = try store.repositoriesCollection()
    let (code, row) = try store.environment.read { txn -> (UInt32, Row) in
      let reader = try IndexReader(collection: collection, txn: txn)
      let slot = try #require(collection.schema.fields.first { $0.name == "full_name" }).position
      let code = IndexKeys.trigramCode(field: slot, UInt8(ascii: "z"), UInt8(ascii: "q"), UInt8(ascii: "x"))
      let rows = try reader.rows(of: IndexKeys.trigramPrefix(code), kind: .trigram)
      let directory = try collection.directory(txn)
      // Well inside the rows, so that a scratch store without index entries would differ first elsewhere.
      let start = directory.starts[directory.starts.count / 2] + 7
      let row = try #require((start..<start + 50).first { !rows.contains($0) })
      return (code, row)
    }
    try Self.damageIndex(
      of: store, collection,
      PostingEdit(kind: .trigram, key: IndexKeys.trigramPrefix(code), row: row, positions: [0]))
    let report = try store.verify(scratchParent: directory.path)
    let difference = try #require(report.difference)
    #expect(difference.database == "repositories.indexes")
    #expect(difference.key.contains("row \(row)"), "\(difference)")
    #expect(difference.live == "the entry" && difference.rebuilt == "nothing", "\(difference)")
  }

  /// One position of a row's trigram entry moved by one byte: the entry still has its code, its
  /// row and as many positions, so only the postings' own hashes tell it apart. Verify fails and
  /// names the row; the digest sees it too.
  @Test func aTrigramPositionMovedByOneIsFound() throws {
    let directory = try TemporaryDirectory()
    let store = try Self.mixedStore(in: directory, seed: 6)
    let collection = try store.repositoriesCollection()
    let before = try store.digest()
    let (code, row, positions) = try Self.firstTrigram(ofARowIn: store, collection)
    var moved = positions
    moved[moved.count - 1] += 1
    try Self.damageIndex(
      of: store, collection,
      PostingEdit(kind: .trigram, key: IndexKeys.trigramPrefix(code), row: row, positions: moved))
    #expect(try store.digest() != before)
    let report = try store.verify(scratchParent: directory.path)
    let difference = try #require(report.difference)
    #expect(difference.database == "repositories.indexes")
    #expect(difference.key.contains("row \(row)"), "\(difference)")
  }

  /// A row's postings of one trigram split into two entries, one of them filed in an earlier
  /// segment: the postings, and so their sums and count, are unchanged, but a reader would miss the
  /// part in the wrong segment. Reading the pages refuses it, naming the row and the segment.
  @Test func aTrigramEntrySplitAcrossSegmentsIsRefused() throws {
    let directory = try TemporaryDirectory()
    let store = try Self.mixedStore(in: directory, seed: 7)
    let collection = try store.repositoriesCollection()
    let (code, row, positions) = try Self.firstTrigram(ofARowIn: store, collection)
    let earlier = try store.environment.read { try collection.directory($0).starts[0] }
    try #require(try store.environment.read { try collection.directory($0).segment(of: row) } != 0)
    let key = IndexKeys.trigramPrefix(code)
    try Self.damageIndex(
      of: store, collection,
      PostingEdit(
        kind: .trigram, key: key, row: row, positions: positions.count > 1 ? Array(positions.dropLast()) : nil
      ))
    try store.environment.write { txn in
      try SegmentEditor(
        index: collection.databases.index, segment: earlier, txn: txn,
        coversKeys: try collection.directory(txn).coversKeys
      )
      .apply([PostingEdit(kind: .trigram, key: key, row: row, positions: [positions[positions.count - 1]])])
    }
    let error = try #require(throws: StoreError.self) { try store.verify(scratchParent: directory.path) }
    #expect("\(error)".contains("row \(row), outside its segment's rows \(earlier)..<"), "\(error)")
    #expect(throws: StoreError.self) { try store.digest() }
  }

  /// A recent row's trigram filter that is not the one its record makes (one more bit set) is
  /// refused by verify and by the digest, naming the row: the filter lists no codes to compare
  /// with a replay's entries, so it is compared with its record's instead.
  @Test func aRecentRowsWrongTrigramFilterIsRefused() throws {
    let directory = try TemporaryDirectory()
    let store = try Self.mixedStore(in: directory, seed: 9)
    let collection = try store.repositoriesCollection()
    let row = try store.environment.write { txn -> UInt64 in
      var found: (row: UInt64, entry: [UInt8])?
      try txn.withCursor(collection.databases.recent) { cursor in
        var current = try cursor.first()
        while let entry = current, found == nil {
          if entry.value.first.map({ $0 & 1 == 0 }) == true, let row = entry.integerKey {
            found = (row, Array(entry.value))
          }
          current = try cursor.next()
        }
      }
      let (row, entry) = try #require(found)
      let filter = try RecentEntryTests.filterRange(in: entry)
      var damaged = entry
      let byte = try #require(filter.first { damaged[$0] != 0xFF })
      damaged[byte] |= ~damaged[byte] & (0 &- ~damaged[byte])  // its lowest clear bit set
      try txn.put(collection.databases.recent, row, damaged)
      return row
    }
    let error = try #require(throws: StoreError.self) { try store.verify(scratchParent: directory.path) }
    #expect("\(error)".contains("row \(row)'s trigram filter"), "\(error)")
    #expect(throws: StoreError.self) { try store.digest() }
  }

  /// Two parts of one list that repeat a row, or step back, are refused; parts of different lists,
  /// or of one list stepping on, are not.
  @Test func aListsPartsMustStepOn() throws {
    typealias Visit = StateContent.IndexVisit
    let end = Visit.ListEnd(segment: 1, kind: .trigram, key: [1, 2, 3, 4], row: 40)
    var next = end
    next.row = 41
    try Visit.checkContinuity(end, next)
    try Visit.checkContinuity(nil, next)
    for row: Row in [40, 39] {
      next.row = row
      #expect(throws: PageDamage.self) { try Visit.checkContinuity(end, next) }
      var other = next
      other.key = [1, 2, 3, 5]
      try Visit.checkContinuity(end, other)
      other = next
      other.segment = 2
      try Visit.checkContinuity(end, other)
      other = next
      other.kind = .term
      try Visit.checkContinuity(end, other)
    }
  }

  /// More rows than one rebuilt segment holds: a replay lays out each segment while it writes the
  /// one before, and a verification fingerprints them in turn; both still equal the live store.
  @Test func aReplayOfSeveralSegmentsEqualsTheLiveStore() throws {
    let directory = try TemporaryDirectory()
    var options = StoreOptions()
    options.durability = .noSync
    let store = try Store(directory: directory.child("live"), options: options)
    let schema = CollectionSchema(
      name: "notes", primaryKey: "id",
      fields: [
        Field(position: 0, name: "id", type: .integer, indexes: .ordered, isOptional: false),
        Field(position: 0, name: "text", type: .string, indexes: [.substring, .equality]),
        Field(position: 0, name: "size", type: .integer, indexes: .ordered),
      ])
    try store.createCollection(schema)
    let count = Int(StoredCollection.rebuiltSegmentRows) * 2 + 5_000
    var random = SplitMix64(seed: 21)
    for start in stride(from: 0, to: count, by: 50_000) {
      try store.write(
        (start..<min(start + 50_000, count)).map { index in
          .upsert(
            RecordValues(
              schema: schema,
              values: [
                .integer(Int64(index)), .string("n\(random.next() % 5_000) ſ\(index % 7)"),
                .integer(Int64(random.next() % 1_000)),
              ]))
        })
    }
    try store.write((0..<300).map { .delete(from: schema, key: .integer(Int64($0 * 700))) })
    let rebuilt = try store.replay(into: directory.child("rebuilt"), options: options)
    let segments = try rebuilt.read { txn, state in
      try #require(state.collection(named: "notes")).directory(txn).count
    }
    #expect(segments >= 3)
    #expect(try rebuilt.digest() == store.digest())
    #expect(try store.verify(scratchParent: directory.path).passed)
  }
}
