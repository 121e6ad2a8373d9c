public import Foundation

#if canImport(FoundationNetworking)
  public import FoundationNetworking
#endif

/// A session delegate that keeps the token to the origin it was meant for: a redirect to another
/// scheme, host or port is followed without the `Authorization` header. URLSession copies every
/// header of a request into the request it redirects to, so without this a 302 from the API host
/// to any other server hands that server the token.
public final class RedirectGuard: NSObject, URLSessionTaskDelegate, Sendable {
  public func urlSession(
    _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
    newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
  ) {
    completionHandler(RedirectGuard.redirected(request, from: task.originalRequest?.url))
  }

  /// `request` as it may be sent after a redirect from a request to `original`: without
  /// `Authorization` unless it goes to the same origin.
  static func redirected(_ request: URLRequest, from original: URL?) -> URLRequest {
    guard let original, let target = request.url, Origin(original) == Origin(target) else {
      var stripped = request
      stripped.setValue(nil, forHTTPHeaderField: "Authorization")
      return stripped
    }
    return request
  }
}

/// The scheme, host and port of a URL (RFC 6454), the default port made explicit.
struct Origin: Equatable {
  var scheme: String
  var host: String
  var port: Int

  init?(_ url: URL) {
    guard let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased() else { return nil }
    self.scheme = scheme
    self.host = host
    port = url.port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : -1)
  }
}
