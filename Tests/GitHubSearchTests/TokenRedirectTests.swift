import Foundation
import GitHubSearch
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The token goes to the configured origin only: a redirect to another host, port or scheme
/// (GitHub's API answers 301 for moved repositories; a compromised or misconfigured host might
/// answer anything) does not carry `Authorization`. Over real sockets: the configured server
/// redirects to a second one, which records what it received.
@Suite(.serialized) struct TokenRedirectTests {
  static let token = "ghp_testtoken0123456789"
  static let body = String(decoding: searchBody(repositoryJSON(id: 7, fullName: "a/b")), as: UTF8.self)

  /// Searches through a server that redirects with `status` to `target`; returns what the
  /// client received and the heads both servers saw.
  static func search(redirect status: String, to target: (_ port: UInt16) -> String) async throws -> (
    SearchResult?, configured: [String], other: [String]
  ) {
    let other = try LoopbackHTTPServer { _ in httpReply(status: "200 OK", body: body) }
    defer { other.stop() }
    let location = target(other.port)
    let configured = try LoopbackHTTPServer { head in
      // The configured server answers its own redirect target itself.
      head.hasPrefix("GET /moved")
        ? httpReply(status: "200 OK", body: body)
        : httpReply(status: status, headers: ["Location: \(location)"])
    }
    defer { configured.stop() }
    let configuration = try GitHubSearchConfiguration(
      baseURL: #require(URL(string: "http://127.0.0.1:\(configured.port)")), token: token, timeout: 10)
    let client = GitHubSearchClient(configuration: configuration, transport: URLSessionTransport())
    let result = try? await client.firstPage(of: SearchQuery(term: "tetris"))
    return (result, configured.requests, other.requests)
  }

  static func carriesToken(_ head: String) -> Bool {
    head.lowercased().contains("authorization: bearer \(token.lowercased())")
  }

  @Test(arguments: ["301 Moved Permanently", "302 Found", "307 Temporary Redirect", "308 Permanent Redirect"])
  func aRedirectToAnotherPortDoesNotCarryTheToken(status: String) async throws {
    let (result, configured, other) = try await Self.search(redirect: status) { port in
      "http://127.0.0.1:\(port)/search/repositories?q=tetris&page=1"
    }
    #expect(configured.count == 1 && configured.allSatisfy(Self.carriesToken), "\(configured)")
    // The redirect was followed, without the token.
    #expect(other.count == 1, "\(other)")
    #expect(!other.contains(where: Self.carriesToken), "\(other)")
    #expect(result != nil)
  }

  @Test func aRedirectToAnotherHostNameDoesNotCarryTheToken() async throws {
    // localhost and 127.0.0.1 are the same machine but not the same origin.
    let (_, configured, other) = try await Self.search(redirect: "302 Found") { port in
      "http://localhost:\(port)/search/repositories?q=tetris&page=1"
    }
    #expect(configured.allSatisfy(Self.carriesToken))
    #expect(!other.contains(where: Self.carriesToken), "\(other)")
  }

  @Test func aRedirectWithinTheConfiguredOriginKeepsTheToken() async throws {
    let (result, configured, other) = try await Self.search(redirect: "301 Moved Permanently") { _ in "/moved"
    }
    #expect(configured.count == 2, "\(configured)")
    #expect(configured.allSatisfy(Self.carriesToken), "\(configured)")
    #expect(other.isEmpty)
    #expect(result != nil)
  }

  @Test func aTokenIsNeverSentOverPlainHTTPBeyondThisMachine() throws {
    for text in ["http://api.example.com", "http://10.0.0.1:8080/api/v3"] {
      let configuration = GitHubSearchConfiguration(
        baseURL: try #require(URL(string: text)), token: Self.token)
      let client = GitHubSearchClient(configuration: configuration, transport: URLSessionTransport())
      #expect(throws: GitHubSearchError.self) { try client.url(for: SearchQuery(term: "tetris")) }
      // Without a token plain http is the user's choice.
      let anonymous = GitHubSearchClient(
        configuration: GitHubSearchConfiguration(baseURL: try #require(URL(string: text))),
        transport: URLSessionTransport())
      #expect(throws: Never.self) { try anonymous.url(for: SearchQuery(term: "tetris")) }
    }
    for text in [
      "https://ghe.example.com/api/v3", "http://127.0.0.1:9", "http://localhost:8080", "http://[::1]:80",
    ] {
      let configuration = GitHubSearchConfiguration(
        baseURL: try #require(URL(string: text)), token: Self.token)
      let client = GitHubSearchClient(configuration: configuration, transport: URLSessionTransport())
      #expect(throws: Never.self) { try client.url(for: SearchQuery(term: "tetris")) }
    }
  }
}
