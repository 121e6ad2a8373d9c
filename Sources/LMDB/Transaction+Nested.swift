import CLMDB

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

extension WriteTransaction {
  /// Runs `body` in a transaction nested in this one: what `body` writes becomes part of this
  /// transaction if it returns, and is undone (leaving this transaction as it was) if it throws.
  public func nested<R>(_ body: (WriteTransaction) throws -> R) throws -> R {
    var child: OpaquePointer?
    try state.check(mdb_txn_begin(mdb_txn_env(handle), handle, 0, &child), "mdb_txn_begin(nested)")
    guard let child else { throw LMDBError(code: EINVAL, operation: "mdb_txn_begin(nested)") }
    let value: R
    do {
      value = try body(WriteTransaction(handle: child, state: state))
    } catch {
      mdb_txn_abort(child)
      throw error
    }
    try state.check(mdb_txn_commit(child), "mdb_txn_commit(nested)")
    return value
  }

  /// Whether LMDB reported a full map in this transaction: `Environment.write` then grows the map
  /// and runs the whole transaction again, so an error that says so must not be swallowed.
  public var hasHitMapFull: Bool { state.hitMapFull }
}
