import LMDB

/// Building a collection's indexes again when its schema gains or loses indexes: in the write
/// transaction that records the new schema, so readers see a new index only whole.
enum IndexMaintenance {
  /// Builds every index of `collection` (whose schema is the new one) again from its records,
  /// when `added` or `dropped` name any field; `progress` gets records done and their number.
  static func rebuild(
    adding added: [Field], dropping dropped: [Field], in collection: StoredCollection,
    _ txn: WriteTransaction,
    progress: (Int, Int) -> Void = { _, _ in }
  ) throws {
    guard !added.isEmpty || !dropped.isEmpty else { return }
    try collection.rebuildIndexes(txn, progress: progress)
  }
}
