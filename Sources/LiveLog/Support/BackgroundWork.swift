import Dispatch
import Foundation
import Synchronization

/// A computation started on another thread while the caller goes on with its own, then waited
/// for: two long steps that would each leave a core idle part of the time overlap.
final class BackgroundWork<Value: Sendable>: Sendable {
  private let result = Mutex<Result<Value, any Error>?>(nil)
  private let done = DispatchSemaphore(value: 0)

  /// Starts `work` at once on a thread of its own: not one of the system's pool, which a caller
  /// running on it (and waiting here) could leave with no thread free to run the work.
  init(_ work: @escaping @Sendable () throws -> Value) {
    let thread = Thread { [self] in
      let outcome = Result { try work() }
      result.withLock { $0 = outcome }
      done.signal()
    }
    thread.start()
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
