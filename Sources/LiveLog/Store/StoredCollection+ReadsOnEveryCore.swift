import LMDB

extension Transaction {
  /// Readies this transaction for reads of `databases` from several threads at once, which a
  /// read-only transaction allows (`Snapshot`) with one exception: a transaction's first cursor on
  /// a database refreshes the transaction's own record of that database, a write. This thread
  /// opens one cursor on each database first, so that the other threads' cursors only read.
  func prepareForReadsOnEveryCore(_ databases: [Database]) throws {
    for database in databases { try withCursor(database) { _ in } }
  }
}

extension StoredCollection {
  /// Readies `txn` for reads of this collection and the log from several threads at once.
  func prepareForReadsOnEveryCore(_ txn: Transaction) throws {
    try txn.prepareForReadsOnEveryCore(databases.all + [log.database])
  }
}
