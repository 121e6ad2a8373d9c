public import Foundation

#if canImport(FoundationNetworking)
  public import FoundationNetworking
#endif

/// The network transport: a `URLSession` data task per request.
public struct URLSessionTransport: HTTPTransport {
  /// A session that keeps no HTTP cache, so that a 304 reaches the client (which keeps the ETags)
  /// instead of being turned into a 200 from a cache the client does not know of, and whose
  /// redirects to another origin drop the token (`RedirectGuard`). A session of your own should
  /// have a `RedirectGuard` as its delegate too.
  public static let uncachedSession: URLSession = {
    let configuration = URLSessionConfiguration.ephemeral
    configuration.urlCache = nil
    configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
    return URLSession(configuration: configuration, delegate: RedirectGuard(), delegateQueue: nil)
  }()

  private let session: URLSession

  public init(session: URLSession = URLSessionTransport.uncachedSession) {
    self.session = session
  }

  /// Runs a data task; cancelling the calling task cancels the data task. Written on the
  /// completion-handler API because it behaves the same on Apple platforms and on Linux's
  /// FoundationNetworking, whose async conveniences have differed in how they handle cancellation.
  public func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
    let task = TaskBox()
    return try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { continuation in
        let dataTask = session.dataTask(with: request) { data, response, error in
          if let error {
            continuation.resume(throwing: error)
          } else if let response = response as? HTTPURLResponse {
            continuation.resume(returning: (data ?? Data(), response))
          } else {
            continuation.resume(throwing: URLError(.badServerResponse))
          }
        }
        task.start(dataTask)
      }
    } onCancel: {
      task.cancel()
    }
  }
}
