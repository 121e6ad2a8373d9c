public import Foundation

#if canImport(FoundationNetworking)
  public import FoundationNetworking
#endif

/// Sends one HTTP request and returns the response, whatever its status.
///
/// The client depends on this rather than on `URLSession` so that tests and the offline demo can
/// answer from memory or from recorded files. Implementations should honour task cancellation
/// (throw `CancellationError` or `URLError(.cancelled)`), report network failures as `URLError`,
/// and never turn an HTTP error status into a thrown error: the client reads GitHub's error bodies.
public protocol HTTPTransport: Sendable {
  func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse)
}
