import Synchronization

/// A record type bound to its collection in one store: where its declared fields are stored and
/// how its records decode, for the collection's current schema version.
final class TypedBinding<R: Record>: Sendable {
  let layout: RecordLayout
  /// The collection's name, from `R`'s declaration: kept, since building the declaration again
  /// for every query cost a tenth of a small one.
  let name: String
  private let decoders = Mutex<[Int: RecordDecoder]>([:])

  init(layout: RecordLayout) {
    self.layout = layout
    name = R.schema.declaration.name
  }

  /// The collection in `state`, or `nil` when the store does not hold it yet.
  func collection(in state: CatalogState, store: Store) throws -> StoredCollection? {
    state.collection(named: name)
  }

  /// The schema results of `R` carry: the collection's in `state`, or `R`'s declaration when the
  /// store does not hold it yet.
  func schema(in state: CatalogState) -> CollectionSchema {
    schema(stored: state.collection(named: name)?.schema)
  }

  /// The schema results of `R` carry when the collection's is `stored`: it, or `R`'s declaration
  /// when the store does not hold the collection yet (`nil`).
  func schema(stored: CollectionSchema?) -> CollectionSchema {
    stored ?? R.schema.declaration
  }

  /// The decoder for the collection's current schema version.
  func decoder(for collection: StoredCollection) throws -> RecordDecoder {
    if let known = decoders.withLock({ $0[collection.version] }) { return known }
    let decoder = try RecordDecoder(R.self, layout: layout, schema: collection.schema)
    decoders.withLock { $0[collection.version] = decoder }
    return decoder
  }

  /// The record stored as `bytes` at `row`.
  func decode(_ bytes: UnsafeRawBufferPointer, row: UInt64, collection: StoredCollection) throws -> R {
    try decode(try collection.values(bytes, row: row), row: row, collection: collection)
  }

  /// The record whose values (by slot) are `values`.
  func decode(_ values: [FieldValue], row: UInt64, collection: StoredCollection) throws -> R {
    do {
      return try decoder(for: collection).decode(R.self, from: values)
    } catch let error as RecordDecodingFailure {
      throw StoreError.corruptState(
        reason: "\(name): record at row \(row) does not decode as \(R.self): \(error)")
    }
  }
}

extension Store {
  /// The binding of `R` to its collection, made on first use: `R`'s declaration is checked, and
  /// against the stored schema, if the collection exists. Reading writes nothing: a collection
  /// is created, or brought to `R`'s declaration, by the first write of an `R` (or when the store
  /// opens, for `options.recordTypes`). A declaration that needs a migration is refused here,
  /// unless the store can run one now.
  func binding<R: Record>(for type: R.Type, evolving: Bool = false) throws -> TypedBinding<R> {
    let key = ObjectIdentifier(type)
    if !evolving, let known = bindings.withLock({ $0[key] }) as? TypedBinding<R> { return known }
    let layout = try RecordLayout.of(type)
    let declared = try R.schema.declaration.validated()
    let stored = try read { _, state in state.collection(named: declared.name) }
    if evolving {
      _ = try ensureCollection(declared)
    } else if let stored, !SchemaEvolution.readingProblems(stored: stored.schema, declared: declared).isEmpty
    {
      // Reading with a type that no longer matches its records would decode wrongly; migrate
      // now when a migration is at hand, or say what is wrong.
      _ = try ensureCollection(declared)
    }
    let binding = TypedBinding<R>(layout: layout)
    bindings.withLock { $0[key] = binding }
    return binding
  }
}
