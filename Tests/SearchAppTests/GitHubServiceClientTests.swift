import Foundation
import GitHubSearch
import LiveLog
import Testing

/// The URLSession client (`GitHubSearch`) against the local GitHub search service over a real
/// socket: the paths the in-process fakes of GitHubSearchTests cover, end to end. Each test starts
/// a service of its own (`scripts/github-service`, about a second to load) and stops it on every
/// path; the data is frozen (`--drift-searches 0`) unless the test moves it. The tests run one
/// after another: eight services loading at once on a small machine would make the timing of
/// the rate-limit tests depend on the machine's load.
@Suite(.serialized) struct GitHubServiceClientTests {
  static let frozen = ["--drift-searches", "0", "--secondary-limit", "0"]

  @Test func pagesFollowTheLinksToTheThousandResultCap() async throws {
    let service = try GitHubService(Self.frozen + ["--rate-limit", "100"])
    defer { service.stop() }
    let client = service.client()
    let query = SearchQuery(term: "language:python", perPage: 100)
    let pages = try await client.pages(of: query, upTo: 11)
    #expect(pages.failure == nil)
    #expect(pages.results.count == 10, "10 pages of 100 reach the cap")
    for case .fresh(let page) in pages.results {
      // GitHub's last page links back (prev, first) only.
      #expect(page.links.lastPage == (page.number < 10 ? 10 : nil))
      #expect(page.links.previousPage == (page.number > 1 ? page.number - 1 : nil))
      #expect(page.totalCount.map { $0 > 1_000 } == true)
      #expect(page.repositories.count == 100)
      #expect(page.repositories.allSatisfy { $0.language == "Python" })
    }
    #expect(pages.results.last?.followingPage == nil)
    let ids = pages.repositories.map(\.id)
    #expect(ids.count == 1_000 && Set(ids).count == 1_000)
    let stars = pages.repositories.map { $0.stargazersCount ?? 0 }
    #expect(stars == stars.sorted(by: >))

    // Smaller pages cut the same sequence into other pieces.
    let small = try await client.pages(of: SearchQuery(term: "language:python", perPage: 30), upTo: 4)
    #expect(small.repositories.map(\.id) == Array(ids.prefix(120)))

    // Past the cap the client refuses before sending; the service answers 422 as GitHub does.
    let answered = try await service.state()["searches"] as? Int
    await #expect(throws: GitHubSearchError.self) { try await client.page(11, of: query) }
    #expect(try await service.state()["searches"] as? Int == answered)
    let past = try await service.get("/search/repositories?q=language:python&per_page=100&page=11")
    #expect(past.status == 422)
    #expect(past.body["message"] as? String == "Only the first 1000 search results are available")
  }

  @Test func aRepeatedSearchIsA304UntilTheDataMovesAlongItsHistory() async throws {
    let service = try GitHubService(Self.frozen)
    defer { service.stop() }
    let client = service.client()
    let query = SearchQuery(term: "chat", language: .swift)
    guard case .fresh(let first) = try await client.firstPage(of: query) else {
      Issue.record("the first answer was not fresh")
      return
    }
    #expect(first.etag?.hasPrefix("W/\"") == true)
    guard case .notModified(let again) = try await client.firstPage(of: query) else {
      Issue.record("the repeated search was not a 304")
      return
    }
    #expect(again.totalCount == first.totalCount)
    #expect(again.rateLimit?.remaining == 28)

    // Twelve steps later (2026-08-20 in the ranking, 2026-06 in the iOS list): fresh, and every
    // repository of the histories has the stars its step records.
    let state = try await service.advance(12)
    #expect(state["epoch"] as? Int == 12)
    guard case .fresh(let later) = try await client.firstPage(of: query) else {
      Issue.record("the search after the drift was not fresh")
      return
    }
    #expect(later.etag != first.etag)
    let history = try HistoryFixture.stars()
    let tracked = later.repositories.filter { history[$0.id] != nil }
    #expect(tracked.count > 10)
    for repository in tracked {
      #expect(repository.stargazersCount == history[repository.id]?[12], "\(repository.fullName)")
    }
    // The real rename of that step: the same id under its new name.
    let renamed = try #require(first.repositories.first { $0.fullName == "hilen/TSWeChat" })
    #expect(later.repositories.first { $0.id == renamed.id }?.fullName == "lanceylai/TSWeChat")
    #expect(!Set(later.repositories.map(\.id)).isSubset(of: first.repositories.map(\.id)), "an insertion")
  }

  @Test func theBudgetBlocksUntilItsResetThenServesAgain() async throws {
    // A window long enough that a busy machine still makes both requests inside it.
    let service = try GitHubService(Self.frozen + ["--rate-limit", "2", "--rate-window", "3"])
    defer { service.stop() }
    let client = service.client()
    let query = SearchQuery(term: "wallet")
    _ = try await client.firstPage(of: query)
    _ = try await client.page(2, of: query)
    #expect(client.lastRateLimit?.remaining == 0)
    #expect(client.lastRateLimit?.limit == 2)
    #expect(client.lastRateLimit?.resource == "search")

    // The client knows the budget is spent and does not send.
    let blocked = await failure { try await client.firstPage(of: query) }
    guard case .rateLimited(let limit) = blocked else {
      Issue.record("expected a rate limit, got \(String(describing: blocked))")
      return
    }
    #expect(limit.kind == .primary)
    #expect(try await service.state()["searches"] as? Int == 2)

    // A client that does not know sends, and the service refuses it as GitHub does.
    let other = service.client()
    let refused = await failure { try await other.firstPage(of: query) }
    guard case .rateLimited(let served) = refused else {
      Issue.record("expected the service's 403, got \(String(describing: refused))")
      return
    }
    #expect(served.kind == .primary)
    #expect(served.resetsAt == limit.resetsAt)
    #expect(served.serverMessage?.hasPrefix("API rate limit exceeded for 127.0.0.1.") == true)

    // After the reset both search again.
    let wait = max(0, limit.resetsAt.timeIntervalSinceNow) + 0.1
    try await Task.sleep(for: .milliseconds(Int(wait * 1000)))
    _ = try await client.firstPage(of: query)
    #expect(client.lastRateLimit?.remaining == 1)
  }

  @Test func aBurstTripsTheSecondaryLimit() async throws {
    let service = try GitHubService([
      "--drift-searches", "0", "--secondary-limit", "1", "--secondary-retry-after", "3",
    ])
    defer { service.stop() }
    let query = SearchQuery(term: "tracker")
    // Three clients at once: more than one search within a second, whatever the machine's load.
    let clients = (0..<3).map { _ in service.client() }
    let before = Date()
    async let first = failure { try await clients[0].firstPage(of: query) }
    async let second = failure { try await clients[1].firstPage(of: query) }
    async let third = failure { try await clients[2].firstPage(of: query) }
    let errors = await [first, second, third]
    // The answers came between `before` and now, however long a loaded machine took to serve them.
    let answered = Date().timeIntervalSince(before)
    #expect(errors.filter { $0 == nil }.count == 1, "one search gets through: \(errors)")
    for (client, error) in zip(clients, errors) where error != nil {
      guard case .rateLimited(let limit) = error else {
        Issue.record("expected a secondary limit, got \(String(describing: error))")
        continue
      }
      #expect(limit.kind == .secondary)
      #expect(limit.serverMessage?.contains("secondary rate limit") == true)
      let wait = limit.resetsAt.timeIntervalSince(before)
      #expect(wait > 1.5 && wait < answered + 3.5, "Retry-After: 3 from the answer")
      #expect(client.activeRateLimit == limit, "the client waits out the Retry-After")
    }
  }

  @Test func queriesGitHubRefusesAreValidationErrors() async throws {
    let service = try GitHubService(Self.frozen)
    defer { service.stop() }
    let client = service.client()
    let unknown = await failure {
      try await client.firstPage(of: SearchQuery(term: "user:no-such-user-livelog"))
    }
    guard case .validationFailed(let message, let details) = unknown else {
      Issue.record("expected a 422, got \(String(describing: unknown))")
      return
    }
    #expect(message == "Validation Failed")
    #expect(details.first?.hasPrefix("The listed users and repositories cannot be searched") == true)
    let range = await failure { try await client.firstPage(of: SearchQuery(term: "swift stars:lots")) }
    guard case .validationFailed(_, let rangeDetails) = range else {
      Issue.record("expected a 422, got \(String(describing: range))")
      return
    }
    #expect(rangeDetails.first?.contains("stars qualifier") == true)

    let empty = try await service.get("/search/repositories?q=")
    #expect(empty.status == 422)
    let errors = try #require(empty.body["errors"] as? [[String: Any]])
    #expect(errors.first?["code"] as? String == "missing")
    #expect(errors.first?["field"] as? String == "q")
  }

  @Test func aConnectionClosedMidBodyFailsThatSearchOnly() async throws {
    let service = try GitHubService(Self.frozen)
    defer { service.stop() }
    let client = service.client()
    let query = SearchQuery(term: "notes")
    try await service.arm(fault: "close-mid-body")
    let error = await failure { try await client.firstPage(of: query) }
    // URLSession fails the task (the body is shorter than its Content-Length): a lost connection
    // on Apple platforms, URLError -1 from FoundationNetworking on Linux. Never a decoded page.
    switch error {
    case .offline, .transport: break
    default: Issue.record("expected a failed transfer, got \(String(describing: error))")
    }
    // Nothing of the broken answer was kept: the next search is a full answer, not a 304.
    guard case .fresh(let page) = try await client.firstPage(of: query) else {
      Issue.record("the search after the broken one was not fresh")
      return
    }
    #expect(!page.repositories.isEmpty)
  }

  @Test func aSlowServerTimesOutAPatientClient() async throws {
    let service = try GitHubService(Self.frozen + ["--latency", "2000"])
    defer { service.stop() }
    let query = SearchQuery(term: "maps")
    let error = await failure { try await service.client(timeout: 0.5).firstPage(of: query) }
    guard case .timedOut = error else {
      Issue.record("expected a timeout, got \(String(describing: error))")
      return
    }
    guard case .fresh(let page) = try await service.client(timeout: 10).firstPage(of: query) else {
      Issue.record("a patient client got no fresh answer")
      return
    }
    #expect(!page.repositories.isEmpty)
  }

  @Test func aNewerTermCancelsTheRequestInFlight() async throws {
    let service = try GitHubService(Self.frozen + ["--latency", "1500"])
    defer { service.stop() }
    let coordinator = SearchCoordinator(client: service.client(), quietPeriod: .milliseconds(20))
    let older = SearchQuery(term: "chat", language: .swift)
    let newer = SearchQuery(term: "wallet", language: .any)
    var events: [SearchEvent] = []
    await coordinator.submit(older)
    for await event in coordinator.events {
      events.append(event)
      if event == .searching(older) {
        // Once the service holds the older request (for 1.5 s), the newer term is typed.
        #expect(await eventually { try await service.state()["waiting"] as? Int == 1 })
        await coordinator.submit(newer)
        await coordinator.finish()
      }
    }
    #expect(events.first == .searching(older))
    #expect(events.contains(.searching(newer)))
    #expect(!events.contains { if case .results(older, _) = $0 { true } else { false } })
    guard case .results(newer, .fresh(let page)) = events.last else {
      Issue.record("the last event was not the newer term's results: \(events)")
      return
    }
    #expect(!page.repositories.isEmpty)
    // The cancelled request's connection was closed: the service noticed before answering it.
    #expect(await eventually { try await service.state()["abandoned"] as? Int == 1 })
  }

  /// The error `work` throws, or nil when it succeeds.
  private func failure(_ work: () async throws -> SearchResult) async -> GitHubSearchError? {
    do {
      _ = try await work()
      return nil
    } catch let error as GitHubSearchError {
      return error
    } catch {
      Issue.record("the client threw something else than a GitHubSearchError: \(error)")
      return nil
    }
  }

  /// Whether `condition` holds within `seconds`, asking every 50 ms.
  private func eventually(within seconds: Double = 5, _ condition: () async throws -> Bool) async -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
      if (try? await condition()) == true { return true }
      try? await Task.sleep(for: .milliseconds(50))
    }
    return false
  }
}
