public import Foundation
internal import Synchronization

#if canImport(FoundationNetworking)
  internal import FoundationNetworking
#endif

/// Searches GitHub's repositories: `GET /search/repositories`, one page at a time.
///
/// - Conditional requests: the client remembers each page URL's `ETag` and sends it back as
///   `If-None-Match`; an unchanged page comes back as `SearchResult.notModified` (it assumes that
///   whoever received the fresh page kept it, as the app does by writing it to its store).
/// - Rate limits: an answer that spends the budget, or a 403/429 rate-limit answer, makes the
///   client refuse further requests until the reset, throwing the same `.rateLimited` error
///   without using the network.
/// - Cancellation: cancelling the calling task cancels the request; the call then throws
///   `.cancelled` and its answer, if one arrives, changes nothing.
///
/// The client is safe to share between tasks; its small state sits behind a lock, never held
/// across a suspension.
public final class GitHubSearchClient: Sendable {
  public let configuration: GitHubSearchConfiguration
  private let transport: any HTTPTransport
  private let now: @Sendable () -> Date
  private let state: Mutex<State>

  private struct State {
    var etags = ETagStore()
    /// The limit in force, kept until its reset passes.
    var block: RateLimitExceeded?
    var lastRateLimit: RateLimitStatus?

    /// The block still in force at `now`; a block whose reset has passed is dropped.
    mutating func activeBlock(at now: Date) -> RateLimitExceeded? {
      guard let block else { return nil }
      if now < block.resetsAt { return block }
      self.block = nil
      return nil
    }
  }

  /// A client for `configuration` (by default: api.github.com and `GITHUB_TOKEN`) over `transport`
  /// (by default the network). `now` is the wall clock that rate-limit resets are compared with.
  public init(
    configuration: GitHubSearchConfiguration = .fromEnvironment(),
    transport: any HTTPTransport = URLSessionTransport(),
    now: @escaping @Sendable () -> Date = { Date() }
  ) {
    self.configuration = configuration
    self.transport = transport
    self.now = now
    self.state = Mutex(State())
  }

  /// The rate-limit headers of the latest answer.
  public var lastRateLimit: RateLimitStatus? { state.withLock { $0.lastRateLimit } }

  /// The rate limit that currently keeps the client from sending, if any.
  public var activeRateLimit: RateLimitExceeded? {
    let now = now()
    return state.withLock { $0.activeBlock(at: now) }
  }

  /// Forgets every remembered ETag, so that the next requests bring full answers (for a caller
  /// that lost what it had cached).
  public func forgetETags() { state.withLock { $0.etags.removeAll() } }

  /// The URL the client requests for one page of `query`.
  public func url(for query: SearchQuery, page: Int = 1) throws(GitHubSearchError) -> URL {
    try SearchRequestBuilder(configuration: try configuration.validated()).url(for: query, page: page)
  }

  /// The first page of `query`.
  public func firstPage(of query: SearchQuery) async throws(GitHubSearchError) -> SearchResult {
    try await page(1, of: query)
  }

  /// Page `number` (from 1) of `query`.
  public func page(_ number: Int, of query: SearchQuery) async throws(GitHubSearchError) -> SearchResult {
    let builder = SearchRequestBuilder(configuration: try configuration.validated())
    let url = try builder.url(for: query, page: number)
    let key = url.absoluteString
    let startedAt = now()
    let (blocked, cached) = state.withLock { ($0.activeBlock(at: startedAt), $0.etags.entry(for: key)) }
    if let blocked { throw .rateLimited(blocked) }
    if Task.isCancelled { throw .cancelled }

    let request = try builder.request(for: query, page: number, etag: cached?.etag)
    let (data, response) = try await send(request)

    let answeredAt = now()
    let interpreter = ResponseInterpreter(
      query: query, page: number, url: url, isAuthenticated: configuration.token != nil, now: answeredAt,
      cached: cached)
    let outcome = interpreter.interpret(data, response)
    let cancelled = Task.isCancelled
    state.withLock { state in
      // Rate-limit news holds whoever asked; ETags only when the caller takes the page, or a
      // later 304 would point at results it never received.
      record(outcome, rateLimit: RateLimitStatus(response: response), at: answeredAt, in: &state)
      if !cancelled, case .result(.fresh, let remember) = outcome {
        if let remember { state.etags.store(remember, for: key) } else { state.etags.remove(key) }
      }
    }
    if cancelled { throw .cancelled }
    switch outcome {
    case .result(let result, _): return result
    case .failure(let error): throw error
    }
  }

  /// Up to `maxPages` pages of `query`, following the `next` links from page 1.
  ///
  /// Throws when page 1 fails. A later failure stops the fetch and is returned in `failure` beside
  /// the pages before it, which are still good. Cancellation throws `.cancelled` whatever was fetched.
  public func pages(of query: SearchQuery, upTo maxPages: Int) async throws(GitHubSearchError) -> SearchPages
  {
    guard maxPages >= 1 else {
      throw .invalidQuery(reason: "at least one page must be asked for, not \(maxPages)")
    }
    var results = [try await page(1, of: query)]
    while results.count < maxPages, let next = results.last?.followingPage {
      do {
        results.append(try await page(next, of: query))
      } catch .cancelled {
        throw .cancelled
      } catch {
        return SearchPages(results: results, failure: error)
      }
    }
    return SearchPages(results: results)
  }

  // MARK: Internals

  private func record(
    _ outcome: ResponseInterpreter.Outcome, rateLimit: RateLimitStatus?, at now: Date, in state: inout State
  ) {
    if let rateLimit { state.lastRateLimit = rateLimit }
    if case .failure(.rateLimited(let limit)) = outcome {
      state.block = limit
    } else if let rateLimit, rateLimit.isExhausted, let reset = rateLimit.resetsAt, reset > now {
      // The last request of the window succeeded; the next one would be refused, so it is not sent.
      state.block = RateLimitExceeded(
        kind: .primary, resetsAt: reset, limit: rateLimit.limit, isAuthenticated: configuration.token != nil)
    }
  }

  /// Sends through the transport, turning whatever it throws into a typed error.
  private func send(_ request: URLRequest) async throws(GitHubSearchError) -> (Data, HTTPURLResponse) {
    do {
      return try await transport.send(request)
    } catch is CancellationError {
      throw .cancelled
    } catch let error as URLError {
      throw Self.map(error, url: request.url)
    } catch let error as GitHubSearchError {
      throw error
    } catch {
      throw .transport(detail: String(describing: error))
    }
  }

  /// The typed error of a `URLError`, with a description that does not depend on the platform's
  /// localisation (Linux's is "The operation could not be completed").
  static func map(_ error: URLError, url: URL?) -> GitHubSearchError {
    let host = url?.host ?? "the server"
    switch error.code {
    case .cancelled: return .cancelled
    case .timedOut: return .timedOut(url: url?.absoluteString ?? host)
    case .notConnectedToInternet: return .offline(detail: "not connected to the internet")
    case .networkConnectionLost: return .offline(detail: "the connection to \(host) was lost")
    case .cannotFindHost, .dnsLookupFailed: return .offline(detail: "cannot find the host \(host)")
    case .cannotConnectToHost: return .offline(detail: "cannot connect to \(host)")
    case .internationalRoamingOff, .dataNotAllowed, .callIsActive:
      return .offline(detail: "the device does not allow data connections now")
    case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate,
      .serverCertificateNotYetValid, .serverCertificateHasUnknownRoot, .clientCertificateRejected:
      return .transport(detail: "no secure connection to \(host) (URLError \(error.code.rawValue))")
    case .badServerResponse:
      return .transport(detail: "\(host) sent an answer that is not HTTP")
    default:
      return .transport(detail: "URLError \(error.code.rawValue) for \(host)")
    }
  }
}
