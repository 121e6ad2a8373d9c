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
    var waiter: CheckedContinuation<ResultsChange<Element>?, Never>?
    var finished = false
    var pumpScheduled = false
  }

  let coalescing: Bool
  private let state = Mutex(State())
  /// Called once when the consumer goes away, to unregister from the hub.
  private let onFinish: Mutex<(@Sendable () -> Void)?>

  init(coalescing: Bool, onFinish: @escaping @Sendable () -> Void) {
    self.coalescing = coalescing
    self.onFinish = Mutex(onFinish)
  }

  /// Hands a change to the consumer (from the hub's queue).
  func send(_ change: ResultsChange<Element>) {
    let waiter: CheckedContinuation<ResultsChange<Element>?, Never>? = state.withLock { state in
      guard !state.finished else { return nil }
      if let waiter = state.waiter {
        state.waiter = nil
        return waiter
      }
      if coalescing, let last = state.pending.last {
        // The initial results stay as they are (a resumed subscription starts at its LSN);
        // updates behind them fold into one.
        switch (last, change) {
        case (.update(_, let earlier), .update(let results, let later)):
          state.pending[state.pending.count - 1] = .update(results, earlier.composed(with: later))
          return nil
        default: break
        }
      }
      state.pending.append(change)
      return nil
    }
    waiter?.resume(returning: change)
  }

  /// The next change, or `nil` once finished; waits when none is pending.
  func next() async -> ResultsChange<Element>? {
    await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<ResultsChange<Element>?, Never>) in
        let ready: ResultsChange<Element>?? = state.withLock { state in
          if !state.pending.isEmpty { return .some(state.pending.removeFirst()) }
          if state.finished { return .some(nil) }
          state.waiter = continuation
          return nil
        }
        if let ready { continuation.resume(returning: ready) }
      }
    } onCancel: {
      finish()
    }
  }

  /// The next change if one is pending, without waiting.
  func poll() -> ResultsChange<Element>? {
    state.withLock { $0.pending.isEmpty ? nil : $0.pending.removeFirst() }
  }

  /// Ends the channel: a waiting consumer gets `nil`, and the hub lets the subscription go.
  func finish() {
    let waiter = state.withLock { state -> CheckedContinuation<ResultsChange<Element>?, Never>? in
      state.finished = true
      state.pending.removeAll()
      defer { state.waiter = nil }
      return state.waiter
    }
    waiter?.resume(returning: nil)
    let callback = onFinish.withLock { callback -> (@Sendable () -> Void)? in
      defer { callback = nil }
      return callback
    }
    callback?()
  }

  var isFinished: Bool { state.withLock { $0.finished } }

  /// Delivers pending changes to `handler` on `queue`, one at a time, as they come: the callback
  /// form of consumption. Returns the closure the hub calls after each `send`.
  func pump(on queue: DispatchQueue, _ handler: @escaping @Sendable (ResultsChange<Element>) -> Void)
    -> @Sendable () -> Void
  {
    { [weak self] in
      guard let self else { return }
      let schedule = self.state.withLock { state -> Bool in
        guard !state.pumpScheduled, !state.pending.isEmpty, !state.finished else { return false }
        state.pumpScheduled = true
        return true
      }
      guard schedule else { return }
      queue.async { [weak self] in
        guard let self else { return }
        while true {
          let change = self.state.withLock { state -> ResultsChange<Element>? in
            guard !state.finished, !state.pending.isEmpty else {
              state.pumpScheduled = false
              return nil
            }
            return state.pending.removeFirst()
          }
          guard let change else { return }
          handler(change)
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
