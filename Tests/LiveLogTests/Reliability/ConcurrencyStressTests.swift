import Dispatch
import Foundation
import Testing

@testable import LiveLog

/// Readers, a writer, live subscribers and map growth in one process at once, for a bounded
/// number of commits.
/// Run under the sanitizers (see Docs/Reliability.md):
///   swift test --sanitize=thread --filter ConcurrencyStressTests
///   swift test --sanitize=address --filter ConcurrencyStressTests
@Suite struct ConcurrencyStressTests {
  /// What the reader threads saw go wrong.
  final class Problems: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [String] = []
    func add(_ problem: String) { lock.withLock { items.append(problem) } }
    var all: [String] { lock.withLock { items } }
  }

  final class Flag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    func set() { lock.withLock { value = true } }
    var isSet: Bool { lock.withLock { value } }
  }

  static let commits = 120

  /// Runs `body(0)`, `body(1)`, ... each on a thread of its own, and waits for all. (Unlike
  /// `concurrentPerform`, which may run iterations one after another on a busy machine.)
  static func concurrently(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    let group = DispatchGroup()
    for index in 0..<count {
      group.enter()
      Thread {
        body(index)
        group.leave()
      }.start()
    }
    group.wait()
  }

  @Test func readersAndAWriterShareOneStoreWhileTheMapGrows() throws {
    let directory = try TemporaryDirectory()
    var options = StoreOptions()
    options.mapSize = 1 << 20  // small, so that the writer grows the map under the readers
    let store = try Store(directory: directory.child("store"), options: options)
    let problems = Problems()
    let done = Flag()
    let pool = Array(EventCodecTests.repositories.prefix(200))
    Self.concurrently(4) { worker in
      if worker == 0 {
        // The writer: batches of upserts (some edited) and deletes; every commit keeps the
        // invariant that the store's version equals its log's length.
        var random = SplitMix64(seed: 5)
        for round in 0..<Self.commits {
          var batch: [Mutation] = []
          for _ in 0..<Int.random(in: 1...30, using: &random) {
            var repository = pool.randomElement(using: &random) ?? pool[0]
            if Bool.random(using: &random) {
              repository.stargazersCount = Int64(round)
              repository.description = String(
                repeating: "grow ", count: Int.random(in: 0...400, using: &random))
            }
            batch.append(
              Int.random(in: 0..<8, using: &random) == 0 ? .delete(id: repository.id) : .upsert(repository))
          }
          do { try store.write(batch) } catch { problems.add("write \(round): \(error)") }
        }
        done.set()
        return
      }
      var lastVersion: UInt64 = 0
      while !done.isSet {
        do {
          let version = try store.version()
          if version < lastVersion { problems.add("version went back from \(lastVersion) to \(version)") }
          lastVersion = version
          switch worker {
          case 1:
            // A query holds its snapshot: count, ids and records agree however the writer goes on.
            let results = try store.objects(Repository.self).filter(
              "stargazers_count >= 0 OR language == nil"
            )
            .sorted(by: "stargazers_count", ascending: false).evaluate()
            let ids = try results.ids()
            if ids.count != results.count {
              problems.add("results: \(ids.count) ids for \(results.count) rows")
            }
            for index in 0..<min(results.count, 20) where results[index].id != ids[index] {
              problems.add("results: row \(index) is \(results[index].id), ids say \(ids[index])")
            }
          case 2:
            // The log, checksummed, from a snapshot: contiguous up to the version it saw.
            var expected = max(version, 20) - 19
            try store.forEachEvent(from: expected) { event in
              if event.lsn != expected { problems.add("log: \(event.lsn) where \(expected) was due") }
              expected += 1
              return true
            }
          default:
            let statistics = try store.statistics()
            if UInt64(statistics.events) != statistics.version {
              problems.add("stats: \(statistics.events) events at version \(statistics.version)")
            }
            _ = try store.repository(id: pool[0].id)
          }
        } catch {
          problems.add("reader \(worker): \(error)")
        }
      }
    }
    #expect(problems.all.isEmpty, "\(problems.all.prefix(5))")
    #expect(store.environment.info.mapSize > 1 << 20, "the map never grew")
    let report = try store.verify { _, _, _ in }
    #expect(report.difference == nil)
  }

  /// Live subscribers take every commit of a writer while readers query: each delivered
  /// changeset turns the previously delivered ids into the new ones, and the last delivery is the
  /// query's result.
  @Test func liveSubscribersFollowAWriterWhileReadersQuery() throws {
    let directory = try TemporaryDirectory()
    var options = StoreOptions()
    options.mapSize = 1 << 20
    let store = try Store(directory: directory.child("store"), options: options)
    let pool = Array(EventCodecTests.repositories.prefix(200))
    let problems = Problems()
    let queries = [
      try Query(parsing: "stargazers_count >= 10 SORT(stargazers_count DESC)"),
      try Query(parsing: "language != nil LIMIT(15)"),
      try Query(parsing: "full_name CONTAINS[c] 'o'"),
    ]
    final class Chain: @unchecked Sendable {
      let lock = NSLock()
      var ids: [Int64]?
      var deliveries = 0
    }
    let chains = queries.map { _ in Chain() }
    let tokens = try queries.enumerated().map { index, query in
      try store.objects(Repository.self).with(query).observe(on: DispatchQueue(label: "subscriber \(index)"))
      { change in
        let chain = chains[index]
        guard let ids = try? change.results.ids() else {
          problems.add("subscriber \(index): unreadable results")
          return
        }
        chain.lock.withLock {
          if case .update(_, let changeset) = change, let previous = chain.ids {
            let applied = try? changeset.applied(to: previous) { ids[$0] }
            if applied != ids {
              problems.add("subscriber \(index): a changeset does not lead to the results")
            }
          }
          chain.ids = ids
          chain.deliveries += 1
        }
      }
    }
    let done = Flag()
    Self.concurrently(3) { worker in
      if worker == 0 {
        var random = SplitMix64(seed: 9)
        for round in 0..<Self.commits {
          var batch: [Mutation] = []
          for _ in 0..<Int.random(in: 1...20, using: &random) {
            var repository = pool.randomElement(using: &random) ?? pool[0]
            repository.stargazersCount = Int64.random(in: 0...40, using: &random)
            batch.append(
              Int.random(in: 0..<6, using: &random) == 0 ? .delete(id: repository.id) : .upsert(repository))
          }
          do { try store.write(batch) } catch { problems.add("write \(round): \(error)") }
        }
        done.set()
        return
      }
      while !done.isSet {
        do {
          _ = try store.results(queries[worker % queries.count]).ids()
        } catch {
          problems.add("reader \(worker): \(error)")
        }
      }
    }
    store.synchronizeLiveQueries()
    for index in queries.indices {
      for _ in 0..<200 {
        let ids = chains[index].lock.withLock { chains[index].ids }
        if ids == (try? store.results(queries[index]).ids()) { break }
        Thread.sleep(forTimeInterval: 0.01)
      }
      let last = chains[index].lock.withLock { chains[index].ids }
      #expect(last == (try store.results(queries[index]).ids()), "subscriber \(index) ends elsewhere")
    }
    for token in tokens { token.invalidate() }
    #expect(problems.all.isEmpty, "\(problems.all.prefix(5))")
  }

  /// Regression: `verify` used to check the log, replay it and read the live state at three
  /// different moments, so a commit in between was reported as a difference (exit 1 from
  /// `livelog verify` while another process wrote). It now works from one snapshot.
  @Test func verifyingWhileAWriterCommitsReportsNoDifference() throws {
    let directory = try TemporaryDirectory()
    let store = try Store(directory: directory.child("store"))
    let pool = Array(EventCodecTests.repositories.prefix(300))
    try store.write(pool.map(Mutation.upsert))
    let done = Flag()
    let problems = Problems()
    // A bounded writer (200 commits of 40 events, paced) and verifications until it is done:
    // the log stays under 8,300 events however slow the build (the sanitizers) makes replay.
    let overlapping = Problems()  // one entry per verification during which the store moved
    Self.concurrently(2) { worker in
      if worker == 0 {
        defer { done.set() }
        for round in 1...200 {
          let batch = pool.prefix(40).map { repository -> Mutation in
            var edited = repository
            edited.stargazersCount = Int64(round)
            return .upsert(edited)
          }
          do { try store.write(batch) } catch { problems.add("write: \(error)") }
          usleep(2_000)
        }
        return
      }
      var attempt = 0
      repeat {
        attempt += 1
        do {
          let before = try store.version()
          let report = try store.verify()
          if let difference = report.difference { problems.add("verify \(attempt): \(difference)") }
          if try store.version() != before { overlapping.add("\(attempt)") }
        } catch {
          problems.add("verify \(attempt): \(error)")
        }
      } while !done.isSet
    }
    #expect(problems.all.isEmpty, "\(problems.all.prefix(3))")
    #expect(!overlapping.all.isEmpty, "no verification overlapped a commit")
  }
}
