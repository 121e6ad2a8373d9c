import Changesets
import Dispatch
import Foundation
import LiveLog

extension Scenario {
  /// Commit-to-changeset latency for many live queries, beside re-running each query and diffing
  /// its whole result (what Realm does on every write).
  static let live = Scenario(
    name: "live",
    summary: "live queries after commits of 1/10/100 records, vs re-run + whole-result diff"
  ) { context in
    let generator = try RepositoryGenerator()
    let size = context.sizes.max() ?? 100_000
    let repositories = generator.generate(count: size, seed: 7)
    let directory = try context.freshDirectory("live-\(size)")
    var options = StoreOptions()
    options.durability = .noSync
    let store = try Store(directory: directory.path, options: options)
    for start in stride(from: 0, to: size, by: 10_000) {
      try store.write(repositories[start..<min(start + 10_000, size)].map(Mutation.upsert))
    }
    let queries = liveQueries(repositories, count: 1_000)
    var random = SplitMix64(seed: 99)
    for queryCount in [1, 100, 1_000] {
      let tokens = try queries.prefix(queryCount).map { query in
        try store.objects(Repository.self).with(query).observe(on: DispatchQueue.global()) { _ in }
      }
      store.synchronizeLiveQueries()
      for changed in [1, 10, 100] {
        func commit() throws {
          let batch = (0..<changed).map { _ -> Mutation in
            var repository = repositories[Int(random.next() % UInt64(size))]
            repository.stargazersCount = Int64(random.next() % 50_000)
            if random.next() % 4 == 0 { repository.fullName += "-v\(random.next() % 100)" }
            return .upsert(repository)
          }
          try store.write(batch)
        }
        // LiveLog: the commit, then until every live query holds its changeset. The hub starts
        // as the commit ends, so timing from the commit's start is the honest measure.
        var ours: [Double] = []
        for round in 0..<(context.quick ? 15 : 40) {
          let start = now()
          try commit()
          store.synchronizeLiveQueries()
          if round > 1 { ours.append(now() - start) }
        }
        // The peer: the same commit, then re-run every query and diff its whole result against the
        // previous one.
        let peerQueries = Array(queries.prefix(queryCount))
        var previous = try peerQueries.map { try store.results(Repository.self, $0).ids() }
        var peer: [Double] = []
        for _ in 0..<(context.quick ? 3 : (queryCount >= 1_000 ? 3 : 8)) {
          let start = now()
          try commit()
          for (index, query) in peerQueries.enumerated() {
            let ids = try store.results(Repository.self, query).ids()
            _ = try Changeset(from: previous[index], to: ids, changed: [])
            previous[index] = ids
          }
          peer.append(now() - start)
        }
        context.report.add(
          Comparison(
            scenario: "live", name: "\(queryCount) live queries, \(changed) records per commit", size: size,
            ours: Figure(engine: "LiveLog live queries", stats: Statistics(ours), itemsPerOperation: 1),
            peer: Figure(engine: "re-run + whole diff", stats: Statistics(peer), itemsPerOperation: 1)))
      }
      for token in tokens { token.invalidate() }
    }
  }

  /// Seed-style queries over real vocabulary: a term of the name, a language, sorted by stars.
  fileprivate static func liveQueries(_ repositories: [Repository], count: Int) -> [Query] {
    var terms: [String] = []
    var seen: Set<String> = []
    for repository in repositories.prefix(20_000) {
      for word in repository.fullName.lowercased().split(whereSeparator: { !$0.isLetter })
      where word.count >= 4 {
        if seen.insert(String(word)).inserted { terms.append(String(word)) }
      }
      if terms.count >= count { break }
    }
    let languages = ["Swift", "Python", "JavaScript", "Go", "C++", "Java"]
    return terms.prefix(count).enumerated().compactMap { index, term in
      let sort = index % 2 == 0 ? " SORT(stargazers_count DESC)" : ""
      return try? Query(
        parsing: "full_name CONTAINS[c] %@ AND language == %@" + sort, for: Repository.self, term,
        languages[index % languages.count])
    }
  }
}
