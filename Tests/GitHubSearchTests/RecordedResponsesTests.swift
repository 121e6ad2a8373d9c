import Foundation
import GitHubSearch
import LiveLog
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

@Suite struct RecordedResponsesTests {
  private let tetris = SearchQuery(term: "tetris", language: .named("assembly"))
  private let utc = TimeZone(identifier: "UTC") ?? .current

  private func offline(now: ManualDate = ManualDate()) throws -> (GitHubSearchClient, RecordedResponses) {
    let source = try RecordedResponses(directory: Fixtures.recorded, now: now.clock)
    return (
      GitHubSearchClient(configuration: GitHubSearchConfiguration(), transport: source, now: now.clock),
      source
    )
  }

  private func failure(_ term: String, language: SearchLanguage = .swift) async throws -> GitHubSearchError? {
    let (client, _) = try offline()
    return await failure(client, SearchQuery(term: term, language: language))
  }

  private func failure(_ client: GitHubSearchClient, _ query: SearchQuery) async -> GitHubSearchError? {
    do {
      _ = try await client.firstPage(of: query)
      return nil
    } catch {
      return error
    }
  }

  @Test func successiveFetchesWalkThroughTheRecordedYears() async throws {
    let (client, source) = try offline()
    guard case .fresh(let of2014) = try await client.firstPage(of: tetris) else {
      Issue.record("the first fetch is the 2014 answer")
      return
    }
    #expect(of2014.totalCount == 77)
    #expect(of2014.repositories.first { $0.id == 4_731_946 }?.fullName == "cjauvin/tetris-c64")
    #expect(of2014.links.nextPage == 2 && of2014.links.lastPage == 3)
    #expect(of2014.rateLimit?.limit == 20 && of2014.rateLimit?.remaining == 15)

    let unchanged = try await client.firstPage(of: tetris)
    guard case .notModified(let notModified) = unchanged else {
      Issue.record("the second fetch is the recorded 304, got \(unchanged)")
      return
    }
    #expect(notModified.totalCount == 77 && notModified.links.lastPage == 3)

    guard case .fresh(let of2019) = try await client.firstPage(of: tetris),
      case .fresh(let of2020) = try await client.firstPage(of: tetris)
    else {
      Issue.record("the third and fourth fetches are the 2019 and 2020 answers")
      return
    }
    #expect(of2019.totalCount == 1_677 && of2019.links.lastPage == 34)
    #expect(of2020.totalCount == 1_918)
    #expect(of2020.repositories.first { $0.id == 4_731_946 }?.fullName == "cjauvin/tetris-464")
    // WireMock's Link names localhost: read for the page number only.
    #expect(of2020.links.next?.host == "localhost" && SearchResult.fresh(of2020).followingPage == 2)

    // The last recording repeats; the client now has its ETag, so it is a 304.
    guard case .notModified = try await client.firstPage(of: tetris) else {
      Issue.record("a fifth fetch is answered 304")
      return
    }
    #expect(
      source.served == ["tetris-2014", "tetris-unchanged", "tetris-2019", "tetris-2020", "tetris-2020 (304)"])
  }

  @Test func theRecordedChangeStreamGoesIntoAStore() async throws {
    let (client, _) = try offline()
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "gh-search-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: directory) }
    let store = try Store(directory: directory.path)
    var inserted = 0
    var updated = 0
    for _ in 0..<4 {
      if case .fresh(let page) = try await client.firstPage(of: tetris) {
        let summary = try store.write(page.mutations)
        inserted += summary.inserted
        updated += summary.updated
      }
    }
    #expect(inserted > 30)  // later years bring repositories 2014 did not have
    #expect(updated > 0)  // and change some it had (stars, a rename)
  }

  @Test func paginationFollowsTheRealLinkHeaders() async throws {
    let (client, source) = try offline()
    let pages = try await client.pages(
      of: SearchQuery(term: "octokit", language: .named("Python"), perPage: 1), upTo: 5)
    #expect(pages.failure == nil)
    #expect(pages.results.map(\.pageNumber) == [1, 2])
    #expect(pages.repositories.map(\.fullName) == ["irqed/octokit.py", "whardier/OctoKitten"])
    #expect(source.served == ["octokit-page-1", "octokit-page-2"])
  }

  @Test func aRecordedRateLimitResetsAMinuteAfterItIsHit() async throws {
    let now = ManualDate(Date(timeIntervalSince1970: 1_700_000_000))  // 22:13:20 UTC
    let (client, source) = try offline(now: now)
    guard
      case .rateLimited(let limit)? = await failure(
        client, SearchQuery(term: "ratelimited", language: .swift))
    else {
      Issue.record("expected the recorded rate limit")
      return
    }
    #expect(limit.kind == .primary && limit.limit == 10)
    #expect(limit.resetsAt == now.now.addingTimeInterval(60))
    #expect(limit.message(in: utc).contains("resets at 22:15"))
    // Refused without asking the source again.
    await #expect(throws: GitHubSearchError.rateLimited(limit)) { try await client.firstPage(of: tetris) }
    #expect(source.served == ["rate-limited"])
    now.advance(by: 61)
    _ = try await client.firstPage(of: tetris)
    #expect(source.served == ["rate-limited", "tetris-2014"])
  }

  @Test func recordedErrorsBecomeTheirTypedErrors() async throws {
    guard case .rateLimited(let secondary)? = try await failure("secondarylimit") else {
      Issue.record("secondary limit")
      return
    }
    #expect(secondary.kind == .secondary)
    guard case .validationFailed(_, let details)? = try await failure("user:no-such-user-livelog") else {
      Issue.record("validation failed")
      return
    }
    #expect(details.first?.hasPrefix("The listed users and repositories cannot be searched") == true)
    #expect(try await failure("badcredentials") == .unauthorized(message: "Bad credentials"))
    #expect(try await failure("servererror", language: .any) == .httpStatus(code: 502, message: nil))
  }

  @Test func recordedMalformedAnswersAreTypedErrors() async throws {
    for term in ["truncated", "notjson", "badrecord", "wrongtype", "noitems", "emptybody"] {
      guard case .malformedResponse(let error)? = try await failure(term) else {
        Issue.record("\(term) must be a malformed response")
        continue
      }
      #expect(error.source.hasPrefix("GET /search/repositories?q=\(term)+language:Swift&"), "\(term)")
    }
    let (client, _) = try offline()
    guard case .fresh(let page) = try await client.firstPage(of: SearchQuery(term: "incomplete")) else {
      Issue.record("the incomplete answer is still a page")
      return
    }
    #expect(page.isIncomplete && page.repositories.count == 1)
  }

  @Test func anUnrecordedSearchSaysWhatIsRecorded() async throws {
    guard case .transport(let detail)? = try await failure("animation") else {
      Issue.record("expected a transport error")
      return
    }
    #expect(detail.contains("no recorded response for “animation language:swift” page 1"))
    #expect(detail.contains("“tetris language:assembly” page 1 ×4"))
    // Page 2 of the tetris search was never recorded either.
    let (client, _) = try offline()
    let pages = try await client.pages(of: tetris, upTo: 2)
    #expect(pages.results.count == 1)
    guard case .transport? = pages.failure else {
      Issue.record("page 2 has no recording")
      return
    }
  }

  @Test func rewindStartsTheSequencesAgain() async throws {
    let (client, source) = try offline()
    _ = try await client.firstPage(of: tetris)
    source.rewind()
    client.forgetETags()
    guard case .fresh(let page) = try await client.firstPage(of: tetris) else {
      Issue.record("after a rewind the 2014 answer comes again")
      return
    }
    #expect(page.totalCount == 77)
    #expect(source.served == ["tetris-2014"])
  }

  @Test func latencyIsCancellable() async throws {
    let source = try RecordedResponses(directory: Fixtures.recorded, latency: .seconds(30))
    let client = GitHubSearchClient(transport: source)
    let task = Task { try await client.firstPage(of: tetris) }
    task.cancel()
    await #expect(throws: GitHubSearchError.cancelled) { try await task.value }
    #expect(source.served.isEmpty)
  }

  @Test func brokenDirectoriesFailWhenLoaded() throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "gh-recorded-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    #expect {
      _ = try RecordedResponses(directory: directory)
    } throws: { error in
      guard case .unreadableManifest(_, let reason) = error as? RecordedResponsesError else { return false }
      return reason == "no such file"
    }
    let manifest = directory.appendingPathComponent("manifest.json")
    let cases: [(String, String)] = [
      (#"{"entries": [{"name": "a", "status": 200}]}"#, #"missing "request" at .entries[0]"#),
      (#"{"entries": "#, "not JSON"),
    ]
    for (text, expected) in cases {
      try Data(text.utf8).write(to: manifest)
      #expect {
        _ = try RecordedResponses(directory: directory)
      } throws: { error in
        guard case .unreadableManifest(_, let reason) = error as? RecordedResponsesError else { return false }
        return reason.hasPrefix(expected)
      }
    }
    let entries: [(String, String)] = [
      (#"{"name": "a", "request": {"term": "x"}, "status": 200, "body": "missing.json"}"#, "cannot be read"),
      (#"{"name": "a", "request": {"term": "x"}, "status": 999}"#, "not an HTTP status"),
    ]
    for (entry, expected) in entries {
      try Data(#"{"entries": [\#(entry)]}"#.utf8).write(to: manifest)
      #expect {
        _ = try RecordedResponses(directory: directory)
      } throws: { error in
        guard case .invalidEntry("a", let reason) = error as? RecordedResponsesError else { return false }
        return reason.contains(expected)
      }
    }
  }

  @Test func requestsThatAreNotSearchesAreRefused() async throws {
    let source = try RecordedResponses(directory: Fixtures.recorded)
    let request = URLRequest(
      url: try #require(URL(string: "https://api.github.com/repos/octokit/octokit.rb")))
    await #expect(
      throws: RecordedResponsesError.notASearch(url: "https://api.github.com/repos/octokit/octokit.rb")
    ) {
      _ = try await source.send(request)
    }
  }
}
