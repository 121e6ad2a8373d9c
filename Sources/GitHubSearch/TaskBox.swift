internal import Synchronization

#if canImport(FoundationNetworking)
  internal import FoundationNetworking
#else
  internal import Foundation
#endif

/// Holds a data task between its creation and a cancellation that may come first, from another
/// thread: cancelling before the task exists must still cancel it when it arrives.
final class TaskBox: Sendable {
  private let state = Mutex<(task: URLSessionDataTask?, cancelled: Bool)>((nil, false))

  func start(_ task: URLSessionDataTask) {
    let cancelled = state.withLock { state in
      state.task = task
      return state.cancelled
    }
    // Resumed even when already cancelled: a task cancelled after `resume` always calls its
    // completion handler (with `URLError.cancelled`), so the waiting continuation is never leaked.
    task.resume()
    if cancelled { task.cancel() }
  }

  func cancel() {
    let task = state.withLock { state in
      state.cancelled = true
      return state.task
    }
    task?.cancel()
  }
}
