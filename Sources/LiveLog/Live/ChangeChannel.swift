public import Changesets
import Dispatch
import Synchronization

/// What a subscription delivers: the results when it starts, then each change.
public enum ResultsChange<Element: Sendable>: Sendable {
  /// The results when the subscription started (or resumed).
  case initial(Results<Element>)
  /// The results after one or more commits, and the changeset from the previous delivery.
  case update(Results<Element>, Changeset)

  /// The results this change leaves.
  public var results: Results<Element> {
    switch self {
    case .initial(let results), .update(let results, _): results
    }
  }
}

/// The queue between the live-query hub and one consumer.
///
/// In coalescing mode a consumer that falls behind finds one update waiting (after the initial
/// results, if it has not taken those yet), whose changeset is the exact composition of the
/// changesets it missed; otherwise every update waits its turn.
final class ChangeChannel<Element: Sendable>: Sendable {
  private struct State {
    var pending: [ResultsChange<Element>] = []
    var waiter: CheckedContinuation<ResultsChange<Element>?, any Error>?
    var finished = false
    /// Why the subscription ended, if it failed: thrown once the pending changes are taken.
    var failure: StoreFailure?
    /// The results of the last change sent.
    var lastSent: Results<Element>?
    /// The results the last pending update starts from.
    var pendingBase: Results<Element>?
    var pumpScheduled = false
  }

  let coalescing: Bool
  /// The fields whose changes count as modifications (`nil`: all).
  let watching: [Field]?
  private let state = Mutex(State())
  /// Called once when the consumer goes away, to unregister from the hub.
  private let onFinish: Mutex<(@Sendable () -> Void)?>

  init(coalescing: Bool, watching: [Field]?, onFinish: @escaping @Sendable () -> Void) {
    self.coalescing = coalescing
    self.watching = watching
    self.onFinish = Mutex(onFinish)
  }

  /// Hands a change to the consumer (from the hub's queue).
  func send(_ change: ResultsChange<Element>) {
    let waiter: CheckedContinuation<ResultsChange<Element>?, any Error>? = state.withLock { state in
      guard !state.finished else { return nil }
      let previous = state.lastSent
      state.lastSent = change.results
      if let waiter = state.waiter {
        state.waiter = nil
        return waiter
      }
      if coalescing, let last = state.pending.last {
        // The initial results stay as they are (a resumed subscription starts at its LSN);
        // updates behind them fold into one, exactly.
        switch (last, change) {
        case (.update(_, let earlier), .update(let results, let later)):
          let composed =
            state.pendingBase.map {
              ExactComposition.compose(
                earlier, later, from: $0.compositionEnd, to: results.compositionEnd, watching: watching)
            } ?? earlier.composed(with: later)
          state.pending[state.pending.count - 1] = .update(results, composed)
          return nil
        default: break
        }
      }
      if case .update = change { state.pendingBase = previous }
      state.pending.append(change)
      return nil
    }
    waiter?.resume(returning: change)
  }

  /// The next change, or `nil` once finished; waits when none is pending. Throws why the
  /// subscription failed, after the changes delivered before the failure.
  func next() async throws -> ResultsChange<Element>? {
    try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation {
        (continuation: CheckedContinuation<ResultsChange<Element>?, any Error>) in
        let ready: Result<ResultsChange<Element>?, any Error>? = state.withLock { state in
          if !state.pending.isEmpty { return .success(state.pending.removeFirst()) }
          if let failure = state.failure {
            state.failure = nil
            return .failure(failure.error)
          }
          if state.finished { return .success(nil) }
          state.waiter = continuation
          return nil
        }
        if let ready { continuation.resume(with: ready) }
      }
    } onCancel: {
      finish()
    }
  }

  /// The next change if one is pending, without waiting.
  func poll() -> ResultsChange<Element>? {
    state.withLock { $0.pending.isEmpty ? nil : $0.pending.removeFirst() }
  }

  /// Ends the channel: a waiting consumer gets `nil` (or `error`, thrown after the changes
  /// still pending), and the hub lets the subscription go.
  func finish(throwing error: (any Error)? = nil) {
    let waiter = state.withLock { state -> CheckedContinuation<ResultsChange<Element>?, any Error>? in
      guard !state.finished else { return nil }
      state.finished = true
      if let error {
        state.failure = StoreFailure(error)
      } else {
        state.pending.removeAll()
      }
      defer { state.waiter = nil }
      return state.waiter
    }
    if let waiter {
      if let error {
        state.withLock { $0.failure = nil }
        waiter.resume(throwing: error)
      } else {
        waiter.resume(returning: nil)
      }
    }
    let callback = onFinish.withLock { callback -> (@Sendable () -> Void)? in
      defer { callback = nil }
      return callback
    }
    callback?()
  }

  var isFinished: Bool { state.withLock { $0.finished } }

  /// Delivers pending changes to `handler` on `queue`, one at a time, as they come, then the
  /// failure to `onError`, if the subscription fails: the callback form of consumption. Returns
  /// the closure the hub calls after each `send` and after a failure.
  func pump(
    on queue: DispatchQueue, _ handler: @escaping @Sendable (ResultsChange<Element>) -> Void,
    onError: (@Sendable (any Error) -> Void)? = nil
  ) -> @Sendable () -> Void {
    { [weak self] in
      guard let self else { return }
      let schedule = self.state.withLock { state -> Bool in
        guard !state.pumpScheduled, !state.pending.isEmpty || state.failure != nil else { return false }
        guard !state.finished || state.failure != nil else { return false }
        state.pumpScheduled = true
        return true
      }
      guard schedule else { return }
      queue.async { [weak self] in
        guard let self else { return }
        while true {
          let next = self.state.withLock { state -> Result<ResultsChange<Element>, any Error>? in
            if !state.pending.isEmpty, !state.finished || state.failure != nil {
              return .success(state.pending.removeFirst())
            }
            state.pumpScheduled = false
            if let failure = state.failure {
              state.failure = nil
              return .failure(failure.error)
            }
            return nil
          }
          switch next {
          case .success(let change): handler(change)
          case .failure(let error):
            onError?(error)
            return
          case nil: return
          }
        }
      }
    }
  }
}

extension ResultsChange {
  /// The same change with its results read as field values (see `Results.recordValues`).
  public var recordValues: ResultsChange<RecordValues> {
    switch self {
    case .initial(let results): .initial(results.recordValues)
    case .update(let results, let changeset): .update(results.recordValues, changeset)
    }
  }
}
