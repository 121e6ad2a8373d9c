import Foundation
import LiveLog

extension Scenario {
  /// What an app does most: write a page of 30 search results durably, half of them new and
  /// half already stored (their stars and last update changed), into a store of the real
  /// fixtures (`repos-2022` and `api-repos`, about 27,000 records) and, in a full run, into
  /// larger stores padded with generated records. The peer is SQLite in WAL mode with
  /// `synchronous=FULL` and LiveLog's own index set (FTS5 trigram and B-trees), fed the same
  /// pages.
  static let commit = Scenario(
    name: "commit",
    summary: "durable commit of a 30-record page (half new, half updated), vs SQLite WAL FULL + FTS5"
  ) { context in
    let generator = try RepositoryGenerator()
    let real = generator.realRepositories
    // The real records always; larger stores only where the run asks for sizes past them.
    let sizes = [real.count] + context.sizes.filter { $0 > real.count }.sorted()
    for size in sizes {
      // Generated ids start past every real one.
      let padding = generator.generate(count: size - real.count, seed: 21, firstID: 1_000_000_000)
      let stored = real + padding
      let commits = context.quick ? 40 : 150
      let warmup = 5
      let pages = pages(
        of: stored, count: commits + warmup, generator: generator, seed: UInt64(size))

      let directory = try context.freshDirectory("commit-\(size)")
      var ourTimes: [Double] = []
      do {
        let store = try Store(directory: directory.appendingPathComponent("livelog").path)
        for start in stride(from: 0, to: stored.count, by: 10_000) {
          try store.write(stored[start..<min(start + 10_000, stored.count)].map(Mutation.upsert))
        }
        for (index, page) in pages.enumerated() {
          // Timed from the typed records, as SQLite's upsert binds each record's fields.
          let start = now()
          let summary = try store.write(page.map(Mutation.upsert))
          let elapsed = now() - start
          guard summary.inserted == 15, summary.updated == 15 else {
            throw BenchmarkFailure(
              "a page wrote \(summary.inserted) new and \(summary.updated) updated records, not 15 and 15")
          }
          if index >= warmup { ourTimes.append(elapsed) }
        }
      }

      var peerTimes: [Double] = []
      do {
        let peer = try SQLiteRepositoryStore(
          path: directory.appendingPathComponent("sqlite.db").path, durable: true)
        for start in stride(from: 0, to: stored.count, by: 10_000) {
          try peer.insert(stored[start..<min(start + 10_000, stored.count)])
        }
        for (index, page) in pages.enumerated() {
          let start = now()
          try peer.upsert(page)
          let elapsed = now() - start
          if index >= warmup { peerTimes.append(elapsed) }
        }
      }

      context.report.add(
        Comparison(
          scenario: "commit", name: "durable page of 30 (15 new, 15 updated)", size: size,
          ours: Figure(engine: "LiveLog", stats: Statistics(ourTimes), itemsPerOperation: 30),
          peer: Figure(
            engine: "SQLite WAL FULL + FTS5 trigram + B-trees", stats: Statistics(peerTimes),
            itemsPerOperation: 30),
          notes: ["peer p99 ms": Statistics(peerTimes).p99 * 1e3]))
      try? FileManager.default.removeItem(at: directory)
    }
  }

  /// Pages of 15 new records and 15 stored ones, each stored one drawn without repeats within
  /// its page and changed as a refreshed search result is: more stars (and watchers, which the
  /// API reports equal), a later `updated_at`. An id is new the first time it appears.
  private static func pages(
    of stored: [Repository], count: Int, generator: RepositoryGenerator, seed: UInt64
  ) -> [[Repository]] {
    var random = SplitMix64(seed: seed)
    let fresh = generator.generate(count: 15 * count, seed: seed &+ 1, firstID: 2_000_000_000)
    var current = stored
    return (0..<count).map { page in
      var picked = Set<Int>()
      var updates: [Repository] = []
      while updates.count < 15 {
        let index = Int(random.next() % UInt64(current.count))
        guard picked.insert(index).inserted else { continue }
        var repository = current[index]
        let stars = (repository.stargazersCount ?? 0) + 1 + Int64(random.next() % 20)
        repository.stargazersCount = stars
        repository.watchersCount = stars
        let seconds = (repository.updatedAt?.secondsSince1970 ?? 1_650_000_000) + 3_600
        repository.updatedAt = Timestamp(secondsSince1970: seconds)
        current[index] = repository
        updates.append(repository)
      }
      let new = Array(fresh[(page * 15)..<(page * 15 + 15)])
      current.append(contentsOf: new)
      // New and updated records interleaved, as a page of search results mixes them.
      return zip(new, updates).flatMap { [$0, $1] }
    }
  }
}
