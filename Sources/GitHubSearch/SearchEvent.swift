/// What the search box should do next, in the order `SearchCoordinator` emits it.
public enum SearchEvent: Sendable, Hashable {
  /// The term became too short to search: hide the results (the seed's `bindTableView(nil)`).
  /// Emitted once per change to a short term, not per keystroke.
  case cleared
  /// A request for `query` went out (show a spinner; keep showing the cached results).
  case searching(SearchQuery)
  /// One page for `query`: fresh repositories to store and animate in, or "not modified".
  case results(SearchQuery, SearchResult)
  /// The search for `query` failed; `GitHubSearchError.message` is the alert's text.
  case failed(SearchQuery, GitHubSearchError)
}
