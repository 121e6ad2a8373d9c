import Foundation
import GitHubSearch
import Testing

@Suite struct ETagTests {
  private let query = SearchQuery(term: "tetris", language: .named("Assembly"))
  private let link =
    #"<https://api.github.com/search/repositories?q=tetris&page=2>; rel="next", <https://api.github.com/search/repositories?q=tetris&page=3>; rel="last""#

  @Test func secondRequestSendsIfNoneMatchAndA304KeepsWhatTheCallerHas() async throws {
    let transport = ScriptedTransport([
      .http(
        status: 200, headers: ["ETag": #"W/"abc""#, "Link": link],
        body: searchBody(repositoryJSON(id: 1, fullName: "a/tetris"), totalCount: 77)),
      .http(status: 304, headers: ["ETag": #"W/"abc""#, "X-RateLimit-Remaining": "28"], body: Data()),
    ])
    let client = GitHubSearchClient(transport: transport)
    guard case .fresh(let page) = try await client.firstPage(of: query) else {
      Issue.record("the first answer is fresh")
      return
    }
    #expect(page.etag == #"W/"abc""#)
    let again = try await client.firstPage(of: query)
    guard case .notModified(let unchanged) = again else {
      Issue.record("expected not modified, got \(again)")
      return
    }
    // A 304 repeats no Link and no count: they come from the remembered answer.
    #expect(unchanged.links.nextPage == 2 && unchanged.links.lastPage == 3)
    #expect(unchanged.totalCount == 77)
    #expect(unchanged.rateLimit?.remaining == 28)
    #expect(again.repositories.isEmpty)
    #expect(again.followingPage == 2)
    let requests = transport.requests
    #expect(requests[0].value(forHTTPHeaderField: "If-None-Match") == nil)
    #expect(requests[1].value(forHTTPHeaderField: "If-None-Match") == #"W/"abc""#)
  }

  @Test func etagsArePerURL() async throws {
    let transport = ScriptedTransport(
      status: 200, headers: ["ETag": #""v1""#], body: searchBody(repositoryJSON(id: 1, fullName: "a/b")))
    let client = GitHubSearchClient(transport: transport)
    _ = try await client.firstPage(of: query)
    _ = try await client.page(2, of: query)
    _ = try await client.firstPage(of: SearchQuery(term: "tetris", language: .swift))
    _ = try await client.firstPage(of: query)
    let validators = transport.requests.map { $0.value(forHTTPHeaderField: "If-None-Match") }
    #expect(validators == [nil, nil, nil, #""v1""#])
  }

  @Test func anAnswerWithoutETagForgetsTheOldOne() async throws {
    let transport = ScriptedTransport([
      .http(
        status: 200, headers: ["ETag": #""v1""#], body: searchBody(repositoryJSON(id: 1, fullName: "a/b"))),
      .http(status: 200, headers: [:], body: searchBody(repositoryJSON(id: 1, fullName: "a/b"))),
      .http(status: 200, headers: [:], body: searchBody(repositoryJSON(id: 1, fullName: "a/b"))),
    ])
    let client = GitHubSearchClient(transport: transport)
    for _ in 0..<3 { _ = try await client.firstPage(of: query) }
    #expect(transport.requests.map { $0.value(forHTTPHeaderField: "If-None-Match") } == [nil, #""v1""#, nil])
  }

  @Test func forgetETagsBringsFullAnswersAgain() async throws {
    let transport = ScriptedTransport(
      status: 200, headers: ["ETag": #""v1""#], body: searchBody(repositoryJSON(id: 1, fullName: "a/b")))
    let client = GitHubSearchClient(transport: transport)
    _ = try await client.firstPage(of: query)
    client.forgetETags()
    _ = try await client.firstPage(of: query)
    #expect(transport.requests.allSatisfy { $0.value(forHTTPHeaderField: "If-None-Match") == nil })
  }

  @Test func a304WithoutARememberedAnswerIsStillNotModified() async throws {
    let client = GitHubSearchClient(transport: ScriptedTransport(status: 304, headers: ["ETag": #""x""#]))
    let result = try await client.firstPage(of: query)
    guard case .notModified(let page) = result else {
      Issue.record("expected not modified")
      return
    }
    #expect(page.links == PageLinks() && page.totalCount == nil && page.etag == #""x""#)
  }

  @Test func failedAnswersKeepTheETag() async throws {
    let transport = ScriptedTransport([
      .http(
        status: 200, headers: ["ETag": #""v1""#], body: searchBody(repositoryJSON(id: 1, fullName: "a/b"))),
      .http(status: 502, headers: [:], body: Data("<html>bad gateway</html>".utf8)),
      .http(status: 304, headers: [:], body: Data()),
    ])
    let client = GitHubSearchClient(transport: transport)
    _ = try await client.firstPage(of: query)
    await #expect(throws: GitHubSearchError.httpStatus(code: 502, message: nil)) {
      try await client.firstPage(of: query)
    }
    _ = try await client.firstPage(of: query)
    #expect(transport.requests.last?.value(forHTTPHeaderField: "If-None-Match") == #""v1""#)
  }
}
