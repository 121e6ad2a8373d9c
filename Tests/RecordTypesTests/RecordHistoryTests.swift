import Changesets
import Foundation
import LiveLog
import Synchronization
import Testing

/// Live queries, history and the log on the app's own record types, through the public API.
@Suite struct RecordHistoryTests {
  /// Deliveries of a subscription, kept for the test to read.
  final class Deliveries<ID: Sendable>: Sendable {
    let items = Mutex<[(version: UInt64, ids: [ID], changeset: Changeset)]>([])

    func wait(for version: UInt64) async {
      for _ in 0..<500 where items.withLock({ $0.last?.version ?? 0 }) < version {
        try? await Task.sleep(nanoseconds: 10_000_000)
      }
    }
  }

  @Test func liveQueriesOfEachTypeFollowEveryCommitExactly() async throws {
    let directory = try TemporaryDirectory()
    let store = try opened(directory.child("store"))
    var generator = Generator(seed: 3)
    var bookmarks = (0..<120).map { _ in generator.bookmark() }
    var issues = (1...80).map { generator.issue(number: Int64($0)) }
    try store.write(bookmarks.map { .upsert($0) } + issues.map { .upsert($0) })
    let liked = try store.objects(Bookmark.self).filter("stars >= 50").sorted(by: \.stars, ascending: false)
    let open = try store.objects(IssueRecord.self).where { $0.state == "open" }.limit(10)
    let bookmarkDeliveries = Deliveries<UUID>()
    let issueDeliveries = Deliveries<String>()
    let queues = [DispatchQueue(label: "bookmarks"), DispatchQueue(label: "issues")]
    let tokens = [
      try liked.observe(coalescing: false, on: queues[0]) { change in
        let ids = (try? change.results.ids()) ?? []
        if case .update(_, let changeset) = change {
          bookmarkDeliveries.items.withLock { $0.append((change.results.version, ids, changeset)) }
        } else {
          bookmarkDeliveries.items.withLock { $0.append((change.results.version, ids, .empty)) }
        }
      },
      try open.observe(coalescing: false, on: queues[1]) { change in
        let ids = (try? change.results.ids()) ?? []
        if case .update(_, let changeset) = change {
          issueDeliveries.items.withLock { $0.append((change.results.version, ids, changeset)) }
        } else {
          issueDeliveries.items.withLock { $0.append((change.results.version, ids, .empty)) }
        }
      },
    ]
    var random = Generator(seed: 4)
    for _ in 0..<30 {
      var batch: [Mutation] = []
      for _ in 0..<Int.random(in: 1...6, using: &random) {
        switch Int.random(in: 0..<5, using: &random) {
        case 0:
          let index = Int.random(in: 0..<bookmarks.count, using: &random)
          bookmarks[index].stars = Int.random(in: 0...200, using: &random)
          batch.append(.upsert(bookmarks[index]))
        case 1:
          let new = generator.bookmark()
          bookmarks.append(new)
          batch.append(.upsert(new))
        case 2:
          let index = Int.random(in: 0..<issues.count, using: &random)
          issues[index].state = issues[index].state == "open" ? "closed" : "open"
          batch.append(.upsert(issues[index]))
        case 3:
          let index = Int.random(in: 0..<bookmarks.count, using: &random)
          batch.append(.delete(Bookmark.self, id: bookmarks.remove(at: index).id))
        default:
          let index = Int.random(in: 0..<issues.count, using: &random)
          issues[index].comments += 1
          batch.append(.upsert(issues[index]))
        }
      }
      try store.write(batch)
    }
    // Every commit has reached the live queries, and their handlers have run.
    store.synchronizeLiveQueries()
    for queue in queues { queue.sync {} }
    for deliveries in [
      bookmarkDeliveries.items.withLock { $0 }.map { ($0.version, $0.ids.map(\.uuidString), $0.changeset) },
      issueDeliveries.items.withLock { $0 }.map { ($0.version, $0.ids, $0.changeset) },
    ] {
      // Each changeset turns the ids before it into the ids after it.
      for (before, after) in zip(deliveries, deliveries.dropFirst()) {
        #expect(after.2.applied(to: before.1, new: after.1) == after.1)
        #expect(!after.2.isEmpty, "a delivery without a change")
      }
    }
    #expect(bookmarkDeliveries.items.withLock { $0.last?.ids } == (try liked.ids()))
    #expect(issueDeliveries.items.withLock { $0.last?.ids } == (try open.ids()))
    // And the result is the brute-force one: stars descending, then insertion order (the array's
    // order: updates keep their place, new bookmarks come last).
    let expected = bookmarks.enumerated().filter { ($0.element.stars ?? -1) >= 50 }
      .sorted { a, b in
        a.element.stars != b.element.stars
          ? (a.element.stars ?? 0) > (b.element.stars ?? 0) : a.offset < b.offset
      }
      .map(\.element.id)
    #expect(try liked.ids() == expected)
    // The tokens must live until here: releasing one ends its subscription.
    for token in tokens { token.invalidate() }
  }

  /// Results of a type the store has no collection for are empty, and reading them creates
  /// nothing; their live changes start empty and fill when the collection appears.
  @Test func aLiveQueryBeforeItsCollectionExistsFillsWhenItIsCreated() async throws {
    let directory = try TemporaryDirectory()
    let store = try opened(directory.child("store"))
    try store.write([.upsert(Repository(id: 1, fullName: "a/b"))])
    let version = try store.version()
    let liked = try store.objects(Bookmark.self).filter("stars >= 10")
    #expect(liked.isEmpty)
    #expect(try store.collections().map(\.name) == ["repositories"])
    #expect(try store.version() == version)
    var iterator = liked.changes.makeAsyncIterator()
    guard case .initial(let initial)? = await iterator.next() else {
      Issue.record("no initial delivery")
      return
    }
    #expect(initial.isEmpty)
    var generator = Generator(seed: 12)
    var bookmarks = (0..<30).map { _ in generator.bookmark() }
    for index in bookmarks.indices { bookmarks[index].stars = index }
    try store.write(bookmarks.map { .upsert($0) })
    guard case .update(let results, let changeset)? = await iterator.next() else {
      Issue.record("no update when the collection was created")
      return
    }
    #expect(try results.ids() == bookmarks.filter { ($0.stars ?? 0) >= 10 }.map(\.id))
    #expect(changeset.insertions == Array(0..<20) && changeset.deletions.isEmpty)
  }

  @Test func historyOfEachTypeAsOfAnyVersionDiffsAndResumes() async throws {
    let directory = try TemporaryDirectory()
    let store = try opened(directory.child("store"))
    var generator = Generator(seed: 5)
    var bookmarks = (0..<60).map { _ in generator.bookmark() }
    try store.write(bookmarks.map { .upsert($0) })
    let query = try Query(parsing: "rating >= 2 SORT(saved_at DESC)", for: Bookmark.self)
    var snapshots: [(UInt64, [UUID])] = []
    for round in 0..<20 {
      let index = round % bookmarks.count
      bookmarks[index].rating = Double(round % 5)
      bookmarks[(index * 7) % bookmarks.count].savedAt = Date(
        timeIntervalSince1970: 1_800_000_000 + Double(round))
      try store.write([.upsert(bookmarks[index]), .upsert(bookmarks[(index * 7) % bookmarks.count])])
      try store.write([.upsert(generator.issue(number: Int64(round + 1)))])
      snapshots.append((try store.version(), try store.results(Bookmark.self, query).ids()))
    }
    for (lsn, ids) in snapshots {
      #expect(try store.results(Bookmark.self, query, asOf: lsn).ids() == ids, "as of \(lsn)")
    }
    // A diff between two versions turns the first result into the second.
    let (early, earlyIDs) = snapshots[3]
    let (late, lateIDs) = snapshots[17]
    let diff = try store.diff(Bookmark.self, query, from: early, to: late)
    #expect(try diff.from.ids() == earlyIDs && diff.to.ids() == lateIDs)
    #expect(diff.changeset.applied(to: earlyIDs, new: lateIDs) == lateIDs)
    // A subscriber that was away resumes with one changeset from then to now.
    let results = try store.objects(Bookmark.self).with(query)
    var iterator = try results.changes(since: early).makeAsyncIterator()
    guard case .initial(let then)? = await iterator.next() else {
      Issue.record("no initial delivery")
      return
    }
    #expect(try then.ids() == earlyIDs)
    guard case .update(let now, let changeset)? = await iterator.next() else {
      Issue.record("no update")
      return
    }
    #expect(try now.ids() == (try results.ids()))
    #expect(changeset.applied(to: earlyIDs, new: try now.ids()) == (try now.ids()))
  }

  @Test func replayVerifyStatsAndAnExportRoundTripWithThreeCollections() throws {
    let directory = try TemporaryDirectory()
    let store = try opened(directory.child("store"))
    var generator = Generator(seed: 6)
    try store.write((0..<50).map { _ in .upsert(generator.bookmark()) })
    try store.write(
      try RecordFile(
        path: Fixtures.path(
          "search-responses/05_octokit_octokit.rb_order_desc_q_tetris_20language_assembly_sort_stars.json")
      ).mutations(of: Repository.self))
    try store.write((1...40).map { .upsert(generator.issue(number: $0)) })
    try store.write([.delete(Repository.self, id: 4_731_946), .upsert(generator.bookmark())])
    let report = try store.verify()
    #expect(report.passed, "\(report.difference.map(String.init(describing:)) ?? "")")
    let rebuilt = try store.replay(into: directory.child("rebuilt"))
    #expect(try rebuilt.digest() == store.digest())
    let statistics = try store.statistics()
    #expect(statistics.collections.map(\.name) == ["bookmarks", "repositories", "issues"])
    #expect(statistics.collections.map(\.records) == [51, 29, 40])
    // Export, import into a new store, export again: the same bytes.
    var first: [UInt8] = []
    try store.export { first += $0 + [0x0A] }
    let exported = directory.child("export.ndjson")
    try Data(first).write(to: URL(fileURLWithPath: exported))
    let copy = try opened(directory.child("copy"))
    let summary = try copy.importEvents(from: try RecordFile(path: exported))
    #expect(summary.appended == Int(try store.version()))
    var second: [UInt8] = []
    try copy.export { second += $0 + [0x0A] }
    #expect(second == first)
    #expect(try copy.digest() == store.digest())
    // The export names each event's collection, and the schema events carry the schemas.
    let lines = String(decoding: first, as: UTF8.self).split(separator: "\n")
    #expect(lines.filter { $0.contains("\"op\":\"schema\"") }.count == 3)
    #expect(lines.allSatisfy { $0.contains("\"collection\":\"") })
  }
}
