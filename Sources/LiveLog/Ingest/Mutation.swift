/// One change to the store, as a batch carries it: an upsert or a delete of one record of one
/// collection.
///
/// ```swift
/// try store.write([.upsert(repository), .upsert(bookmark), .delete(Bookmark.self, id: stale)])
/// ```
public struct Mutation: Sendable, Hashable {
  /// What the mutation does.
  public enum Change: Sendable, Hashable {
    /// Insert the record, or replace the stored one with the same key; the values follow the
    /// declaration's fields. Replacing a record with an identical one writes no event.
    case upsert([FieldValue])
    /// Remove the record with this key; nothing happens if there is none.
    case delete(PrimaryKey)
  }

  /// The declaration of the collection the mutation goes to, which its values follow.
  public let declaration: CollectionSchema
  public let change: Change
  /// The record type the mutation was made from, whose declaration a write checks (once).
  let recordType: (any Record.Type)?

  init(declaration: CollectionSchema, change: Change, recordType: (any Record.Type)? = nil) {
    self.declaration = declaration
    self.change = change
    self.recordType = recordType
  }

  public static func == (a: Mutation, b: Mutation) -> Bool {
    a.declaration == b.declaration && a.change == b.change
  }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(declaration.name)
    hasher.combine(change)
  }

  /// Inserts `record`, or replaces the stored record with its `id`.
  public static func upsert<R: Record>(_ record: R) -> Mutation {
    let schema = R.schema
    return Mutation(
      declaration: schema.declaration, change: .upsert(schema.values(of: record)), recordType: R.self)
  }

  /// Removes the record of type `R` with `id`.
  public static func delete<R: Record>(_ type: R.Type, id: R.ID) -> Mutation {
    Mutation(declaration: R.schema.declaration, change: .delete(id.primaryKey), recordType: R.self)
  }

  /// Inserts or replaces a record given as values of its collection's schema.
  public static func upsert(_ record: RecordValues) -> Mutation {
    Mutation(declaration: record.schema, change: .upsert(record.values))
  }

  /// Removes the record with `key` from the collection `schema` declares.
  public static func delete(from schema: CollectionSchema, key: PrimaryKey) -> Mutation {
    Mutation(declaration: schema, change: .delete(key))
  }

  /// The collection's name.
  public var collection: String { declaration.name }

  /// The key of the record the mutation concerns (`nil` for an upsert that lacks one).
  public var key: PrimaryKey? {
    switch change {
    case .upsert(let values):
      let slot = declaration.primaryKey.position
      return slot >= 0 && slot < values.count ? PrimaryKey(values[slot]) : nil
    case .delete(let key): return key
    }
  }

  /// The upserted record's values.
  public var record: RecordValues? {
    guard case .upsert(let values) = change else { return nil }
    return RecordValues(schema: declaration, values: values)
  }

  /// The upserted record as an `R`, or `nil` for a delete or another collection's mutation.
  public func record<R: Record>(as type: R.Type) throws -> R? {
    guard collection == R.schema.declaration.name, let record else { return nil }
    return try R(values: record)
  }

  /// Whether this removes a record.
  public var isDelete: Bool {
    if case .delete = change { return true }
    return false
  }
}
