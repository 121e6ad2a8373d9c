import Dispatch
import LMDB

extension Store {
  /// Runs `body` in one write transaction and commits what it wrote as one commit; returns what
  /// `body` returns. If `body` throws, nothing is written and the error is rethrown.
  ///
  /// - Parameters:
  ///   - version: when given, the write happens only if the store's version is still `version`
  ///     (optimistic concurrency, across threads and processes): otherwise it throws
  ///     `StoreError.versionConflict` and writes nothing. Read the version with `version()`, or
  ///     from results you showed (`Results.version`).
  ///   - body: reads records by key and writes mutations of any collections through the
  ///     transaction (see `StoreTransaction`). It may run more than once — when it first meets a
  ///     record type whose collection must be created or evolved, when another process changes a
  ///     schema meanwhile, and when the map grows — so keep its effects inside the transaction.
  ///
  /// The caller's thread runs the transaction and waits for the disk; from a main thread or an
  /// actor, use the `async` form, which runs it on the store's writer thread.
  @discardableResult
  public func write<T>(expecting version: UInt64? = nil, _ body: (StoreTransaction) throws -> T) throws -> T {
    try commit(expecting: version) { txn, state in
      let transaction = try StoreTransaction(store: self, txn: txn, state: state)
      let value = try body(transaction)
      return (transaction.mutations, value)
    }.value
  }

  /// `write(expecting:_:)` on the store's writer thread: the caller's thread never waits for the
  /// writer's lock or the disk. Writes of every task run one at a time, in the order they came.
  @discardableResult
  public func write<T: Sendable>(
    expecting version: UInt64? = nil, _ body: @escaping @Sendable (StoreTransaction) throws -> T
  ) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
      writerQueue.async {
        continuation.resume(with: Result { try self.write(expecting: version, body) })
      }
    }
  }

  /// `write(_:)` of an array of mutations, with a condition on the version: see
  /// `write(expecting:_:)`.
  @discardableResult
  public func write(_ mutations: [Mutation], expecting version: UInt64) throws -> CommitSummary {
    try commit(expecting: version) { _, _ in (mutations, ()) }.summary
  }

  /// The binding of `type` if this store has made it already (no I/O).
  func knownBinding<R: Record>(for type: R.Type) -> TypedBinding<R>? {
    bindings.withLock { $0[ObjectIdentifier(type)] } as? TypedBinding<R>
  }
}

extension Results {
  /// Runs the query (if it has not run yet) on a background thread, and returns the results
  /// ready to read, or throws what went wrong: how async code gets results without doing I/O on
  /// its own thread.
  public func evaluateInBackground() async throws -> Results {
    try await withCheckedThrowingContinuation { continuation in
      DispatchQueue.global(qos: .userInitiated).async {
        continuation.resume(with: Result { try self.evaluate() })
      }
    }
  }
}
