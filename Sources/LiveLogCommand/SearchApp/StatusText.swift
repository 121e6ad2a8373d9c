import Foundation
import GitHubSearch
import LiveLog

/// What the app knows about its latest GitHub search.
enum NetworkState: Sendable {
  /// Nothing asked yet, or the term became too short.
  case idle
  /// The term waits for a pause in typing before it goes to GitHub.
  case waiting(SearchQuery)
  case searching(SearchQuery)
  /// A page arrived and was written to the store with `summary`.
  case fetched(SearchQuery, repositories: Int, totalCount: Int?, summary: CommitSummary)
  /// GitHub answered 304: the cached results are current.
  case notModified(SearchQuery)
  case failed(SearchQuery, GitHubSearchError)
}

/// The texts of the status and message lines.
enum StatusText {
  /// Counts, the last change, and the network's state.
  static func status(_ session: SearchSession, tableHeight: Int) -> StyledLine {
    guard session.query.isSearchable else {
      return StyledLine("Type at least \(SearchQuery.minimumTermLength) characters to search.", .dim)
    }
    var parts: [StyledSpan] = []
    if let rows = session.rows {
      var counts = rows.count == 1 ? "1 result" : "\(grouped(rows.count)) results"
      if rows.count > tableHeight {
        let last = min(session.offset + tableHeight, rows.count)
        counts += " (\(session.offset + 1)–\(last))"
      }
      parts.append(StyledSpan(counts, .bold))
    }
    if let change = session.lastChange {
      parts.append(StyledSpan(" · last change "))
      parts.append(StyledSpan("+\(change.inserted)", TextStyle(foreground: .green)))
      parts.append(StyledSpan(" ~\(change.changed)", TextStyle(foreground: .yellow)))
      parts.append(StyledSpan(" -\(change.removed)", TextStyle(foreground: .red)))
    }
    parts.append(StyledSpan(" · "))
    parts.append(network(session.network, current: session.query))
    return StyledLine(parts)
  }

  /// An error (red), or the keys.
  static func message(_ session: SearchSession) -> StyledLine {
    if let local = session.localError { return StyledLine("error: " + local, .error) }
    if case .failed(_, let error) = session.network { return StyledLine(errorText(error), .error) }
    return StyledLine(
      "Tab language · ↑↓ PgUp PgDn scroll · Ctrl-R search again · Ctrl-U clear · Esc quit", .dim)
  }

  /// One line for a failed search: what kind of failure first (the line may be cut), then
  /// GitHub's explanation.
  static func errorText(_ error: GitHubSearchError, timeZone: TimeZone = .current) -> String {
    let kind: String
    switch error {
    case .rateLimited(let limit): kind = "rate limited until \(limit.resetTime(in: timeZone))"
    case .offline: kind = "offline"
    case .timedOut: kind = "timed out"
    case .unauthorized: kind = "HTTP 401"
    case .forbidden: kind = "HTTP 403"
    case .validationFailed: kind = "HTTP 422"
    case .httpStatus(let code, _): kind = "HTTP \(code)"
    case .malformedResponse: kind = "malformed response"
    case .invalidQuery, .invalidConfiguration: kind = "cannot search"
    case .transport: kind = "network error"
    case .cancelled: kind = "cancelled"
    }
    return "⚠ \(kind) — \(error.message(in: timeZone))"
  }

  /// The network's state; the query is named only when it is not the one on the screen (an
  /// older search's answer that arrived after the term changed).
  private static func network(_ state: NetworkState, current: SearchQuery) -> StyledSpan {
    func named(_ query: SearchQuery) -> String { query == current ? "" : " for \(query)" }
    switch state {
    case .idle:
      return StyledSpan("GitHub: idle", .dim)
    case .waiting(let query):
      return StyledSpan("GitHub: \(query) when typing pauses", .dim)
    case .searching(let query):
      return StyledSpan("searching GitHub for \(query)…", TextStyle(foreground: .cyan))
    case .fetched(let query, let repositories, let totalCount, let summary):
      let total = totalCount.map { " of \(grouped($0)) matches" } ?? ""
      return StyledSpan(
        "GitHub: \(repositories)\(total)\(named(query)) — \(summary.inserted) new, \(summary.updated) updated, "
          + "\(summary.unchanged) unchanged")
    case .notModified(let query):
      return StyledSpan("GitHub: no change since the last search\(named(query))")
    case .failed(let query, _):
      return StyledSpan("GitHub: the search\(named(query)) failed", TextStyle(foreground: .red))
    }
  }
}
