import LMDB
import Testing

@testable import LiveLog

/// An `AND` counts an equality list to order its parts, again with a higher limit once the
/// candidates bound it, and then reads it among them: the counts go on from the segments counted
/// before, and the read takes the parts they found (`PostingListParts`). Held to the count and
/// the read that find the list afresh, and to the records written, over a store of several
/// segments, with and without recent rows, for limits that stop the count at every segment.
@Suite struct PostingListPartsTests {
  private let languages = ["Python", "Python", "Python", "Swift", "Go", "Rust"]

  @Test(arguments: [UInt64(3), 4])
  func countsAndReadsFromCountedPartsAsAfresh(seed: UInt64) throws {
    let directory = try TemporaryDirectory()
    let store = try Store.scratch(in: directory)
    var random = SplitMix64(seed: seed)
    var language: [Int64: String] = [:]
    func write(_ count: Int) throws {
      var batch: [Mutation] = []
      for _ in 0..<count {
        let id = Int64.random(in: 1...1_000_000, using: &random)
        let value = languages[Int(random.next() % UInt64(languages.count))]
        language[id] = value
        var repository = Repository(id: id, fullName: "owner/r\(id)")
        repository.language = value
        batch.append(.upsert(repository))
      }
      try store.write(batch)
    }
    // Batches that fold into segments: four of about one size merge, so six leave three.
    for _ in 0..<6 { try write(1_200) }
    try check(store, language, recent: false, &random)
    // A small commit's rows stay recent.
    try write(15)
    try check(store, language, recent: true, &random)
  }

  private func check(
    _ store: Store, _ language: [Int64: String], recent: Bool, _ random: inout SplitMix64
  ) throws {
    let collection = try store.repositoriesCollection()
    let field = try #require(collection.schema.fields.first { $0.name == "language" })
    try store.environment.read { txn in
      let reader = try IndexReader(collection: collection, txn: txn)
      #expect(reader.directory.starts.count >= 2, "the batches were to make several segments")
      #expect(reader.recent.isEmpty == !recent)
      for value in Set(languages).sorted() + ["Haskell"] {
        let key = IndexKeys.termPrefix(field: field.position, value: value)
        let whole = try reader.rows(of: key, kind: .term)
        #expect(whole.count == language.values.count { $0 == value }, "\(value)")
        let lastRow = whole.last ?? 0
        var counted = PostingListParts(key: key, kind: .term)
        for round in 0..<8 {
          // Rising limits, as an `AND`'s counts go, and now and then a lower one.
          let limit =
            round % 3 == 2
            ? Int.random(in: 0...whole.count / 4 + 1, using: &random)
            : whole.count * round / 6 + Int.random(in: 0...50, using: &random)
          let afresh = try reader.count(of: key, kind: .term, limit: limit)
          let resumed = try reader.count(&counted, limit: limit)
          if afresh <= limit {
            #expect(resumed == afresh, "\(value), limit \(limit)")
          } else {
            #expect(resumed > limit, "\(value), limit \(limit): \(resumed) against \(afresh)")
          }
          var members = Set<Row>()
          for _ in 0..<Int.random(in: 0...300, using: &random) {
            members.insert(
              Bool.random(using: &random) && !whole.isEmpty
                ? whole[Int.random(in: 0..<whole.count, using: &random)]
                : Row.random(in: 0...lastRow + 100, using: &random))
          }
          let sorted = members.sorted()
          #expect(
            try reader.rows(of: key, kind: .term, within: sorted, counted: counted)
              == RowSet.intersection(whole, sorted), "\(value), round \(round)")
          #expect(
            try reader.rows(of: key, kind: .term, counted: counted) == whole, "\(value), round \(round)")
        }
      }
    }
  }
}
