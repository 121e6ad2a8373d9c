public import Foundation
public import LiveLog

/// Why a search brought no results, in terms a person can act on (`message`).
///
/// Every failure of the client is one of these: the client never crashes on what the network or
/// GitHub sends, and never throws anything else.
public enum GitHubSearchError: Error, Sendable, Hashable, CustomStringConvertible {
  /// The machine is offline, or GitHub's host cannot be found or reached (`URLError` codes such as
  /// `notConnectedToInternet`, `cannotFindHost`, `networkConnectionLost`).
  case offline(detail: String)
  /// No answer within the configured timeout.
  case timedOut(url: String)
  /// GitHub's rate limit was hit, or still holds from an earlier answer (then the request was not
  /// sent). Carries the reset time for "rate limit reached; resets at HH:MM".
  case rateLimited(RateLimitExceeded)
  /// 401: the token was rejected.
  case unauthorized(message: String?)
  /// 403 that is not a rate limit (a blocked token, a forbidden resource).
  case forbidden(message: String?)
  /// 422 Validation Failed: GitHub cannot run this search (an unknown user in `user:`, a term over
  /// 256 characters, a page past the first 1,000 results). `details` are the `errors[].message`s.
  case validationFailed(message: String?, details: [String])
  /// Any other 4xx or 5xx status, with GitHub's `message` when the body had one.
  case httpStatus(code: Int, message: String?)
  /// The answer is not a search response LiveLog can read: bad JSON, a missing `items` array, a
  /// repository without `id`. The `InputError` names the place (line, column, `items[3]`, field).
  case malformedResponse(InputError)
  /// The query cannot be sent as it is (an empty term, a page size outside 1…100, page 0).
  case invalidQuery(reason: String)
  /// The configuration cannot make a request (a base URL that is not http(s), a bad token).
  case invalidConfiguration(reason: String)
  /// Any other transport failure (a TLS error, a missing recording of the offline source).
  case transport(detail: String)
  /// The request was cancelled, usually because a newer search superseded it.
  case cancelled

  /// The explanation for a person, with reset times in the local time zone.
  public var message: String { message(in: .current) }

  /// The explanation for a person, with reset times in `timeZone`.
  public func message(in timeZone: TimeZone) -> String {
    switch self {
    case .offline(let detail):
      return "Cannot reach GitHub (\(detail)). Check the network connection, then search again."
    case .timedOut(let url):
      return "GitHub did not answer in time (\(url)). Search again, perhaps with a more specific term."
    case .rateLimited(let limit):
      return limit.message(in: timeZone)
    case .unauthorized(let message):
      return "GitHub rejected the token\(GitHubSearchError.quoted(message)). Check GITHUB_TOKEN, "
        + "or unset it to search without a token."
    case .forbidden(let message):
      return "GitHub refused the search (403 Forbidden\(GitHubSearchError.colon(message)))."
    case .validationFailed(let message, let details):
      let reasons = details.isEmpty ? (message ?? "Validation Failed") : details.joined(separator: "; ")
      return "GitHub cannot run this search: \(reasons). Check the term and its qualifiers."
    case .httpStatus(let code, let message):
      let status = "\(code) \(GitHubSearchError.reasonPhrase(code))"
      if code >= 500 {
        return "GitHub had a problem answering (\(status)\(GitHubSearchError.colon(message))). "
          + "Search again in a moment."
      }
      return "GitHub answered \(status)\(GitHubSearchError.colon(message))."
    case .malformedResponse(let error):
      return "GitHub's answer could not be read: \(error). The results already shown stay."
    case .invalidQuery(let reason):
      return "The search cannot be sent: \(reason)."
    case .invalidConfiguration(let reason):
      return "The GitHub client is misconfigured: \(reason)."
    case .transport(let detail):
      return "The request to GitHub failed: \(detail)."
    case .cancelled:
      return "The search was cancelled."
    }
  }

  public var description: String { message }

  private static func quoted(_ message: String?) -> String { message.map { " (\($0))" } ?? "" }
  private static func colon(_ message: String?) -> String { message.map { ": \($0)" } ?? "" }

  /// The standard reason phrase of the statuses GitHub's search answers with.
  static func reasonPhrase(_ code: Int) -> String {
    switch code {
    case 400: "Bad Request"
    case 401: "Unauthorized"
    case 403: "Forbidden"
    case 404: "Not Found"
    case 410: "Gone"
    case 422: "Unprocessable Entity"
    case 429: "Too Many Requests"
    case 500: "Internal Server Error"
    case 502: "Bad Gateway"
    case 503: "Service Unavailable"
    case 504: "Gateway Timeout"
    default: "HTTP status"
    }
  }
}
