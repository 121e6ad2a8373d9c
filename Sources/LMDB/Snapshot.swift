import CLMDB

/// A read transaction kept open across calls: every `read` sees the same committed state.
///
/// Safe to use from any thread, one call at a time or concurrently. The transaction ends when the
/// snapshot is released.
public final class Snapshot: @unchecked Sendable {
  // @unchecked: a read-only MDB_txn under MDB_NOTLS may be used from any thread; reads go
  // through the environment's map lock so that map growth never runs under them.
  private let environment: Environment
  private let transaction: OpaquePointer

  init(environment: Environment, transaction: OpaquePointer) {
    self.environment = environment
    self.transaction = transaction
  }

  deinit {
    mdb_txn_abort(transaction)
  }

  /// Runs `body` with the snapshot's transaction. Values it reads stay valid only inside `body`.
  ///
  /// Inlined around `_read`, which is not generic (as `Environment.read`).
  @inlinable
  public func read<R>(_ body: (Transaction) throws -> R) rethrows -> R {
    var value: R?
    try _read { value = try body($0) }
    guard let value else { preconditionFailure("a snapshot's read ended without running its body") }
    return value
  }

  /// `read(_:)` for a body that returns nothing.
  @usableFromInline
  func _read(_ body: (Transaction) throws -> Void) rethrows {
    try environment.withMapAccess { try body(Transaction(handle: transaction)) }
  }
}
