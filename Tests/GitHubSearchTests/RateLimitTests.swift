import Foundation
import GitHubSearch
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

@Suite struct RateLimitTests {
  private let query = SearchQuery(term: "tetris")
  private let utc = TimeZone(identifier: "UTC") ?? .current
  private let rateLimitBody =
    #"{"message":"API rate limit exceeded for 203.0.113.7. (But here's the good news: Authenticated requests get a higher rate limit. Check out the documentation for more details.)","documentation_url":"https://docs.github.com/rest/overview/resources-in-the-rest-api#rate-limiting"}"#

  private func rateLimited(_ error: any Error) -> RateLimitExceeded? {
    guard case .rateLimited(let limit) = error as? GitHubSearchError else { return nil }
    return limit
  }

  @Test func exhausted403BecomesTypedErrorWithResetTime() async throws {
    let clock = ManualDate()  // 2023-11-14 22:13:20 UTC
    let reset = Int(clock.now.timeIntervalSince1970) + 600
    let transport = ScriptedTransport(
      status: 403,
      headers: ["X-RateLimit-Limit": "10", "X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "\(reset)"],
      text: rateLimitBody)
    let client = GitHubSearchClient(
      configuration: GitHubSearchConfiguration(), transport: transport, now: clock.clock)
    do {
      _ = try await client.firstPage(of: query)
      Issue.record("a rate-limited answer must throw")
    } catch {
      let limit = try #require(rateLimited(error))
      #expect(limit.kind == .primary)
      #expect(limit.resetsAt == Date(timeIntervalSince1970: TimeInterval(reset)))
      #expect(limit.limit == 10)
      #expect(!limit.isAuthenticated)
      #expect(limit.serverMessage?.hasPrefix("API rate limit exceeded") == true)
      #expect(limit.resetTime(in: utc) == "22:24")  // 22:23:20 rounded up
      let message = error.message(in: utc)
      #expect(message.contains("rate limit is reached (10 requests per window); it resets at 22:24."))
      #expect(message.contains("GITHUB_TOKEN"))
    }
    #expect(client.lastRateLimit?.remaining == 0)
  }

  @Test func requestsBeforeTheResetAreRefusedWithoutTheNetwork() async throws {
    let clock = ManualDate()
    let reset = Int(clock.now.timeIntervalSince1970) + 60
    let transport = ScriptedTransport([
      .http(
        status: 403, headers: ["X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "\(reset)"],
        body: Data(rateLimitBody.utf8)),
      .http(status: 200, headers: [:], body: searchBody(repositoryJSON(id: 1, fullName: "a/tetris"))),
    ])
    let client = GitHubSearchClient(transport: transport, now: clock.clock)
    let first = await #expect(throws: GitHubSearchError.self) { try await client.firstPage(of: query) }
    clock.advance(by: 30)
    // Another query and another page: the limit is the client's, not the URL's.
    let second = await #expect(throws: GitHubSearchError.self) {
      try await client.page(2, of: SearchQuery(term: "other", language: .swift))
    }
    #expect(first == second)
    #expect(transport.requests.count == 1)
    #expect(client.activeRateLimit != nil)
    clock.advance(by: 30)
    #expect(client.activeRateLimit == nil)
    let result = try await client.firstPage(of: query)
    #expect(result.repositories.map(\.fullName) == ["a/tetris"])
    #expect(transport.requests.count == 2)
  }

  @Test func retryAfterSecondsSetTheWait() async throws {
    let clock = ManualDate()
    let transport = ScriptedTransport(
      status: 403, headers: ["Retry-After": "30", "X-RateLimit-Remaining": "12"],
      text:
        #"{"message":"You have exceeded a secondary rate limit. Please wait a few minutes before you try again."}"#
    )
    let client = GitHubSearchClient(
      configuration: GitHubSearchConfiguration(token: "ghp_x"), transport: transport, now: clock.clock)
    do {
      _ = try await client.firstPage(of: query)
      Issue.record("expected a rate limit")
    } catch {
      let limit = try #require(rateLimited(error))
      #expect(limit.kind == .secondary)
      #expect(limit.resetsAt == clock.now.addingTimeInterval(30))
      #expect(limit.isAuthenticated)
      #expect(!error.message(in: utc).contains("GITHUB_TOKEN"))
      #expect(error.message(in: utc).contains("secondary rate limit"))
    }
  }

  @Test func retryAfterHTTPDateAnd429() async throws {
    let clock = ManualDate(Date(timeIntervalSince1970: 1_445_412_400))  // 2015-10-21 07:26:40 UTC
    let transport = ScriptedTransport(
      status: 429, headers: ["Retry-After": "Wed, 21 Oct 2015 07:28:00 GMT"], text: "")
    let client = GitHubSearchClient(transport: transport, now: clock.clock)
    do {
      _ = try await client.firstPage(of: query)
      Issue.record("expected a rate limit")
    } catch {
      let limit = try #require(rateLimited(error))
      #expect(limit.resetsAt == Date(timeIntervalSince1970: 1_445_412_480))
      #expect(limit.resetTime(in: utc) == "07:28")
    }
  }

  @Test func rateLimitMessageWithoutHeadersWaitsAMinute() async throws {
    let clock = ManualDate()
    let transport = ScriptedTransport(
      status: 403, text: #"{"message":"You have exceeded a secondary rate limit."}"#)
    let client = GitHubSearchClient(transport: transport, now: clock.clock)
    do {
      _ = try await client.firstPage(of: query)
      Issue.record("expected a rate limit")
    } catch {
      #expect(rateLimited(error)?.resetsAt == clock.now.addingTimeInterval(60))
    }
  }

  @Test func forbiddenWithoutLimitSignsIsNotARateLimit() async throws {
    let transport = ScriptedTransport(
      status: 403, headers: ["X-RateLimit-Remaining": "25"],
      text: #"{"message":"Resource not accessible by integration"}"#)
    let client = GitHubSearchClient(transport: transport)
    await #expect(throws: GitHubSearchError.forbidden(message: "Resource not accessible by integration")) {
      try await client.firstPage(of: query)
    }
    // No block: the next request is sent.
    _ = try? await client.firstPage(of: query)
    #expect(transport.requests.count == 2)
  }

  @Test func spendingTheLastRequestBlocksTheNextOne() async throws {
    let clock = ManualDate()
    let reset = Int(clock.now.timeIntervalSince1970) + 45
    let transport = ScriptedTransport(
      status: 200,
      headers: ["X-RateLimit-Limit": "30", "X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "\(reset)"],
      body: searchBody(repositoryJSON(id: 7, fullName: "a/b")))
    let client = GitHubSearchClient(transport: transport, now: clock.clock)
    let page = try await client.firstPage(of: query)
    #expect(page.repositories.count == 1)
    await #expect(throws: GitHubSearchError.self) { try await client.firstPage(of: query) }
    #expect(transport.requests.count == 1)
    #expect(client.activeRateLimit?.limit == 30)
  }

  @Test func pastResetDoesNotBlock() async throws {
    // A recorded answer from 2015 with nothing left: its reset is long past.
    let transport = ScriptedTransport([
      .http(
        status: 403, headers: ["X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "1430338524"],
        body: Data(rateLimitBody.utf8)),
      .http(status: 200, headers: [:], body: searchBody(repositoryJSON(id: 1, fullName: "a/b"))),
    ])
    let client = GitHubSearchClient(transport: transport)
    await #expect(throws: GitHubSearchError.self) { try await client.firstPage(of: query) }
    _ = try await client.firstPage(of: query)
    #expect(transport.requests.count == 2)
  }

  @Test func headersParseLeniently() throws {
    let request = URLRequest(url: try #require(URL(string: "https://api.github.com/search/repositories")))
    let response = try httpResponse(
      request, status: 200,
      headers: [
        "x-ratelimit-limit": "30", "X-RateLimit-Remaining": " 29 ", "X-RateLimit-Reset": "soon",
        "X-RateLimit-Resource": "search",
      ])
    let status = RateLimitStatus(response: response)
    #expect(status?.limit == 30 && status?.remaining == 29 && status?.resource == "search")
    #expect(status != nil && status?.resetsAt == nil)
    #expect(RateLimitStatus(response: try httpResponse(request, status: 200)) == nil)
    #expect(RateLimitStatus.retryAfter("-5", now: Date()) == nil)
    #expect(RateLimitStatus.retryAfter("tomorrow", now: Date()) == nil)
  }
}
