import Foundation
import GitHubSearch
import Testing

@Suite struct PaginationTests {
  private func link(next: Int?, last: Int?) -> [String: String] {
    var parts: [String] = []
    if let next {
      parts.append("<https://api.github.com/search/repositories?q=x&page=\(next)>; rel=\"next\"")
    }
    if let last {
      parts.append("<https://api.github.com/search/repositories?q=x&page=\(last)>; rel=\"last\"")
    }
    return parts.isEmpty ? [:] : ["Link": parts.joined(separator: ", ")]
  }

  private func page(_ id: Int, next: Int?, last: Int? = 3) -> ScriptedTransport.Answer {
    .http(
      status: 200, headers: link(next: next, last: last),
      body: searchBody(repositoryJSON(id: id, fullName: "o/r\(id)")))
  }

  @Test func fetchesUpToKPagesFollowingNext() async throws {
    let transport = ScriptedTransport([page(1, next: 2), page(2, next: 3), page(3, next: nil, last: nil)])
    let client = GitHubSearchClient(transport: transport)
    let pages = try await client.pages(of: SearchQuery(term: "tetris"), upTo: 2)
    #expect(pages.results.map(\.pageNumber) == [1, 2])
    #expect(pages.repositories.map(\.id) == [1, 2])
    #expect(pages.failure == nil)
    #expect(
      transport.requests.compactMap { $0.url?.query }.map { $0.hasSuffix("page=1") || $0.hasSuffix("page=2") }
        == [true, true])
  }

  @Test func stopsAtTheLastPage() async throws {
    let transport = ScriptedTransport([page(1, next: 2), page(2, next: 3), page(3, next: nil, last: nil)])
    let pages = try await GitHubSearchClient(transport: transport).pages(
      of: SearchQuery(term: "tetris"), upTo: 10)
    #expect(pages.results.count == 3)
    #expect(transport.requests.count == 3)
  }

  @Test func followsPageNumbersNotForeignHosts() async throws {
    // WireMock recordings name localhost: the client must keep to its own base URL (and token).
    let transport = ScriptedTransport([
      .http(
        status: 200,
        headers: ["Link": #"<http://localhost:54240/search/repositories?q=tetris&page=2>; rel="next""#],
        body: searchBody(repositoryJSON(id: 1, fullName: "o/a"))),
      page(2, next: nil, last: nil),
    ])
    let client = GitHubSearchClient(
      configuration: GitHubSearchConfiguration(token: "ghp_secret"), transport: transport)
    _ = try await client.pages(of: SearchQuery(term: "tetris"), upTo: 2)
    #expect(transport.requests.map { $0.url?.host } == ["api.github.com", "api.github.com"])
  }

  @Test func aLinkBackwardsOrPastTheCapEndsTheFetch() async throws {
    let backwards = ScriptedTransport([page(1, next: 1)])
    #expect(
      try await GitHubSearchClient(transport: backwards).pages(of: SearchQuery(term: "tetris"), upTo: 5)
        .results.count == 1)
    // 100 a page: page 11 would be past the first 1,000 results.
    let capped = ScriptedTransport([page(1, next: 11)])
    let pages = try await GitHubSearchClient(transport: capped).pages(
      of: SearchQuery(term: "tetris", perPage: 100), upTo: 20)
    #expect(pages.results.count == 1)
    #expect(capped.requests.count == 1)
  }

  @Test func aLaterFailureKeepsTheEarlierPages() async throws {
    let transport = ScriptedTransport([
      page(1, next: 2), .http(status: 502, headers: [:], body: Data("<html></html>".utf8)),
    ])
    let pages = try await GitHubSearchClient(transport: transport).pages(
      of: SearchQuery(term: "tetris"), upTo: 3)
    #expect(pages.results.count == 1)
    #expect(pages.failure == .httpStatus(code: 502, message: nil))
  }

  @Test func aFirstPageFailureThrows() async throws {
    let transport = ScriptedTransport(status: 500, text: "")
    await #expect(throws: GitHubSearchError.httpStatus(code: 500, message: nil)) {
      try await GitHubSearchClient(transport: transport).pages(of: SearchQuery(term: "tetris"), upTo: 3)
    }
    await #expect(throws: GitHubSearchError.self) {
      try await GitHubSearchClient(transport: transport).pages(of: SearchQuery(term: "tetris"), upTo: 0)
    }
  }
}
