public import Foundation
internal import LiveLog

/// Where and how the client talks to GitHub.
public struct GitHubSearchConfiguration: Sendable {
  /// The API root: `https://api.github.com`, or `https://HOST/api/v3` for GitHub Enterprise Server.
  public var baseURL: URL
  /// A personal access token, sent as `Authorization: Bearer …`. Without one GitHub allows 10
  /// searches a minute per address; with one, 30 a minute per user.
  public var token: String?
  /// GitHub rejects requests without a User-Agent.
  public var userAgent: String
  /// Seconds to wait for an answer before giving up with `GitHubSearchError.timedOut`.
  public var timeout: TimeInterval

  /// `https://api.github.com`. (The unwrap is of a constant, checked by every test run, not of input.)
  public static let defaultBaseURL = URL(string: "https://api.github.com")!

  /// `LiveLog-GitHubSearch/VERSION`.
  public static let defaultUserAgent = "LiveLog-GitHubSearch/\(LiveLogVersion.string)"

  public init(
    baseURL: URL = GitHubSearchConfiguration.defaultBaseURL, token: String? = nil,
    userAgent: String = GitHubSearchConfiguration.defaultUserAgent, timeout: TimeInterval = 20
  ) {
    self.baseURL = baseURL
    self.token = token
    self.userAgent = userAgent
    self.timeout = timeout
  }

  /// The configuration a process environment describes: `GITHUB_TOKEN` for the token and
  /// `GITHUB_API_URL` (the variable GitHub Actions sets) for the base URL; empty values count as unset.
  public static func fromEnvironment(
    _ environment: [String: String] = ProcessInfo.processInfo.environment
  ) -> GitHubSearchConfiguration {
    var configuration = GitHubSearchConfiguration()
    configuration.token = environment["GITHUB_TOKEN"]?.trimmingWhitespace.nonEmpty
    if let text = environment["GITHUB_API_URL"]?.trimmingWhitespace.nonEmpty, let url = URL(string: text) {
      configuration.baseURL = url
    }
    return configuration
  }

  /// Whether `host` is this machine's loopback address by name or number.
  static func isLoopback(_ host: String) -> Bool {
    let host = host.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
    return host == "localhost" || host == "::1" || host == "127.0.0.1"
  }

  /// Checks what a request will need, so that a bad setting fails before any network use with a
  /// message naming the setting.
  func validated() throws(GitHubSearchError) -> GitHubSearchConfiguration {
    guard let scheme = baseURL.scheme?.lowercased(), scheme == "https" || scheme == "http",
      baseURL.host?.isEmpty == false, baseURL.query == nil
    else {
      throw .invalidConfiguration(
        reason: "the base URL \(baseURL.absoluteString) is not an http(s) address without a query")
    }
    if let token, token.isEmpty || token.unicodeScalars.contains(where: { !$0.isASCII || $0.value < 0x21 }) {
      throw .invalidConfiguration(
        reason: "the token holds spaces or characters outside ASCII; check GITHUB_TOKEN")
    }
    // A token travels in the clear over http: only to this machine, for tests and local mirrors.
    if token != nil, scheme == "http", !GitHubSearchConfiguration.isLoopback(baseURL.host ?? "") {
      throw .invalidConfiguration(
        reason: "the token would travel unencrypted to \(baseURL.absoluteString); use an https base URL, "
          + "or unset GITHUB_TOKEN (plain http takes a token only to 127.0.0.1, localhost or ::1)")
    }
    guard timeout > 0 else {
      throw .invalidConfiguration(reason: "the timeout must be more than 0 seconds, not \(timeout)")
    }
    return self
  }
}
