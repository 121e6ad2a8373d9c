import Foundation
import LMDB
import Testing

@testable import LiveLog

/// The ordered columns (`OrderedColumns`): each row's ordered values, by row, which an `AND` reads
/// for a range far larger than its other parts' rows instead of checking their records.
@Suite struct OrderedColumnsTests {
  /// A block read back gives every row the key it was written with, and none to the rows it
  /// lacks: random subsets of 64 rows, with values spread narrowly and widely, nil, NaN, the
  /// extremes and dates with nanoseconds.
  @Test func aBlockReadsBackTheKeysItWasWrittenWith() throws {
    var random = SplitMix64(seed: 8)
    for round in 0..<2_000 {
      var expected: [Int: OrderedKey] = [:]
      let density = random.next() % 65
      let spread = [UInt64(0), 200, 70_000, 1 << 40, .max][round % 5]
      let base = random.next()
      for bit in 0..<64 where random.next() % 64 < density {
        switch random.next() % 10 {
        case 0: expected[bit] = .null
        case 1: expected[bit] = .double(.nan)
        case 2: expected[bit] = OrderedKey(flag: 1, high: random.next() % 2 == 0 ? 0 : .max, low: .max)
        default:
          let offset = spread == .max ? random.next() : random.next() % (spread + 1)
          expected[bit] = OrderedKey(
            flag: 1, high: base &+ offset, low: round % 2 == 0 ? 0 : UInt32(truncatingIfNeeded: random.next())
          )
        }
      }
      let rows = expected.keys.reduce(UInt64(0)) { $0 | 1 << UInt64($1) }
      let bytes = OrderedColumnBlock.encode(rows: rows) { expected[$0]! }
      try bytes.withUnsafeBytes { value in
        let block = try OrderedColumnBlock(value)
        for bit in 0..<64 {
          #expect(block.key(atBit: bit) == expected[bit], "round \(round), bit \(bit)")
        }
        var listed: [Int: OrderedKey] = [:]
        block.forEach { listed[$0] = $1 }
        #expect(listed == expected, "round \(round)")
        // Cut short, or a byte longer, it is refused rather than read past its end.
        #expect(throws: PageDamage.self) {
          try OrderedColumnBlock(UnsafeRawBufferPointer(rebasing: value.dropLast()))
        }
      }
      #expect(throws: PageDamage.self) {
        try (bytes + [0]).withUnsafeBytes { _ = try OrderedColumnBlock($0) }
      }
    }
  }

  static func repository(_ id: Int64, _ random: inout SplitMix64) -> Repository {
    // About one name in 400 holds "qzx"; nine stars in ten are above 10.
    let mark = random.next() % 400 == 0 ? "QzxKit" : "kit"
    var repository = Repository(
      id: id, fullName: "owner\(random.next() % 300)/\(mark)-\(random.next() % 10_000)")
    repository.stargazersCount =
      random.next() % 10 == 0 ? Int64(random.next() % 11) : Int64(random.next() % 5_000)
    if random.next() % 20 != 0 {
      repository.createdAt = Timestamp(
        secondsSince1970: 1_200_000_000 + Int64(random.next() % 400_000_000),
        nanoseconds: Int32(random.next() % 1_000_000_000))
    }
    return repository
  }

  /// A rare term `AND` a range holding most rows reads the range by row among the term's rows: the
  /// answer is a brute-force filter's, across segments, recent rows, updates that move a row in or
  /// out of the range, and deletions, and the store verifies (its columns agree with its records).
  @Test(arguments: [3, 4])
  func aWideRangeReadByRowAgreesWithBruteForce(seed: UInt64) throws {
    let directory = try TemporaryDirectory()
    let modelled = try ModelledStore(in: directory)
    let store = modelled.store
    var random = SplitMix64(seed: seed)
    for batch in 0..<5 {
      try modelled.upsert((0..<3_000).map { Self.repository(Int64(batch * 3_000 + $0 + 1), &random) })
    }
    let queries = [
      "full_name CONTAINS[c] 'qzx' AND stargazers_count > 10",
      "stargazers_count >= 3 AND full_name CONTAINS[c] 'qzx'",
      "full_name CONTAINS[c] 'qzx' AND stargazers_count BETWEEN {11, 4000}",
      "full_name CONTAINS[c] 'qzx' AND created_at > 1300000000",
      "full_name CONTAINS[c] 'qzx' AND stargazers_count > 10 AND created_at < 1500000000",
      "full_name CONTAINS[c] 'qzx' AND NOT stargazers_count <= 10",
    ]
    func check(_ stage: String) throws {
      for text in queries {
        let query = try Query(parsing: text)
        #expect(try store.results(query).ids().sorted() == modelled.expectedIDs(query), "\(stage): \(text)")
        guard !text.contains("NOT") else { continue }
        let explanation = try store.explain(query)
        let byRow = explanation.steps.filter { $0.description.contains("by row among") }
        #expect(!byRow.isEmpty && byRow.allSatisfy(\.exact), "\(stage): \(text): \(explanation.steps)")
        // Nothing left to check: no record was read (but the recent rows' holding the term,
        // whose entries keep no trigram positions).
        if stage != "recent rows" { #expect(explanation.checked == 0, "\(stage): \(text): \(explanation)") }
      }
    }
    try check("segments")
    for round in 0..<90 {
      let id = Int64(1 + random.next() % 15_000)
      switch round % 3 {
      case 0:
        var repository = Self.repository(id, &random)
        repository.fullName = "owner1/qzx-\(round)"
        try modelled.upsert([repository])
      case 1:
        // A stored row's stars alone changed: in or out of the range.
        guard var repository = modelled.model[id] else { continue }
        repository.stargazersCount = round % 2 == 0 ? 5 : 50
        try modelled.upsert([repository])
      default:
        try modelled.delete(id)
      }
      if round == 45 { try check("recent rows") }
    }
    try check("recent rows")
    // A large commit folds the recent rows into the columns.
    try modelled.upsert((0..<600).map { Self.repository(Int64(30_000 + $0), &random) })
    try check("folded")
    let report = try store.verify(scratchParent: directory.path)
    #expect(report.passed, "\(report.difference.map(String.init(describing:)) ?? "")")
  }

  /// A store of format 7 has no columns: a read-only open reads it as it is (each candidate's
  /// record checked, with the same answers), as do `livelog`'s reading commands, which leave it
  /// at format 7 and say so; the first writable open rebuilds it with them.
  @Test func aStoreOfFormatSevenIsReadAsItIsThenUpgraded() throws {
    let directory = try TemporaryDirectory()
    let path = directory.child("store")
    var random = SplitMix64(seed: 10)
    let repositories = (1...6_000).map { Self.repository(Int64($0), &random) }
    do {
      let store = try Store(directory: path)
      try store.write(repositories.map(Mutation.upsert))
      // What a store of format 7 holds: the same, without `NAME.columns`.
      try store.environment.write { txn in
        let collection = try #require(try store.read { _, state in state.collection(named: "repositories") })
        try txn.drop(try #require(collection.databases.columns))
      }
    }
    try StoreDirectory(path: path).writeMarker(format: 7)
    #expect(StoreDirectory.format(ofDataFile: path + "/data.mdb") == 7)
    let text = "full_name CONTAINS[c] 'qzx' AND stargazers_count > 10"
    let query = try Query(parsing: text)
    let expected = repositories.filter { ReferenceEvaluator.matches(query.predicate, $0.fieldValues) }
      .map(\.id).sorted()
    #expect(!expected.isEmpty)
    do {
      var readOnly = StoreOptions()
      readOnly.readOnly = true
      let store = try Store(directory: path, options: readOnly)
      #expect(try store.results(query).ids().sorted() == expected)
      let explanation = try store.explain(query)
      #expect(!explanation.steps.contains { $0.description.contains("by row among") }, "\(explanation.steps)")
      #expect(explanation.checked > 0)
      #expect(try store.verify(scratchParent: directory.path).passed)
      #expect(try store.statistics().format == 7)
    }
    let tool = CommandLineTool(store: path)
    let listed = try tool.run(["query", text, "--format", "ndjson"])
    #expect(listed.status == 0 && !listed.stderr.contains("upgrading"), "\(listed.stderr)")
    let ids = try listed.stdout.split(separator: "\n").map { line in
      try #require(
        (try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["id"] as? Int64)
    }
    #expect(ids.sorted() == expected, "\(listed.stdout)")
    #expect(try tool.run(["stats"]).stdout.contains("format 7"))
    #expect(try String(contentsOfFile: path + "/LIVELOG", encoding: .utf8).contains("format 7"))
    let store = try Store(directory: path)
    #expect(
      try String(contentsOfFile: path + "/LIVELOG", encoding: .utf8).contains(
        "format \(StoreDirectory.currentFormat)"))
    #expect(try store.results(query).ids().sorted() == expected)
    #expect(try store.explain(query).steps.contains { $0.description.contains("by row among") })
    #expect(try store.verify(scratchParent: directory.path).passed)
  }

  /// A column block that disagrees with the records fails verification, at the index, naming the
  /// row; a block past the collection's rows is damage, reported as such.
  @Test func aDamagedColumnFailsVerification() throws {
    let directory = try TemporaryDirectory()
    let store = try Store.scratch(in: directory)
    var random = SplitMix64(seed: 9)
    try store.write((1...2_000).map { Mutation.upsert(Self.repository(Int64($0), &random)) })
    #expect(try store.verify(scratchParent: directory.path).passed)
    try store.environment.write { txn in
      let collection = try #require(try store.read { _, state in state.collection(named: "repositories") })
      let columns = try #require(collection.orderedColumns)
      let slot = try #require(collection.schema.field(named: "stargazers_count")).position
      try columns.apply(
        [
          OrderedColumns.Change(row: 70, keys: [(UInt8(slot), .integer(123_456_789))])
        ], txn)
    }
    let report = try store.verify(scratchParent: directory.path)
    #expect(!report.passed)
    let difference = String(describing: report.difference)
    #expect(difference.contains("repositories.indexes"), "\(difference)")
    #expect(difference.contains("the ordered columns of row 70"), "\(difference)")
    try store.environment.write { txn in
      let collection = try #require(try store.read { _, state in state.collection(named: "repositories") })
      let columns = try #require(collection.orderedColumns)
      let block = OrderedColumnBlock.encode(rows: 1) { _ in .integer(1) }
      try txn.put(columns.database, OrderedColumns.key(block: 1 << 24, slot: columns.slots[0]), block)
    }
    do {
      let report = try store.verify(scratchParent: directory.path)
      #expect(!report.passed)
    } catch {
      #expect(String(describing: error).contains("the ordered columns is damaged"), "\(error)")
    }
  }
}
