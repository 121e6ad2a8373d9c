import Foundation
import GitHubSearch
import Testing

@Suite(.timeLimit(.minutes(1))) struct SearchCoordinatorTests {
  private func query(_ term: String, _ language: SearchLanguage = .any) -> SearchQuery {
    SearchQuery(term: term, language: language)
  }

  private func body(_ id: Int, _ name: String) -> Data { searchBody(repositoryJSON(id: id, fullName: name)) }

  /// The events until the stream ends.
  private func rest(_ events: inout AsyncStream<SearchEvent>.Iterator) async -> [SearchEvent] {
    var collected: [SearchEvent] = []
    while let event = await events.next() { collected.append(event) }
    return collected
  }

  private func isResults(_ event: SearchEvent?, for query: SearchQuery, ids: [Int64]) -> Bool {
    guard case .results(let asked, let result)? = event else { return false }
    return asked == query && result.repositories.map(\.id) == ids
  }

  @Test func typingQuicklyIssuesOneRequestForTheLastTerm() async throws {
    let clock = TestClock()
    let transport = GatedTransport()
    let coordinator = SearchCoordinator(client: GitHubSearchClient(transport: transport), clock: clock)
    var events = coordinator.events.makeAsyncIterator()
    await coordinator.submit(query("tet"))
    clock.advance(by: .milliseconds(200))
    await coordinator.submit(query("tetr"))
    clock.advance(by: .milliseconds(200))
    await coordinator.submit(query("tetris"))
    clock.advance(by: .milliseconds(500))
    #expect(await events.next() == .searching(query("tetris")))
    await transport.waitForRequests(1)
    #expect(transport.release(matching: "q=tetris&", body: body(1, "a/tetris")))
    #expect(isResults(await events.next(), for: query("tetris"), ids: [1]))
    await coordinator.finish()
    #expect(await rest(&events).isEmpty)
    #expect(transport.received.count == 1)
  }

  @Test func aNewerSearchCancelsTheRequestInFlight() async throws {
    let clock = TestClock()
    let transport = GatedTransport()
    let coordinator = SearchCoordinator(client: GitHubSearchClient(transport: transport), clock: clock)
    var events = coordinator.events.makeAsyncIterator()
    await coordinator.submit(query("tetris"))
    clock.advance(by: .milliseconds(500))
    #expect(await events.next() == .searching(query("tetris")))
    await transport.waitForRequests(1)
    await coordinator.submit(query("assembly"))
    clock.advance(by: .milliseconds(500))
    #expect(await events.next() == .searching(query("assembly")))
    await transport.waitForRequests(2)
    #expect(transport.cancelled.map { $0.url?.query?.hasPrefix("q=tetris&") } == [true])
    // The old answer can no longer arrive: its request is gone.
    #expect(!transport.release(matching: "q=tetris&", body: body(1, "a/tetris")))
    #expect(transport.release(matching: "q=assembly&", body: body(2, "a/assembly")))
    #expect(isResults(await events.next(), for: query("assembly"), ids: [2]))
    await coordinator.finish()
    #expect(await rest(&events).isEmpty)
  }

  @Test func theQuietPeriodIsMeasuredFromTheLastKeystroke() async throws {
    let clock = TestClock()
    let transport = ScriptedTransport(status: 200, body: body(1, "a/b"))
    let coordinator = SearchCoordinator(client: GitHubSearchClient(transport: transport), clock: clock)
    var events = coordinator.events.makeAsyncIterator()
    // Keystrokes 499 ms apart never leave a pause long enough.
    for term in ["tetris", "tetris game", "tetris game boy"] {
      await coordinator.submit(query(term))
      clock.advance(by: .milliseconds(499))
    }
    clock.advance(by: .milliseconds(1))
    #expect(await events.next() == .searching(query("tetris game boy")))
    #expect(isResults(await events.next(), for: query("tetris game boy"), ids: [1]))
    // After a pause, the next term is a search of its own.
    await coordinator.submit(query("assembly"))
    clock.advance(by: .milliseconds(500))
    #expect(await events.next() == .searching(query("assembly")))
    #expect(isResults(await events.next(), for: query("assembly"), ids: [1]))
    await coordinator.finish()
    #expect(await rest(&events).isEmpty)
    #expect(
      transport.requests.compactMap { $0.url?.query?.components(separatedBy: "&").first } == [
        "q=tetris+game+boy", "q=assembly",
      ])
  }

  @Test func theSameSearchInFlightIsNotSentAgain() async throws {
    let clock = TestClock()
    let transport = GatedTransport()
    let coordinator = SearchCoordinator(client: GitHubSearchClient(transport: transport), clock: clock)
    var events = coordinator.events.makeAsyncIterator()
    await coordinator.submit(query("tetris"))
    clock.advance(by: .milliseconds(500))
    #expect(await events.next() == .searching(query("tetris")))
    await transport.waitForRequests(1)
    await coordinator.submit(query("tetris "))  // a trailing space is the same search
    clock.advance(by: .milliseconds(500))
    transport.release(matching: "q=tetris&", body: body(1, "a/tetris"))
    #expect(isResults(await events.next(), for: query("tetris"), ids: [1]))
    await coordinator.finish()
    #expect(await rest(&events).isEmpty)
    #expect(transport.received.count == 1 && transport.cancelled.isEmpty)
  }

  @Test func shortTermsClearAtOnceAndStopTheWaitingTerm() async throws {
    let clock = TestClock()
    let transport = ScriptedTransport(status: 200, body: body(1, "a/b"))
    let coordinator = SearchCoordinator(client: GitHubSearchClient(transport: transport), clock: clock)
    var events = coordinator.events.makeAsyncIterator()
    await coordinator.submit(query("tetris"))
    clock.advance(by: .milliseconds(200))
    await coordinator.submit(query("te"))
    #expect(await events.next() == .cleared)
    await coordinator.submit(query("t"))  // still short: no second clear
    await coordinator.submit(query(""))
    clock.advance(by: .seconds(2))
    await coordinator.finish()
    #expect(await rest(&events).isEmpty)
    #expect(transport.requests.isEmpty)
  }

  @Test func aShortTermCancelsTheRequestInFlight() async throws {
    let clock = TestClock()
    let transport = GatedTransport()
    let coordinator = SearchCoordinator(client: GitHubSearchClient(transport: transport), clock: clock)
    var events = coordinator.events.makeAsyncIterator()
    await coordinator.submit(query("tetris"))
    clock.advance(by: .milliseconds(500))
    #expect(await events.next() == .searching(query("tetris")))
    await transport.waitForRequests(1)
    await coordinator.submit(query("te"))
    #expect(await events.next() == .cleared)
    #expect(transport.cancelled.count == 1)
    // Typing the same term again is a new search: the cancelled one brought nothing.
    await coordinator.submit(query("tetris"))
    clock.advance(by: .milliseconds(500))
    #expect(await events.next() == .searching(query("tetris")))
    await transport.waitForRequests(2)
    transport.release(matching: "q=tetris&", body: body(3, "a/tetris"))
    #expect(isResults(await events.next(), for: query("tetris"), ids: [3]))
    await coordinator.finish()
    #expect(await rest(&events).isEmpty)
  }

  @Test func errorsArriveInOrderAndARateLimitHoldsWithoutTheNetwork() async throws {
    let clock = TestClock()
    let reset = Int(Date().timeIntervalSince1970) + 600
    let transport = ScriptedTransport(
      status: 403, headers: ["X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "\(reset)"],
      text: #"{"message":"API rate limit exceeded for 203.0.113.7."}"#)
    let coordinator = SearchCoordinator(client: GitHubSearchClient(transport: transport), clock: clock)
    var events = coordinator.events.makeAsyncIterator()
    for term in ["tetris", "assembly"] {
      await coordinator.submit(query(term))
      clock.advance(by: .milliseconds(500))
      #expect(await events.next() == .searching(query(term)))
      guard case .failed(let failed, .rateLimited(let limit))? = await events.next() else {
        Issue.record("expected a rate-limit failure for \(term)")
        return
      }
      #expect(failed == query(term))
      #expect(limit.resetsAt == Date(timeIntervalSince1970: TimeInterval(reset)))
    }
    await coordinator.finish()
    #expect(await rest(&events).isEmpty)
    #expect(transport.requests.count == 1)
  }

  @Test func aLanguageChangeIsANewSearch() async throws {
    let clock = TestClock()
    let transport = ScriptedTransport(status: 200, body: body(1, "a/b"))
    let coordinator = SearchCoordinator(client: GitHubSearchClient(transport: transport), clock: clock)
    var events = coordinator.events.makeAsyncIterator()
    for language in [SearchLanguage.swift, .objectiveC] {
      await coordinator.submit(query("animation", language))
      clock.advance(by: .milliseconds(500))
      #expect(await events.next() == .searching(query("animation", language)))
      #expect(isResults(await events.next(), for: query("animation", language), ids: [1]))
    }
    await coordinator.finish()
    #expect(await rest(&events).isEmpty)
    #expect(
      transport.requests.compactMap { $0.url?.query }.map { $0.contains("language:Objective-C") } == [
        false, true,
      ])
  }

  @Test func severalPagesArriveAsSeparateResults() async throws {
    let clock = TestClock()
    let next = ["Link": #"<https://api.github.com/search/repositories?q=tetris&page=2>; rel="next""#]
    let transport = ScriptedTransport([
      .http(status: 200, headers: next, body: body(1, "a/one")),
      .http(status: 200, headers: [:], body: body(2, "a/two")),
    ])
    let coordinator = SearchCoordinator(
      client: GitHubSearchClient(transport: transport), clock: clock, maxPages: 3)
    var events = coordinator.events.makeAsyncIterator()
    await coordinator.submit(query("tetris"))
    clock.advance(by: .milliseconds(500))
    #expect(await events.next() == .searching(query("tetris")))
    #expect(isResults(await events.next(), for: query("tetris"), ids: [1]))
    #expect(isResults(await events.next(), for: query("tetris"), ids: [2]))
    await coordinator.finish()
    #expect(await rest(&events).isEmpty)
  }

  @Test func aStreamOfTermsIsSearchedAndEndsWithIt() async throws {
    let transport = ScriptedTransport(status: 200, body: body(1, "a/tetris"))
    // The real clock: the input ends at once, and ending searches the waiting term without delay.
    let coordinator = SearchCoordinator(client: GitHubSearchClient(transport: transport))
    let (terms, input) = AsyncStream.makeStream(of: SearchQuery.self)
    for term in ["tet", "tetr", "tetris"] { input.yield(query(term)) }
    input.finish()
    await coordinator.run(terms)
    var events = coordinator.events.makeAsyncIterator()
    #expect(await events.next() == .searching(query("tetris")))
    #expect(isResults(await events.next(), for: query("tetris"), ids: [1]))
    #expect(await rest(&events).isEmpty)
    #expect(transport.requests.count == 1)
  }

  @Test func erasingBeforeThePauseBringsNoResults() async throws {
    // The seed's bug: "tetris" then "te" within the pause still searched for tetris.
    let transport = ScriptedTransport(status: 200, body: body(1, "a/tetris"))
    let coordinator = SearchCoordinator(client: GitHubSearchClient(transport: transport))
    let (terms, input) = AsyncStream.makeStream(of: SearchQuery.self)
    for term in ["tet", "tetris", "te"] { input.yield(query(term)) }
    input.finish()
    await coordinator.run(terms)
    var events = coordinator.events.makeAsyncIterator()
    #expect(await rest(&events) == [.cleared])
    #expect(transport.requests.isEmpty)
  }

  @Test func cancelStopsEverythingAndEndsTheEvents() async throws {
    let clock = TestClock()
    let transport = GatedTransport()
    let coordinator = SearchCoordinator(client: GitHubSearchClient(transport: transport), clock: clock)
    var events = coordinator.events.makeAsyncIterator()
    await coordinator.submit(query("tetris"))
    clock.advance(by: .milliseconds(500))
    #expect(await events.next() == .searching(query("tetris")))
    await transport.waitForRequests(1)
    await coordinator.submit(query("assembly"))  // waiting for its pause
    await coordinator.cancel()
    #expect(await rest(&events).isEmpty)
    #expect(transport.cancelled.count == 1)
    clock.advance(by: .seconds(1))
    await coordinator.submit(query("ignored"))
    #expect(transport.received.count == 1)
  }
}
