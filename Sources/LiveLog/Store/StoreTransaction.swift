import LMDB

/// A write transaction's view of the store, handed to the closure of `Store.write(expecting:_:)`:
/// reads by key see the state the transaction started from with the transaction's own writes on
/// top, and the writes commit together, as one commit, when the closure returns.
///
/// ```swift
/// try store.write { transaction in
///   guard var counter = try transaction.record(Counter.self, id: "visits") else { return }
///   counter.value += 1
///   transaction.upsert(counter)
/// }
/// ```
///
/// The transaction holds the store's writer lock (this process's and, through LMDB's lock file,
/// every process's) from the first read to the commit, so a read-modify-write cannot interleave
/// with another writer. Use it only inside its closure, on the closure's thread.
public final class StoreTransaction {
  private let store: Store
  private let txn: WriteTransaction
  private let state: CatalogState
  /// The mutations so far, in order.
  private(set) var mutations: [Mutation] = []
  /// Where the last mutation of each record is in `mutations`.
  private var latest: [StagedRecord: Int] = [:]
  /// The store's version when the transaction began: the LSN of the last commit before it.
  public let version: UInt64

  private struct StagedRecord: Hashable {
    var collection: String
    var key: PrimaryKey
  }

  init(store: Store, txn: WriteTransaction, state: CatalogState) throws {
    self.store = store
    self.txn = txn
    self.state = state
    version = try store.log.lastLSN(txn)
  }

  // MARK: Reading

  /// The record of type `R` with `id`: the transaction's own last write of it, or the stored one.
  public func record<R: Record>(_ type: R.Type, id: R.ID) throws -> R? {
    if let index = latest[StagedRecord(collection: R.schema.declaration.name, key: id.primaryKey)] {
      return try mutations[index].record(as: R.self)
    }
    guard let binding = store.knownBinding(for: type) else {
      // The type's first read in this store: bound outside the transaction, which then runs again.
      throw TransactionNeedsCollection(declaration: R.schema.declaration, recordType: type)
    }
    guard let collection = state.collection(named: binding.name),
      let (row, _) = try collection.row(of: id.primaryKey, txn),
      let bytes = try collection.record(at: row, txn)
    else { return nil }
    return try binding.decode(bytes, row: row, collection: collection)
  }

  /// The record of the collection `name` with `key`: the transaction's own last write of it, or
  /// the stored one.
  public func record(in name: String, key: PrimaryKey) throws -> RecordValues? {
    if let index = latest[StagedRecord(collection: name, key: key)] { return mutations[index].record }
    guard let collection = state.collection(named: name), let (row, _) = try collection.row(of: key, txn),
      let bytes = try collection.record(at: row, txn)
    else { return nil }
    return RecordValues(schema: collection.schema, values: try collection.values(bytes, row: row))
  }

  // MARK: Writing

  /// Inserts `record`, or replaces the record with its id, when the transaction commits.
  public func upsert<R: Record>(_ record: R) {
    write(.upsert(record))
  }

  /// Removes the record of type `R` with `id`, when the transaction commits.
  public func delete<R: Record>(_ type: R.Type, id: R.ID) {
    write(.delete(type, id: id))
  }

  /// Applies `mutation` when the transaction commits (after the earlier ones; the last mutation
  /// of a record wins).
  public func write(_ mutation: Mutation) {
    if let key = mutation.key {
      latest[StagedRecord(collection: mutation.collection, key: key)] = mutations.count
    }
    mutations.append(mutation)
  }

  /// Applies `mutations`, in order, when the transaction commits.
  public func write(_ mutations: some Sequence<Mutation>) {
    for mutation in mutations { write(mutation) }
  }
}

/// Thrown inside a write transaction that first meets a record type: the store binds the type
/// (which may create its collection, a commit of its own) and runs the transaction again.
struct TransactionNeedsCollection: Error {
  let declaration: CollectionSchema
  let recordType: any Record.Type
}
