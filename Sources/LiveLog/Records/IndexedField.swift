/// A field with indexes, as the code that files its entries reads it: its slot, type and index
/// kinds, without its name.
///
/// Plain values, so that a loop over every record and field copies them without retaining
/// anything: a `Field` copied per record and field retained its name, from every core at once.
/// Each schema lists its own once (`CollectionSchema.indexedFields`).
struct IndexedField: Sendable, Hashable {
  /// The field's slot (`Field.position`).
  let position: Int
  let type: FieldType
  /// Not empty.
  let indexes: IndexKinds

  /// `field`'s parts, or `nil` when it has no index.
  init?(_ field: Field) {
    guard !field.indexes.isEmpty else { return nil }
    (position, type, indexes) = (field.position, field.type, field.indexes)
  }
}
