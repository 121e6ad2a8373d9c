import CLMDB
import Synchronization

/// What happens when LMDB fails one of its own assertions, which it checks on pages it reads
/// (`Assertion 'IS_LEAF(mp)' failed` on a damaged page): by default LMDB prints the assertion
/// and aborts the process. A handler set here runs first with LMDB's text; a program that would
/// rather report the damage and exit than abort ends the process from it (LMDB aborts when the
/// handler returns: the state of its call cannot be unwound).
public enum LMDBAssertion {
  private static let handler = Mutex<(@Sendable (String) -> Void)?>(nil)

  /// Sets the handler for every environment of the process.
  public static func setHandler(_ body: @escaping @Sendable (String) -> Void) {
    handler.withLock { $0 = body }
  }

  static let callback: @convention(c) (OpaquePointer?, UnsafePointer<CChar>?) -> Void = { _, message in
    let text = message.map { String(cString: $0) } ?? "an assertion failed"
    if let body = LMDBAssertion.handler.withLock({ $0 }) { body(text) }
  }
}
