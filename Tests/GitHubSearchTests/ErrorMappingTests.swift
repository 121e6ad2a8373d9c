import Foundation
import GitHubSearch
import LiveLog
import Testing

@Suite struct ErrorMappingTests {
  private let query = SearchQuery(term: "tetris")

  private func failure(status: Int = 200, headers: [String: String] = [:], body: String) async
    -> GitHubSearchError?
  {
    await failure(ScriptedTransport(status: status, headers: headers, text: body))
  }

  private func failure(_ transport: ScriptedTransport) async -> GitHubSearchError? {
    do {
      let result = try await GitHubSearchClient(transport: transport).firstPage(of: query)
      Issue.record("expected a failure, got \(result)")
      return nil
    } catch {
      return error
    }
  }

  private func malformed(_ body: String) async -> InputError? {
    guard case .malformedResponse(let error)? = await failure(body: body) else {
      Issue.record("expected a malformed response for \(body.prefix(60))")
      return nil
    }
    return error
  }

  // MARK: Malformed answers: a typed error with the place, never a crash

  @Test func syntaxErrorsNameLineAndColumn() async throws {
    let truncated = String(decoding: try Fixtures.searchResponse("03").prefix(2_000), as: UTF8.self)
    let error = try #require(await malformed(truncated))
    #expect(error.source.hasPrefix("GET /search/repositories?q=tetris&"))
    #expect(error.line != nil)
    let html = try #require(await malformed("<!DOCTYPE html><html><body>Guest Wi-Fi</body></html>"))
    #expect(html.line == 1 && html.column == 1)
    #expect(try #require(await malformed("{\"items\": [}")).column != nil)
  }

  @Test func emptyAndWhitespaceBodiesAreErrors() async throws {
    for body in ["", "  \n\t "] {
      let error = try #require(await malformed(body))
      #expect(error.message.contains("empty"))
    }
  }

  @Test func shapesThatAreNotASearchResponseAreErrors() async throws {
    let noItems = try #require(await malformed(#"{"total_count": 0, "incomplete_results": false}"#))
    #expect(noItems.message.contains("items"))
    let itemsNotArray = try #require(await malformed(#"{"total_count": 1, "items": {"id": 1}}"#))
    #expect(itemsNotArray.field == "items")
    let array = try #require(await malformed(#"[{"id": 1, "full_name": "a/b"}]"#))
    #expect(array.message.contains("found an array"))
    #expect(try #require(await malformed(#""just a string""#)).message.contains("string"))
    #expect(try #require(await malformed("null")).line == 1)
    let two = try #require(await malformed(#"{"items": []}{"items": []}"#))
    #expect(two.line == 1)
  }

  @Test func badRecordsNameTheItemAndField() async throws {
    let noFullName = try #require(
      await malformed(#"{"total_count": 2, "items": [{"id": 1, "full_name": "a/b"}, {"id": 2}]}"#))
    #expect(noFullName.item == "items[1]")
    #expect(noFullName.description.contains("full_name"))
    let noID = try #require(await malformed(#"{"items": [{"full_name": "a/b"}]}"#))
    #expect(noID.item == "items[0]")
    let starsAsText = try #require(
      await malformed(#"{"items": [{"id": 1, "full_name": "a/b", "stargazers_count": "many"}]}"#))
    #expect(starsAsText.field == "stargazers_count")
    let itemNotObject = try #require(await malformed(#"{"items": [42]}"#))
    #expect(itemNotObject.item == "items[0]")
    let delete = try #require(await malformed(#"{"items": [{"delete": 5}]}"#))
    #expect(delete.message.contains("delete"))
  }

  @Test func countsOfTheWrongTypeAreErrors() async throws {
    let count = try #require(await malformed(#"{"total_count": "77", "items": []}"#))
    #expect(count.field == "total_count")
    let incomplete = try #require(await malformed(#"{"incomplete_results": 1, "items": []}"#))
    #expect(incomplete.field == "incomplete_results")
  }

  @Test func invalidUTF8IsAnError() async throws {
    var body = Data(#"{"items": [{"id": 1, "full_name": "a/"#.utf8)
    body.append(contentsOf: [0xFF, 0xFE])
    body.append(contentsOf: Data(#""}]}"#.utf8))
    guard case .malformedResponse = await failure(ScriptedTransport(status: 200, body: body)) else {
      Issue.record("invalid UTF-8 must be a malformed response")
      return
    }
  }

  @Test func everyMalformedMessageIsReadable() async throws {
    let error = GitHubSearchError.malformedResponse(
      InputError(source: "GET /x", line: 3, column: 7, message: "bad"))
    #expect(
      error.message == "GitHub's answer could not be read: GET /x:3:7: bad. The results already shown stay.")
  }

  // MARK: HTTP statuses

  @Test func statusesMapToTheirErrorsWithGitHubsMessage() async {
    #expect(
      await failure(
        status: 401,
        body: #"{"message":"Bad credentials","documentation_url":"https://docs.github.com/rest"}"#)
        == .unauthorized(message: "Bad credentials"))
    #expect(
      await failure(status: 404, body: #"{"message":"Not Found"}"#)
        == .httpStatus(code: 404, message: "Not Found"))
    #expect(await failure(status: 503, body: "<html>unicorn</html>") == .httpStatus(code: 503, message: nil))
    #expect(await failure(status: 500, body: "") == .httpStatus(code: 500, message: nil))
    #expect(await failure(status: 301, body: "") == .httpStatus(code: 301, message: nil))
  }

  @Test func validationFailedCarriesTheDetails() async throws {
    let body = #"""
      {"message":"Validation Failed","errors":[{"message":"The listed users and repositories cannot be searched either because the resources do not exist or you do not have permission to view them.","resource":"Search","field":"q","code":"invalid"}, {"resource":"Search","field":"q","code":"missing"}],"documentation_url":"https://docs.github.com/v3/search/"}
      """#
    let error = try #require(await failure(status: 422, body: body))
    guard case .validationFailed(let message, let details) = error else {
      Issue.record("expected validation failed, got \(error)")
      return
    }
    #expect(message == "Validation Failed")
    #expect(details.count == 2)
    #expect(details[0].hasPrefix("The listed users"))
    #expect(details[1] == "Search q missing")
    #expect(error.message.hasPrefix("GitHub cannot run this search: The listed users"))
    // Older answers list plain strings.
    #expect(
      await failure(status: 422, body: #"{"message":"Validation Failed","errors":["bad q"]}"#)
        == .validationFailed(message: "Validation Failed", details: ["bad q"]))
  }

  @Test func hugeMessagesAreCut() async throws {
    let long = String(repeating: "x", count: 10_000)
    guard case .httpStatus(_, let message?)? = await failure(status: 500, body: #"{"message":"\#(long)"}"#)
    else {
      Issue.record("expected a status error with a message")
      return
    }
    #expect(message.count == 300)
  }

  @Test func serverErrorsSayToTryAgain() {
    #expect(
      GitHubSearchError.httpStatus(code: 502, message: nil).message
        == "GitHub had a problem answering (502 Bad Gateway). Search again in a moment.")
    #expect(
      GitHubSearchError.httpStatus(code: 404, message: "Not Found").message
        == "GitHub answered 404 Not Found: Not Found.")
  }

  // MARK: Transport failures

  @Test func urlErrorsBecomeOfflineTimeoutOrTransport() async {
    let cases: [(URLError.Code, (GitHubSearchError) -> Bool)] = [
      (.notConnectedToInternet, { if case .offline = $0 { true } else { false } }),
      (.cannotFindHost, { $0 == .offline(detail: "cannot find the host api.github.com") }),
      (.cannotConnectToHost, { if case .offline = $0 { true } else { false } }),
      (.networkConnectionLost, { if case .offline = $0 { true } else { false } }),
      (.dnsLookupFailed, { if case .offline = $0 { true } else { false } }),
      (
        .timedOut,
        { if case .timedOut(let url) = $0 { url.contains("/search/repositories?q=tetris") } else { false } }
      ),
      (.cancelled, { $0 == .cancelled }),
      (
        .secureConnectionFailed,
        { if case .transport(let detail) = $0 { detail.contains("secure") } else { false } }
      ),
      (.badURL, { if case .transport = $0 { true } else { false } }),
    ]
    for (code, check) in cases {
      let error = await failure(ScriptedTransport([.failure(URLError(code))]))
      #expect(error.map(check) == true, "URLError \(code.rawValue) gave \(String(describing: error))")
    }
  }

  @Test func otherTransportErrorsAreWrapped() async {
    struct Odd: Error, Sendable, CustomStringConvertible { var description: String { "odd failure" } }
    #expect(await failure(ScriptedTransport([.failure(Odd())])) == .transport(detail: "odd failure"))
    #expect(await failure(ScriptedTransport([.failure(CancellationError())])) == .cancelled)
  }

  @Test func offlineMessageSaysWhatToDo() {
    #expect(
      GitHubSearchError.offline(detail: "not connected to the internet").message
        == "Cannot reach GitHub (not connected to the internet). Check the network connection, then search again."
    )
  }
}
