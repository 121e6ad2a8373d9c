public import Foundation

/// GitHub refused a search for going too fast, and when asking again makes sense.
public struct RateLimitExceeded: Sendable, Hashable {
  /// Which of GitHub's limits was hit.
  public enum Kind: Sendable, Hashable {
    /// The budget of `X-RateLimit-Limit` requests per window is spent (`X-RateLimit-Remaining: 0`).
    case primary
    /// Too many requests too quickly, or too much concurrency, whatever the budget says; GitHub
    /// answers with `Retry-After` or only a message, and asks to wait at least a minute.
    case secondary
  }

  public var kind: Kind
  /// The moment the client sends requests again; until then it refuses them without the network.
  public var resetsAt: Date
  /// Requests per window, when GitHub said.
  public var limit: Int?
  /// Whether the refused request carried a token (without one, setting GITHUB_TOKEN helps).
  public var isAuthenticated: Bool
  /// GitHub's own `message`, when the answer had one.
  public var serverMessage: String?

  public init(
    kind: Kind, resetsAt: Date, limit: Int? = nil, isAuthenticated: Bool, serverMessage: String? = nil
  ) {
    self.kind = kind
    self.resetsAt = resetsAt
    self.limit = limit
    self.isAuthenticated = isAuthenticated
    self.serverMessage = serverMessage
  }

  /// The reset moment as `HH:MM` on a 24-hour clock in `timeZone`, rounded up to the next minute
  /// so that "resets at 20:15" is never a minute early.
  public func resetTime(in timeZone: TimeZone = .current) -> String {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = timeZone
    let seconds = resetsAt.timeIntervalSince1970
    let roundedUp = Date(timeIntervalSince1970: (seconds / 60).rounded(.up) * 60)
    let parts = calendar.dateComponents([.hour, .minute], from: roundedUp)
    let hour = parts.hour ?? 0
    let minute = parts.minute ?? 0
    return (hour < 10 ? "0" : "") + "\(hour):" + (minute < 10 ? "0" : "") + "\(minute)"
  }

  /// What a person reads: `rate limit reached (10 searches a minute); resets at 20:15. Set
  /// GITHUB_TOKEN for 30 a minute.`
  public func message(in timeZone: TimeZone = .current) -> String {
    var text: String
    switch kind {
    case .primary:
      text = "GitHub's search rate limit is reached"
      if let limit { text += " (\(limit) requests per window)" }
      text += "; it resets at \(resetTime(in: timeZone))."
    case .secondary:
      text = "GitHub asks to slow down (secondary rate limit)"
      if let serverMessage { text += ": \(serverMessage)" }
      text += text.hasSuffix(".") ? "" : "."
      text += " Searching again at \(resetTime(in: timeZone))."
    }
    if !isAuthenticated {
      text += " Set GITHUB_TOKEN to a personal access token for a higher limit."
    }
    return text
  }
}
