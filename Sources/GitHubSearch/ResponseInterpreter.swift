internal import Foundation

#if canImport(FoundationNetworking)
  internal import FoundationNetworking
#endif

/// Turns one HTTP answer into a result or a typed error. Pure: the client applies what it implies
/// (remember the ETag, block until a reset), so the rules can be read and tested in one place.
struct ResponseInterpreter {
  var query: SearchQuery
  var page: Int
  var url: URL
  /// Whether the request carried a token (decides the rate-limit advice).
  var isAuthenticated: Bool
  var now: Date
  /// What the client remembers of the last full answer for this URL.
  var cached: ETagStore.Entry?

  enum Outcome {
    /// A result, and the validators to remember for the URL (`nil`: forget what there was).
    case result(SearchResult, remember: ETagStore.Entry?)
    case failure(GitHubSearchError)
  }

  /// Seconds GitHub asks to wait after a secondary rate limit that names no time.
  static let secondaryLimitPause: TimeInterval = 60

  func interpret(_ data: Data, _ response: HTTPURLResponse) -> Outcome {
    let status = response.statusCode
    let rateLimit = RateLimitStatus(response: response)
    let etag = response.value(forHTTPHeaderField: "ETag")?.trimmingWhitespace.nonEmpty
    switch status {
    case 200...299:
      let body: SearchResponseBody
      do {
        body = try SearchResponseBody.decode(data, source: source)
      } catch {
        return .failure(error)
      }
      let links = PageLinks(header: response.value(forHTTPHeaderField: "Link"), relativeTo: url)
      let page = SearchPage(
        query: query, number: page, repositories: body.repositories, totalCount: body.totalCount,
        isIncomplete: body.isIncomplete, links: links, rateLimit: rateLimit, etag: etag)
      let remember = etag.map { ETagStore.Entry(etag: $0, links: links, totalCount: body.totalCount) }
      return .result(.fresh(page), remember: remember)
    case 304:
      // A 304 repeats no body and no Link header: what the last full answer said still holds.
      let notModified = NotModifiedPage(
        query: query, number: page, links: cached?.links ?? PageLinks(), totalCount: cached?.totalCount,
        rateLimit: rateLimit, etag: etag ?? cached?.etag)
      return .result(.notModified(notModified), remember: cached)
    default:
      return .failure(error(status: status, data: data, response: response, rateLimit: rateLimit))
    }
  }

  /// The typed error of a status that is neither success nor 304.
  private func error(
    status: Int, data: Data, response: HTTPURLResponse, rateLimit: RateLimitStatus?
  ) -> GitHubSearchError {
    let body = GitHubErrorBody.read(data)
    let message = body?.message.map { String($0.prefix(Self.maximumMessageLength)) }
    switch status {
    case 401:
      return .unauthorized(message: message)
    case 403, 429:
      if let limit = rateLimitExceeded(
        status: status, message: message, response: response, rateLimit: rateLimit)
      {
        return .rateLimited(limit)
      }
      return status == 403 ? .forbidden(message: message) : .httpStatus(code: status, message: message)
    case 422:
      let details = (body?.details ?? []).prefix(5).map { String($0.prefix(Self.maximumMessageLength)) }
      return .validationFailed(message: message, details: Array(details))
    default:
      return .httpStatus(code: status, message: message)
    }
  }

  /// Whether a 403 or 429 is a rate limit, and until when. GitHub's rules: `X-RateLimit-Remaining: 0`
  /// means wait for `X-RateLimit-Reset`; a `Retry-After` names the wait; a message about a rate
  /// limit without either means wait at least a minute. A 429 is always a rate limit.
  private func rateLimitExceeded(
    status: Int, message: String?, response: HTTPURLResponse, rateLimit: RateLimitStatus?
  ) -> RateLimitExceeded? {
    let retryAfter = response.value(forHTTPHeaderField: "Retry-After").flatMap {
      RateLimitStatus.retryAfter($0, now: now)
    }
    let mentionsLimit = message?.lowercased().contains("rate limit") == true
    let resetsAt: Date
    let kind: RateLimitExceeded.Kind
    if rateLimit?.isExhausted == true, let reset = rateLimit?.resetsAt {
      kind = .primary
      // Of a Retry-After and the reset, the later one: both are GitHub's word.
      resetsAt = max(reset, retryAfter ?? reset)
    } else if let retryAfter {
      kind = .secondary
      resetsAt = retryAfter
    } else if mentionsLimit || status == 429 {
      kind = rateLimit?.isExhausted == true ? .primary : .secondary
      resetsAt = now.addingTimeInterval(Self.secondaryLimitPause)
    } else {
      return nil
    }
    return RateLimitExceeded(
      kind: kind, resetsAt: resetsAt, limit: rateLimit?.limit, isAuthenticated: isAuthenticated,
      serverMessage: message)
  }

  /// GitHub's messages are a sentence or two; a longer one is a page of HTML or worse, and an alert
  /// must stay readable.
  static let maximumMessageLength = 300

  /// How error messages name this answer: the request's path and query.
  var source: String {
    var text = url.path
    if let query = url.query { text += "?" + query }
    return "GET " + text
  }
}
