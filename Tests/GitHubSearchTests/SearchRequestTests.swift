import Foundation
import GitHubSearch
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

@Suite struct SearchRequestTests {
  private func client(_ configuration: GitHubSearchConfiguration = GitHubSearchConfiguration())
    -> (GitHubSearchClient, ScriptedTransport)
  {
    let transport = ScriptedTransport(body: searchBody(repositoryJSON(id: 1, fullName: "a/b")))
    return (GitHubSearchClient(configuration: configuration, transport: transport), transport)
  }

  @Test func urlHasTheTermLanguageSortOrderPageSizeAndPage() throws {
    let (client, _) = client()
    let swift = try client.url(for: SearchQuery(term: "animation", language: .swift), page: 2)
    #expect(
      swift.absoluteString
        == "https://api.github.com/search/repositories?q=animation+language:Swift&sort=stars&order=desc&per_page=30&page=2"
    )
    let objc = try client.url(
      for: SearchQuery(term: "  easy   animation ", language: .objectiveC, perPage: 50))
    #expect(objc.absoluteString.contains("?q=easy+animation+language:Objective-C&"))
    #expect(objc.absoluteString.hasSuffix("&per_page=50&page=1"))
    let any = try client.url(for: SearchQuery(term: "tetris"))
    #expect(any.absoluteString.contains("?q=tetris&sort=stars"))
  }

  @Test func reservedCharactersAreEncodedSoGitHubReadsTheTermAsTyped() throws {
    let (client, _) = client()
    // `+` would read as a space, `&` and `#` would end the parameter.
    let url = try client.url(
      for: SearchQuery(term: "c++ a&b #1 stars:>10", language: .named("Jupyter Notebook")))
    #expect(url.absoluteString.contains("q=c%2B%2B+a%26b+%231+stars:%3E10+language:%22Jupyter+Notebook%22&"))
    let unicode = try client.url(for: SearchQuery(term: "日本語"))
    #expect(unicode.absoluteString.contains("q=%E6%97%A5%E6%9C%AC%E8%AA%9E&"))
  }

  @Test func languageNamesMapToTheirCases() {
    #expect(SearchLanguage(name: "swift") == .swift)
    #expect(SearchLanguage(name: " Objective-C ") == .objectiveC)
    #expect(SearchLanguage(name: "") == .any)
    #expect(SearchLanguage(name: "Any") == .any)
    #expect(SearchLanguage(name: "Assembly") == .named("Assembly"))
    #expect(SearchLanguage.named("  ").qualifier == nil)
    #expect(
      SearchQuery(term: "tetris", language: .named("swift"))
        == SearchQuery(term: " tetris ", language: .swift))
  }

  @Test func searchabilityCountsCharactersNotBytes() {
    #expect(!SearchQuery(term: "te").isSearchable)
    #expect(!SearchQuery(term: " t  e ").isSearchable)
    #expect(SearchQuery(term: "tet").isSearchable)
    #expect(!SearchQuery(term: "日本").isSearchable)  // six UTF-8 bytes, two characters
    #expect(SearchQuery(term: "日本語").isSearchable)
    #expect(SearchQuery(term: "x", perPage: 30).lastReachablePage == 34)
    #expect(SearchQuery(term: "x", perPage: 100).lastReachablePage == 10)
  }

  @Test func headersNameTheMediaTypeAgentAndTokenOnlyWhenThereIsOne() async throws {
    let (anonymous, anonymousTransport) = client()
    _ = try await anonymous.firstPage(of: SearchQuery(term: "tetris"))
    let plain = try #require(anonymousTransport.requests.first)
    #expect(plain.httpMethod == "GET")
    #expect(plain.value(forHTTPHeaderField: "Accept") == "application/vnd.github+json")
    #expect(plain.value(forHTTPHeaderField: "User-Agent")?.hasPrefix("LiveLog-GitHubSearch/") == true)
    #expect(plain.value(forHTTPHeaderField: "Authorization") == nil)
    #expect(plain.value(forHTTPHeaderField: "If-None-Match") == nil)

    let (authenticated, transport) = client(GitHubSearchConfiguration(token: "ghp_example", timeout: 5))
    _ = try await authenticated.firstPage(of: SearchQuery(term: "tetris"))
    let request = try #require(transport.requests.first)
    #expect(request.value(forHTTPHeaderField: "Authorization") == "Bearer ghp_example")
    #expect(request.timeoutInterval == 5)
  }

  @Test func environmentGivesTokenAndBaseURL() throws {
    let configuration = GitHubSearchConfiguration.fromEnvironment([
      "GITHUB_TOKEN": " ghp_abc\n", "GITHUB_API_URL": "https://ghe.example.com/api/v3/",
    ])
    #expect(configuration.token == "ghp_abc")
    let (client, _) = client(configuration)
    #expect(
      try client.url(for: SearchQuery(term: "tetris")).absoluteString.hasPrefix(
        "https://ghe.example.com/api/v3/search/repositories?q=tetris&"))
    let empty = GitHubSearchConfiguration.fromEnvironment(["GITHUB_TOKEN": "  "])
    #expect(empty.token == nil)
    #expect(empty.baseURL.absoluteString == "https://api.github.com")
  }

  @Test func queriesGitHubCannotTakeFailBeforeTheNetwork() async throws {
    let (client, transport) = client()
    let cases: [(SearchQuery, Int)] = [
      (SearchQuery(term: "   "), 1), (SearchQuery(term: "tetris", perPage: 0), 1),
      (SearchQuery(term: "tetris", perPage: 101), 1), (SearchQuery(term: "tetris"), 0),
      (SearchQuery(term: "tetris"), 35),
    ]
    for (query, page) in cases {
      await #expect {
        _ = try await client.page(page, of: query)
      } throws: { error in
        guard case .invalidQuery(let reason) = error as? GitHubSearchError else { return false }
        return !reason.isEmpty
      }
    }
    #expect(transport.requests.isEmpty)
  }

  @Test func badConfigurationIsReportedByName() async throws {
    let cases = [
      GitHubSearchConfiguration(baseURL: URL(fileURLWithPath: "/tmp")),
      GitHubSearchConfiguration(token: "two words"),
      GitHubSearchConfiguration(timeout: 0),
    ]
    for configuration in cases {
      let (client, transport) = client(configuration)
      await #expect {
        _ = try await client.firstPage(of: SearchQuery(term: "tetris"))
      } throws: { error in
        guard case .invalidConfiguration = error as? GitHubSearchError else { return false }
        return true
      }
      #expect(transport.requests.isEmpty)
    }
  }
}
