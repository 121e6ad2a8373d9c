import LMDB

extension StoredCollection {
  /// Readies `txn` for reads of this collection from several threads at once, which a read-only
  /// transaction allows (`Snapshot`) with one exception: a transaction's first cursor on a
  /// database refreshes the transaction's own record of that database, a write. This thread opens
  /// one cursor on each of the collection's databases and the log first, so that the other
  /// threads' cursors only read.
  func prepareForReadsOnEveryCore(_ txn: Transaction) throws {
    for database in databases.all + [log.database] { try txn.withCursor(database) { _ in } }
  }
}
