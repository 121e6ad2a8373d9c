import Foundation
import GitHubSearch
import Testing

@Suite(.timeLimit(.minutes(1))) struct CancellationTests {
  private let query = SearchQuery(term: "tetris")

  @Test func cancellingTheTaskCancelsTheRequest() async throws {
    let transport = GatedTransport()
    let client = GitHubSearchClient(transport: transport)
    let task = Task { try await client.firstPage(of: query) }
    await transport.waitForRequests(1)
    task.cancel()
    let result = await task.result
    #expect(throws: GitHubSearchError.cancelled) { try result.get() }
    #expect(transport.cancelled.count == 1)
  }

  @Test func anAlreadyCancelledTaskSendsNothing() async throws {
    let transport = ScriptedTransport(status: 200, body: searchBody(repositoryJSON(id: 1, fullName: "a/b")))
    let client = GitHubSearchClient(transport: transport)
    let task = Task {
      withUnsafeCurrentTask { $0?.cancel() }
      return try await client.firstPage(of: query)
    }
    await #expect(throws: GitHubSearchError.cancelled) { try await task.value }
    #expect(transport.requests.isEmpty)
  }

  @Test func anAnswerAfterCancellationIsDiscardedAndItsETagNotKept() async throws {
    let transport = GatedTransport(honoursCancellation: false)
    let client = GitHubSearchClient(transport: transport)
    let task = Task { try await client.firstPage(of: query) }
    await transport.waitForRequests(1)
    task.cancel()
    transport.release(
      matching: "q=tetris", headers: ["ETag": #""late""#],
      body: searchBody(repositoryJSON(id: 1, fullName: "a/b")))
    await #expect(throws: GitHubSearchError.cancelled) { try await task.value }
    // The caller never saw that page, so the next request must not claim to have it.
    let next = Task { try await client.firstPage(of: query) }
    await transport.waitForRequests(2)
    #expect(transport.received.last?.value(forHTTPHeaderField: "If-None-Match") == nil)
    transport.release(matching: "q=tetris", body: searchBody(repositoryJSON(id: 1, fullName: "a/b")))
    _ = try await next.value
  }

  @Test func cancellationDuringPaginationThrowsCancelled() async throws {
    let transport = GatedTransport()
    let client = GitHubSearchClient(transport: transport)
    let task = Task { try await client.pages(of: query, upTo: 3) }
    await transport.waitForRequests(1)
    transport.release(
      matching: "page=1",
      headers: ["Link": #"<https://api.github.com/search/repositories?q=tetris&page=2>; rel="next""#],
      body: searchBody(repositoryJSON(id: 1, fullName: "a/b")))
    await transport.waitForRequests(2)
    task.cancel()
    await #expect(throws: GitHubSearchError.cancelled) { try await task.value }
  }
}
