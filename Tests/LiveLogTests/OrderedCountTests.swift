import LMDB
import Testing

@testable import LiveLog

/// A range's estimate counts whole pages from their headers and decodes only the pages at its two
/// ends (`SegmentLookup.countOrdered`). Held to a plain count of the values written, over ranges
/// that start and end inside runs of equal values spanning several pages, and with recent rows.
@Suite struct OrderedCountTests {
  @Test(arguments: [UInt64(1), 2])
  func rangeCountsFromPageHeadersEqualThePlainCount(seed: UInt64) throws {
    let directory = try TemporaryDirectory()
    let store = try Store.scratch(in: directory)
    var random = SplitMix64(seed: seed)
    var stars: [Int64: Int64] = [:]
    // Batches large enough to fold into segments, so that no row is recent.
    for _ in 0..<4 {
      var batch: [Mutation] = []
      for _ in 0..<1_500 {
        let id = Int64.random(in: 1...1_000_000, using: &random)
        // Mostly a few dozen values (runs of a hundred rows, several pages each), some far apart.
        let value =
          Int.random(in: 0..<10, using: &random) == 0
          ? Int64.random(in: -5_000_000...5_000_000, using: &random)
          : Int64.random(in: 0...30, using: &random)
        stars[id] = value
        var repository = Repository(id: id, fullName: "owner/r\(id)")
        repository.stargazersCount = value
        batch.append(.upsert(repository))
      }
      try store.write(batch)
    }
    let collection = try store.repositoriesCollection()
    let field = try #require(collection.schema.fields.first { $0.name == "stargazers_count" })
    try store.environment.read { txn in
      let reader = try IndexReader(collection: collection, txn: txn)
      #expect(reader.recent.isEmpty, "the batches were to fold")
      var bounds: [(Int64, Int64)] = [(.min, .max), (0, 0), (30, 30), (31, 29), (-1, -1)]
      for _ in 0..<300 {
        let low =
          Bool.random(using: &random)
          ? Int64.random(in: -2...32, using: &random)
          : Int64.random(in: -6_000_000...6_000_000, using: &random)
        bounds.append((low, low + Int64.random(in: 0...40, using: &random)))
      }
      for (low, high) in bounds {
        let wanted = stars.values.count { $0 >= low && $0 <= high }
        let lower = OrderedKey.integer(low)
        let upper = OrderedKey.integer(high)
        let counted = try reader.orderedCount(field: field, lower: lower, upper: upper, limit: 1 << 40)
        #expect(counted == wanted, "\(low)...\(high)")
        let limit = Int.random(in: 0...200, using: &random)
        let capped = try reader.orderedCount(field: field, lower: lower, upper: upper, limit: limit)
        #expect(capped == min(wanted, limit + 1), "\(low)...\(high) with limit \(limit)")
        if counted != wanted { return }
      }
    }
    // A small commit's rows are recent: each is counted beside the segment entry it replaces.
    var recentStars: [Int64: Int64] = [:]
    var batch: [Mutation] = []
    for id in stars.keys.sorted().prefix(20) + (2_000_001...2_000_020).map(Int64.init) {
      let value = Int64.random(in: 0...30, using: &random)
      // An upsert identical to the current record writes nothing.
      if stars[id] != value { recentStars[id] = value }
      var repository = Repository(id: id, fullName: "owner/r\(id)")
      repository.stargazersCount = value
      batch.append(.upsert(repository))
    }
    try store.write(batch)
    try store.environment.read { txn in
      let reader = try IndexReader(collection: collection, txn: txn)
      #expect(!reader.recent.isEmpty, "the small commit was to stay recent")
      for _ in 0..<100 {
        let low = Int64.random(in: -2...32, using: &random)
        let high = low + Int64.random(in: 0...10, using: &random)
        let wanted =
          stars.values.count { $0 >= low && $0 <= high }
          + recentStars.values.count { $0 >= low && $0 <= high }
        let counted = try reader.orderedCount(
          field: field, lower: .integer(low), upper: .integer(high), limit: 1 << 40)
        #expect(counted == wanted, "\(low)...\(high) with recent rows")
      }
    }
  }
}
