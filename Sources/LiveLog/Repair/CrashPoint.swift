import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A seam for crash tests: the steps of an operation that must be crash-atomic (each rename,
/// link, unlink and fsync of a repair) pass through `reached`, and a test that sets
/// `LIVELOG_CRASH_AT=N` has the process killed with SIGKILL just before the Nth step, as a power
/// cut or `kill -9` would end it there. `LIVELOG_CRASH_TRACE=1` prints each step to standard
/// error, so that a test can count the steps and try every one; `LIVELOG_PAUSE_AT=N` sleeps two
/// seconds before the Nth step instead, for tests of what other processes see meanwhile. Without
/// these variables a step costs a comparison.
enum CrashPoint {
  private static let target: Int? = ProcessInfo.processInfo.environment["LIVELOG_CRASH_AT"].flatMap(Int.init)
  private static let pause: Int? = ProcessInfo.processInfo.environment["LIVELOG_PAUSE_AT"].flatMap(Int.init)
  private static let tracing = ProcessInfo.processInfo.environment["LIVELOG_CRASH_TRACE"] == "1"
  nonisolated(unsafe) private static var count = 0

  /// Marks the step about to run; never returns when the test asked to die here. Called only
  /// from the thread of the operation.
  static func reached(_ step: @autoclosure () -> String) {
    guard target != nil || pause != nil || tracing else { return }
    count += 1
    if tracing { FileHandle.standardError.write(Data("crash point \(count): \(step())\n".utf8)) }
    if count == target { kill(getpid(), SIGKILL) }
    if count == pause { sleep(2) }
  }
}
