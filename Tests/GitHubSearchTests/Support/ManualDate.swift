import Foundation
import Synchronization

/// A wall clock the test sets by hand, for rate-limit resets.
final class ManualDate: Sendable {
  private let date: Mutex<Date>

  init(_ date: Date = Date(timeIntervalSince1970: 1_700_000_000)) { self.date = Mutex(date) }

  var now: Date { date.withLock { $0 } }

  func advance(by seconds: TimeInterval) { date.withLock { $0 = $0.addingTimeInterval(seconds) } }

  /// The closure the client takes.
  var clock: @Sendable () -> Date { { self.now } }
}
