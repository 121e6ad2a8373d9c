public import Foundation

#if canImport(FoundationNetworking)
  public import FoundationNetworking
#endif

/// The rate-limit headers of a response: `X-RateLimit-Limit`, `-Remaining`, `-Used`, `-Reset` and
/// `-Resource`. Search has its own budget (`resource` "search"): 10 requests a minute without a
/// token, 30 with one.
public struct RateLimitStatus: Sendable, Hashable {
  /// Requests allowed per window.
  public var limit: Int?
  /// Requests left in the current window.
  public var remaining: Int?
  /// Requests made in the current window.
  public var used: Int?
  /// When the window ends and `remaining` goes back to `limit`.
  public var resetsAt: Date?
  /// The budget the headers describe (`search`, `core`, …).
  public var resource: String?

  public init(
    limit: Int? = nil, remaining: Int? = nil, used: Int? = nil, resetsAt: Date? = nil,
    resource: String? = nil
  ) {
    self.limit = limit
    self.remaining = remaining
    self.used = used
    self.resetsAt = resetsAt
    self.resource = resource
  }

  /// The status a response reports, `nil` when it has none of the headers. A header that is not a
  /// whole number counts as absent: the headers advise, they must not fail a search.
  public init?(response: HTTPURLResponse) {
    func number(_ name: String) -> Int? {
      response.value(forHTTPHeaderField: name).flatMap { Int($0.trimmingWhitespace) }
    }
    self.init(
      limit: number("X-RateLimit-Limit"), remaining: number("X-RateLimit-Remaining"),
      used: number("X-RateLimit-Used"),
      resetsAt: number("X-RateLimit-Reset").map { Date(timeIntervalSince1970: TimeInterval($0)) },
      resource: response.value(forHTTPHeaderField: "X-RateLimit-Resource")?.trimmingWhitespace.nonEmpty)
    if limit == nil && remaining == nil && used == nil && resetsAt == nil && resource == nil { return nil }
  }

  /// Whether the window's budget is spent: the next request would be refused until `resetsAt`.
  public var isExhausted: Bool { remaining == 0 }

  /// The moment a `Retry-After` value names: a number of seconds from `now`, or an HTTP date
  /// (`Wed, 21 Oct 2015 07:28:00 GMT`). `nil` when it is neither.
  public static func retryAfter(_ value: String, now: Date) -> Date? {
    let text = value.trimmingWhitespace
    if let seconds = Int(text) {
      return seconds >= 0 ? now.addingTimeInterval(TimeInterval(seconds)) : nil
    }
    // A formatter per call: `DateFormatter` is not Sendable, and Retry-After is rare.
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "GMT")
    formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
    return formatter.date(from: text)
  }
}
