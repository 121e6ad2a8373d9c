import Dispatch
import Synchronization

/// Runs `body` as a task and blocks the calling thread until it ends, returning what it returned
/// (`placeholder` only if the task could end without a value, which it cannot): the bridge from
/// the synchronous command functions to the async search code.
///
/// The calling thread is the main thread of a command-line process that has nothing else to do;
/// the task runs on the concurrency pool, never on the blocked thread, so this cannot deadlock.
func blockingWait<T: Sendable>(placeholder: T, _ body: @escaping @Sendable () async -> T) -> T {
  let done = DispatchSemaphore(value: 0)
  let result = Mutex<T>(placeholder)
  Task {
    let value = await body()
    result.withLock { $0 = value }
    done.signal()
  }
  done.wait()
  return result.withLock { $0 }
}
