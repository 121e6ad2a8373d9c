import Foundation
import LiveLog

extension Scenario {
  /// Replay with every index beside first-time ingest of the same data at every size of the run,
  /// so that the report shows how replay's cost grows with the store; then, at the largest size
  /// only (they are the slow part), verify and as-of queries at several depths of history beside
  /// replaying the prefix and querying it.
  static let replay = Scenario(
    name: "replay",
    summary:
      "replay throughput vs first-time ingest at every size; verify time and as-of queries at several"
      + " depths at the largest"
  ) { context in
    let generator = try RepositoryGenerator()
    let sizes = Set(context.sizes).sorted()
    for size in sizes {
      try ReplayBenchmark(context: context, generator: generator, size: size).run(
        history: size == sizes.last)
    }
  }
}

/// The replay scenario at one size: `size` generated records, then updates in batches of 10,000,
/// a quarter as many as the records (one batch at least).
private struct ReplayBenchmark {
  let context: BenchmarkContext
  let generator: RepositoryGenerator
  let size: Int

  /// A case's notes with the records its store was built from: the case's size is its number of
  /// events, which the updates make larger, and the report plots replay against records.
  private func notes(_ notes: [String: Double]) -> [String: Double] {
    notes.merging(["records": Double(size)]) { note, _ in note }
  }

  func run(history: Bool) throws {
    let repositories = generator.generate(count: size, seed: 11)
    var options = StoreOptions()
    options.durability = .noSync
    let directory = try context.freshDirectory("replay-\(size)")
    // Each size's stores go once measured, so that the smaller ones hold no disk while the next
    // is built.
    defer { try? FileManager.default.removeItem(at: directory) }
    let store = try Store(directory: directory.appendingPathComponent("live").path, options: options)
    // First-time ingest: inserts in batches of 10,000, then the updates (stars).
    let ingestStart = now()
    for start in stride(from: 0, to: size, by: 10_000) {
      try store.write(repositories[start..<min(start + 10_000, size)].map(Mutation.upsert))
    }
    var random = SplitMix64(seed: 5)
    for _ in 0..<max(1, size / 4 / 10_000) {
      try store.write(
        (0..<min(10_000, size)).map { _ in
          var repository = repositories[Int(random.next() % UInt64(size))]
          repository.stargazersCount = Int64(random.next() % 100_000)
          return .upsert(repository)
        })
    }
    let ingestTime = now() - ingestStart
    let events = try store.version()
    // What the checkpoints of time travel take beside the log they summarize.
    let sizes = try store.statistics().databases
    let checkpointBytes = sizes.first { $0.name == "checkpoints" }?.bytes ?? 0
    let logBytes = sizes.first { $0.name == "log" }?.bytes ?? 0

    // Replay everything into a new store.
    let replayStart = now()
    let rebuilt = try store.replay(into: directory.appendingPathComponent("rebuilt").path, options: options)
    let replayTime = now() - replayStart
    let matches = try rebuilt.digest() == store.digest()
    context.report.add(
      Comparison(
        scenario: "replay", name: "replay with every index", size: Int(events),
        ours: Figure(
          engine: "LiveLog replay", stats: Statistics([replayTime]), itemsPerOperation: Double(events)),
        peer: Figure(
          engine: "first-time ingest", stats: Statistics([ingestTime]), itemsPerOperation: Double(events)),
        notes: notes([
          "replay events/s": Double(events) / replayTime, "ingest events/s": Double(events) / ingestTime,
          "digest matches": matches ? 1 : 0, "checkpoint MB": Double(checkpointBytes) / 1_048_576,
          "log MB": Double(logBytes) / 1_048_576,
        ])))
    guard history else { return }

    let verifyStart = now()
    let report = try store.verify()
    let verifyTime = now() - verifyStart
    context.report.add(
      Comparison(
        scenario: "replay", name: "verify (log checks, replay, compare)", size: Int(events),
        ours: Figure(
          engine: "LiveLog verify", stats: Statistics([verifyTime]), itemsPerOperation: Double(events)),
        peer: nil, notes: notes(["passed": report.passed ? 1 : 0])))

    // As-of queries at several depths, beside replaying the prefix and querying it.
    let queries = [
      (
        "seed query",
        try Query(parsing: "full_name CONTAINS[c] 'learn' AND language == 'Swift'", for: Repository.self)
      ),
      (
        "top 20 by stars",
        try Query(parsing: "language == 'Python' SORT(stargazers_count DESC) LIMIT(20)", for: Repository.self)
      ),
    ]
    for depth in [0.01, 0.1, 0.5, 0.9] {
      let lsn = UInt64(Double(events) * (1 - depth))
      for (label, query) in queries {
        var count = 0
        let ours = try measure(
          context.quick ? .quick : Repetitions(warmup: 1, measured: 5, budget: 20, minimum: 2)
        ) {
          count = try store.results(Repository.self, query, asOf: lsn).ids().count
        }
        var peer: Statistics?
        if label == "seed query" {
          // The naive way: rebuild the store as of the LSN, then query it.
          let target = directory.appendingPathComponent("prefix-\(lsn)").path
          let start = now()
          let prefix = try store.replay(into: target, through: lsn, options: options)
          let expected = try prefix.results(Repository.self, query).ids().count
          peer = Statistics([now() - start])
          if expected != count {
            print("  note: as-of \(lsn) found \(count) rows, the replayed prefix \(expected)")
          }
          try? FileManager.default.removeItem(atPath: target)
        }
        context.report.add(
          Comparison(
            scenario: "replay", name: "as-of \(label), \(Int(depth * 100))% of the log back",
            size: Int(events),
            ours: Figure(engine: "LiveLog as-of", stats: ours, itemsPerOperation: 1),
            peer: peer.map { Figure(engine: "replay prefix + query", stats: $0, itemsPerOperation: 1) },
            notes: notes(["rows": Double(count), "lsn": Double(lsn)])))
      }
    }
  }
}
