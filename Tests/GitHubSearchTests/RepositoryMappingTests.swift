import Foundation
import GitHubSearch
import LiveLog
import Testing

@Suite struct RepositoryMappingTests {
  @Test func realTetrisAnswerOf2014BecomesRepositories() async throws {
    let transport = ScriptedTransport(status: 200, body: try Fixtures.searchResponse("05"))
    let client = GitHubSearchClient(transport: transport)
    let query = SearchQuery(term: "tetris", language: .named("assembly"))
    guard case .fresh(let page) = try await client.firstPage(of: query) else {
      Issue.record("expected a fresh page")
      return
    }
    #expect(page.repositories.count == 30)
    #expect(page.totalCount == 77)
    #expect(!page.isIncomplete)  // the 2014 answer has no incomplete_results key
    #expect(page.number == 1 && page.query == query)
    let first = try #require(page.repositories.first)
    #expect(first.id == 4_731_946)
    #expect(first.fullName == "cjauvin/tetris-c64")
    #expect(first.name == "tetris-c64")
    #expect(first.ownerLogin == "cjauvin")
    #expect(first.language == "Assembly")
    #expect(first.stargazersCount == 7)
    #expect(first.createdAt == Timestamp(iso8601: "2012-06-20T21:55:01Z"))
    #expect(first.description == "A stripped down Tetris clone for the C64, in 6502 assembly")
    #expect(first.nodeID == nil && first.topics == nil)  // keys of later API eras
    #expect(page.mutations.count == 30)
    #expect(page.mutations.first == .upsert(first))
  }

  @Test func mappingEqualsLiveLogsOwnDecoding() async throws {
    // The client and `livelog ingest` must read an answer identically.
    for prefix in ["06", "11", "12"] {
      let bytes = try Fixtures.searchResponse(prefix)
      let client = GitHubSearchClient(transport: ScriptedTransport(status: 200, body: bytes))
      let result = try await client.firstPage(of: SearchQuery(term: "tetris"))
      let expected = try RecordFile(source: prefix, bytes: [UInt8](bytes)).mutations(of: Repository.self)
      #expect(result.repositories.map(Mutation.upsert) == expected, "file \(prefix)")
    }
  }

  @Test func laterEraAnswerKeepsNewFieldsAndCounts() async throws {
    let client = GitHubSearchClient(
      transport: ScriptedTransport(status: 200, body: try Fixtures.searchResponse("06")))
    guard case .fresh(let page) = try await client.firstPage(of: SearchQuery(term: "tetris")) else {
      Issue.record("expected a fresh page")
      return
    }
    #expect(page.totalCount == 1_918)
    let tetros = try #require(page.repositories.first { $0.fullName == "daniel-e/tetros" })
    #expect(tetros.stargazersCount == 690)
    #expect(tetros.nodeID != nil)
  }

  @Test func incompleteResultsAreFlagged() async throws {
    let body = #"{"total_count": 1, "incomplete_results": true, "items": [{"id": 1, "full_name": "a/b"}]}"#
    let client = GitHubSearchClient(transport: ScriptedTransport(status: 200, text: body))
    guard case .fresh(let page) = try await client.firstPage(of: SearchQuery(term: "tetris")) else {
      Issue.record("expected a fresh page")
      return
    }
    #expect(page.isIncomplete)
  }
}
