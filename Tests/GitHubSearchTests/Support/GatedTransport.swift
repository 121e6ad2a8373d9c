import Foundation
import GitHubSearch
import Synchronization

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A slow network under the test's control: every request waits until the test releases it, or
/// until its task is cancelled (then it throws `CancellationError`, as a cancelled `URLSession`
/// task would fail). The test can wait for requests to arrive.
final class GatedTransport: HTTPTransport {
  private struct Pending {
    var id: Int
    var request: URLRequest
    var continuation: CheckedContinuation<(Data, HTTPURLResponse), any Error>
  }

  private struct State {
    var nextID = 0
    var pending: [Pending] = []
    var received: [URLRequest] = []
    var cancelled: [URLRequest] = []
    var arrivalWaiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
  }

  private let state = Mutex(State())
  private let honoursCancellation: Bool

  /// `honoursCancellation: false` makes a network that answers even after the caller gave up.
  init(honoursCancellation: Bool = true) { self.honoursCancellation = honoursCancellation }

  /// Every request that arrived, in order.
  var received: [URLRequest] { state.withLock { $0.received } }
  /// Requests whose task was cancelled while they waited.
  var cancelled: [URLRequest] { state.withLock { $0.cancelled } }

  func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
    let id = state.withLock { state in
      state.nextID += 1
      return state.nextID
    }
    guard honoursCancellation else { return try await wait(id: id, request: request, cancellable: false) }
    return try await withTaskCancellationHandler {
      try await wait(id: id, request: request, cancellable: true)
    } onCancel: {
      let continuation = state.withLock { state -> CheckedContinuation<(Data, HTTPURLResponse), any Error>? in
        guard let index = state.pending.firstIndex(where: { $0.id == id }) else { return nil }
        let pending = state.pending.remove(at: index)
        state.cancelled.append(pending.request)
        return pending.continuation
      }
      continuation?.resume(throwing: CancellationError())
    }
  }

  private func wait(id: Int, request: URLRequest, cancellable: Bool) async throws -> (Data, HTTPURLResponse) {
    try await withCheckedThrowingContinuation { continuation in
      let (waiters, cancelledAlready) = state.withLock {
        state -> ([CheckedContinuation<Void, Never>], Bool) in
        state.received.append(request)
        let arrived = state.received.count
        let ready = state.arrivalWaiters.filter { $0.count <= arrived }.map(\.continuation)
        state.arrivalWaiters.removeAll { $0.count <= arrived }
        if cancellable && Task.isCancelled {
          state.cancelled.append(request)
          return (ready, true)
        }
        state.pending.append(Pending(id: id, request: request, continuation: continuation))
        return (ready, false)
      }
      for waiter in waiters { waiter.resume() }
      if cancelledAlready { continuation.resume(throwing: CancellationError()) }
    }
  }

  /// Returns once `count` requests in all have arrived.
  func waitForRequests(_ count: Int) async {
    await withCheckedContinuation { continuation in
      let ready = state.withLock { state in
        if state.received.count >= count { return true }
        state.arrivalWaiters.append((count, continuation))
        return false
      }
      if ready { continuation.resume() }
    }
  }

  /// Answers the oldest waiting request whose URL contains `fragment`; false if none waits.
  @discardableResult
  func release(matching fragment: String, status: Int = 200, headers: [String: String] = [:], body: Data)
    -> Bool
  {
    let pending = state.withLock { state -> Pending? in
      guard
        let index = state.pending.firstIndex(where: {
          $0.request.url?.absoluteString.contains(fragment) == true
        })
      else { return nil }
      return state.pending.remove(at: index)
    }
    guard let pending else { return false }
    let continuation = pending.continuation
    do {
      continuation.resume(
        returning: (body, try httpResponse(pending.request, status: status, headers: headers)))
    } catch {
      continuation.resume(throwing: error)
    }
    return true
  }
}
