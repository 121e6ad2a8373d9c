internal import Foundation

#if canImport(FoundationNetworking)
  internal import FoundationNetworking
#endif

/// Builds `GET {base}/search/repositories?q=TERM+language:LANG&sort=stars&order=desc&per_page=N&page=P`.
///
/// The query string is encoded here rather than by `URLComponents`, which leaves `+` as it is:
/// GitHub reads a `+` as a space, so a search for `c++` would become a search for `c`.
struct SearchRequestBuilder {
  var configuration: GitHubSearchConfiguration

  /// The URL of one page; also the key of the ETag store and of the offline source.
  func url(for query: SearchQuery, page: Int) throws(GitHubSearchError) -> URL {
    guard !query.normalizedTerm.isEmpty else { throw .invalidQuery(reason: "the search term is empty") }
    guard (1...SearchQuery.maximumPerPage).contains(query.perPage) else {
      throw .invalidQuery(
        reason:
          "\(query.perPage) results a page is outside GitHub's range of 1 to \(SearchQuery.maximumPerPage)")
    }
    guard page >= 1 else { throw .invalidQuery(reason: "page \(page) does not exist; pages start at 1") }
    guard page <= query.lastReachablePage else {
      throw .invalidQuery(
        reason: "page \(page) is past the first \(SearchQuery.reachableResults) results, "
          + "the most GitHub's search serves")
    }
    var base = configuration.baseURL.absoluteString
    while base.hasSuffix("/") { base.removeLast() }
    let parameters = [
      "q=" + Self.encode(query.qualifiedText), "sort=stars", "order=desc", "per_page=\(query.perPage)",
      "page=\(page)",
    ]
    guard let url = URL(string: base + "/search/repositories?" + parameters.joined(separator: "&")) else {
      throw .invalidConfiguration(reason: "no request URL can be made from the base URL \(base)")
    }
    return url
  }

  /// The request for one page, with `If-None-Match` when an ETag is known.
  func request(for query: SearchQuery, page: Int, etag: String?) throws(GitHubSearchError) -> URLRequest {
    var request = URLRequest(url: try url(for: query, page: page))
    request.httpMethod = "GET"
    request.timeoutInterval = configuration.timeout
    // The client keeps its own validators; a cache below it would hide the 304s.
    request.cachePolicy = .reloadIgnoringLocalCacheData
    request.setValue("application/vnd.github+json", forHTTPHeaderField: "Accept")
    request.setValue("2022-11-28", forHTTPHeaderField: "X-GitHub-Api-Version")
    request.setValue(configuration.userAgent, forHTTPHeaderField: "User-Agent")
    if let token = configuration.token {
      request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
    }
    if let etag { request.setValue(etag, forHTTPHeaderField: "If-None-Match") }
    return request
  }

  /// Percent-encodes a query value: unreserved characters and `:` stay (GitHub's qualifiers read
  /// better that way and RFC 3986 allows `:` in a query), a space becomes `+`, all else is `%XX`.
  static func encode(_ text: String) -> String {
    var encoded = ""
    for byte in text.utf8 {
      switch byte {
      case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
        UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
        UInt8(ascii: "~"), UInt8(ascii: ":"):
        encoded.append(Character(Unicode.Scalar(byte)))
      case UInt8(ascii: " "):
        encoded.append("+")
      default:
        let hex = Array("0123456789ABCDEF")
        encoded.append("%")
        encoded.append(hex[Int(byte >> 4)])
        encoded.append(hex[Int(byte & 0x0F)])
      }
    }
    return encoded
  }
}
