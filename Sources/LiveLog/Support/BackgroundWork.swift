import Dispatch
import Foundation
import Synchronization

/// A computation started on another thread while the caller goes on with its own, then waited
/// for: two long steps that would each leave a core idle part of the time overlap.
final class BackgroundWork<Value: Sendable>: Sendable {
  private let result = Mutex<Result<Value, any Error>?>(nil)
  private let done = DispatchSemaphore(value: 0)
  /// The work until its thread takes it: held here rather than by the thread's closure, which
  /// the thread keeps until it exits, after the caller is woken.
  private let pending: Mutex<(@Sendable () throws -> Value)?>

  /// Starts `work` at once on a thread of its own: not one of the system's pool, which a caller
  /// running on it (and waiting here) could leave with no thread free to run the work.
  init(_ work: @escaping @Sendable () throws -> Value) {
    pending = Mutex(work)
    let thread = Thread { [self] in
      result.withLock { $0 = run() }
      done.signal()
    }
    thread.start()
  }

  /// Runs the work and lets it go before the caller is woken: what it captured (a store's
  /// environment, which one process may open once at a time) is released when the caller goes
  /// on, so that the caller can open that store again at once.
  private func run() -> Result<Value, any Error> {
    guard
      let work = pending.withLock({ job in
        defer { job = nil }
        return job
      })
    else {
      preconditionFailure("the work ran twice")
    }
    return Result { try work() }
  }

  /// Waits until the work ends; its value or its error (each call gives the same).
  func value() throws -> Value {
    done.wait()
    // Open for the next caller.
    done.signal()
    guard let outcome = result.withLock({ $0 }) else {
      preconditionFailure("the work signalled its end before it set its result")
    }
    return try outcome.get()
  }
}
