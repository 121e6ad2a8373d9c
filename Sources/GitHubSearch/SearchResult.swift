public import LiveLog

/// One page of search results as GitHub sent it.
public struct SearchPage: Sendable, Hashable {
  public var query: SearchQuery
  /// The page number, from 1.
  public var number: Int
  /// The page's repositories in GitHub's order (stars, descending).
  public var repositories: [Repository]
  /// How many repositories match in all (`total_count`), which can exceed what GitHub serves.
  public var totalCount: Int?
  /// `incomplete_results`: GitHub's search timed out and the page may lack matches.
  public var isIncomplete: Bool
  public var links: PageLinks
  public var rateLimit: RateLimitStatus?
  /// The validator the client will send back as `If-None-Match`.
  public var etag: String?

  public init(
    query: SearchQuery, number: Int, repositories: [Repository], totalCount: Int? = nil,
    isIncomplete: Bool = false, links: PageLinks = PageLinks(), rateLimit: RateLimitStatus? = nil,
    etag: String? = nil
  ) {
    self.query = query
    self.number = number
    self.repositories = repositories
    self.totalCount = totalCount
    self.isIncomplete = isIncomplete
    self.links = links
    self.rateLimit = rateLimit
    self.etag = etag
  }

  /// The repositories as upserts, ready for `Store.write`.
  public var mutations: [Mutation] { repositories.map { .upsert($0) } }
}

/// A page GitHub answered with 304 Not Modified: what the caller already has is current.
public struct NotModifiedPage: Sendable, Hashable {
  public var query: SearchQuery
  public var number: Int
  /// The links remembered from the last full answer for this page, so pagination can go on.
  public var links: PageLinks
  /// `total_count` remembered from the last full answer.
  public var totalCount: Int?
  public var rateLimit: RateLimitStatus?
  public var etag: String?

  public init(
    query: SearchQuery, number: Int, links: PageLinks = PageLinks(), totalCount: Int? = nil,
    rateLimit: RateLimitStatus? = nil, etag: String? = nil
  ) {
    self.query = query
    self.number = number
    self.links = links
    self.totalCount = totalCount
    self.rateLimit = rateLimit
    self.etag = etag
  }
}

/// The answer for one page: fresh results, or "not modified" (keep the cached results).
public enum SearchResult: Sendable, Hashable {
  case fresh(SearchPage)
  case notModified(NotModifiedPage)

  public var query: SearchQuery {
    switch self {
    case .fresh(let page): page.query
    case .notModified(let page): page.query
    }
  }

  public var pageNumber: Int {
    switch self {
    case .fresh(let page): page.number
    case .notModified(let page): page.number
    }
  }

  public var links: PageLinks {
    switch self {
    case .fresh(let page): page.links
    case .notModified(let page): page.links
    }
  }

  /// The fresh repositories; none for a page that was not modified.
  public var repositories: [Repository] {
    if case .fresh(let page) = self { return page.repositories }
    return []
  }

  /// The page to fetch after this one, if the search has one that GitHub will serve.
  public var followingPage: Int? {
    guard let next = links.nextPage, next > pageNumber, next <= query.lastReachablePage else { return nil }
    return next
  }
}

/// The pages of one search fetched in a row (`GitHubSearchClient.pages(of:upTo:)`).
public struct SearchPages: Sendable, Hashable {
  /// Every page fetched, in order, from page 1.
  public var results: [SearchResult]
  /// The failure that stopped the fetch after the first page, whose results still count.
  public var failure: GitHubSearchError?

  public init(results: [SearchResult], failure: GitHubSearchError? = nil) {
    self.results = results
    self.failure = failure
  }

  /// The fresh repositories of all pages, in order.
  public var repositories: [Repository] { results.flatMap(\.repositories) }
}
