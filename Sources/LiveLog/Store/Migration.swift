/// What to do with a collection's records when its declaration changes in a way the store cannot
/// follow on its own (a field renamed, retyped or removed, a field made required): each stored
/// record, as it reads under the old schema, becomes a record of the new declaration.
///
/// ```swift
/// var options = StoreOptions()
/// options.migrations = [
///   Migration(Bookmark.self) { old in
///     // `name` became `title`; everything else stays.
///     Bookmark(id: try old.uuid("id"), title: try old.string("name"), url: old["url"].stringValue)
///   }
/// ]
/// let store = try Store(directory: path, options: options)
/// ```
///
/// The migration runs once, when the store first opens the collection with the new declaration:
/// in one transaction, it appends a schema event and one ordinary upsert per record, so the log
/// shows the change and replay and as-of queries see every record as it was at each version. A
/// transform that throws aborts everything; nothing is written.
public struct Migration: Sendable {
  /// The collection the migration applies to.
  public let collection: String
  /// The new record's values, in the order of the new declaration's fields.
  let transform: @Sendable (RecordValues, CollectionSchema) throws -> [FieldValue]

  /// A migration to the declaration of `R`: `transform` builds the new record from the old one.
  public init<R: Record>(_ type: R.Type, _ transform: @escaping @Sendable (RecordValues) throws -> R) {
    collection = R.schema.declaration.name
    self.transform = { old, _ in R.schema.values(of: try transform(old)) }
  }

  /// A migration of a collection declared at run time (as `livelog collection create` does):
  /// `transform` returns the new record's values by field name; fields it leaves out are absent.
  public init(
    collection: String, _ transform: @escaping @Sendable (RecordValues) throws -> [String: FieldValue]
  ) {
    self.collection = collection
    self.transform = { old, declared in
      let named = try transform(old)
      return declared.fields.map { named[$0.name] ?? .null }
    }
  }
}
