/// How a collection's stored schema relates to the declaration it is opened with, and the schema
/// it becomes.
///
/// The store follows a declaration on its own when nothing stored needs to change: an optional
/// field added (it takes the next free slot, and every stored record reads it as absent), an index
/// added or dropped, a required field made optional. Anything else — a field removed, renamed or
/// retyped, a field made required, a new required field, another primary key — changes what the
/// stored records mean, and needs a `Migration`.
enum SchemaEvolution: Equatable {
  /// The declaration is what is stored.
  case unchanged
  /// The store can follow on its own: `schema` is the new version (with slots); `addedIndexes`
  /// and `droppedIndexes` say which index entries to build and to remove, by field.
  case compatible(schema: CollectionSchema, addedIndexes: [Field], droppedIndexes: [Field])
  /// The store cannot follow without a migration, for these reasons (one per field).
  case needsMigration([SchemaError])

  /// Compares the stored schema with a declaration of the same collection (not necessarily
  /// validated: a commit passes its record type's declaration as it is).
  static func between(stored: CollectionSchema, declared: CollectionSchema) -> SchemaEvolution {
    // Every commit asks this of every collection it writes, and nearly always of an unchanged
    // declaration: answered without building (and validating) a schema, which costs a small
    // commit more than the rest of its work. The same fields, each with the same type,
    // optionality and indexes, and the same key (and name) are what the rules below leave
    // unchanged; anything else takes the long way.
    if stored.sameDeclaration(as: declared) { return .unchanged }
    func refuse(_ field: String?, _ message: String) -> SchemaError {
      SchemaError(collection: stored.name, field: field, message: message)
    }
    var reasons: [SchemaError] = []
    if declared.primaryKey.name != stored.primaryKey.name
      || declared.primaryKey.type != stored.primaryKey.type
    {
      reasons.append(
        refuse(
          declared.primaryKey.name,
          "the primary key was \(stored.primaryKey.declarationText) and is declared as "
            + "\(declared.primaryKey.declarationText)"))
    }
    var fields: [Field] = []
    var added: [Field] = []
    var dropped: [Field] = []
    var nextSlot = stored.slotCount
    for old in stored.fields {
      guard let new = declared.field(named: old.name) else {
        reasons.append(refuse(old.name, "is stored as \(old.declarationText) and no longer declared"))
        continue
      }
      guard new.type == old.type else {
        reasons.append(
          refuse(old.name, "is stored as \(old.declarationText) and declared as \(new.declarationText)"))
        continue
      }
      if new.isOptional == false && old.isOptional {
        reasons.append(
          refuse(
            old.name,
            "is stored as \(old.declarationText) and declared as \(new.declarationText): stored records may lack it"
          ))
        continue
      }
      let field = Field(
        position: old.position, name: old.name, type: old.type, indexes: new.indexes,
        isOptional: new.isOptional)
      if !new.indexes.subtracting(old.indexes).isEmpty {
        added.append(field.indexed(new.indexes.subtracting(old.indexes)))
      }
      if !old.indexes.subtracting(new.indexes).isEmpty {
        dropped.append(field.indexed(old.indexes.subtracting(new.indexes)))
      }
      fields.append(field)
    }
    for new in declared.fields where stored.field(named: new.name) == nil {
      guard new.isOptional else {
        reasons.append(
          refuse(
            new.name, "is declared as \(new.declarationText), a new required field the stored records lack"))
        continue
      }
      let field = new.at(nextSlot)
      nextSlot += 1
      if !field.indexes.isEmpty { added.append(field) }
      fields.append(field)
    }
    if !reasons.isEmpty { return .needsMigration(reasons) }
    let schema = CollectionSchema(
      name: stored.name, primaryKey: stored.primaryKey.name, slotted: fields, slotCount: nextSlot)
    if schema == stored { return .unchanged }
    return .compatible(schema: schema, addedIndexes: added, droppedIndexes: dropped)
  }

  /// The schema a migration writes its records with: fields declared exactly as stored keep their
  /// slots; the others (renamed, retyped, new) take new ones, and stored fields no longer declared
  /// retire with theirs.
  static func migrated(stored: CollectionSchema, declared: CollectionSchema) -> CollectionSchema {
    var nextSlot = stored.slotCount
    var fields: [Field] = []
    for new in declared.fields {
      if let old = stored.field(named: new.name), old.type == new.type {
        fields.append(new.at(old.position))
      } else {
        fields.append(new.at(nextSlot))
        nextSlot += 1
      }
    }
    return CollectionSchema(
      name: stored.name, primaryKey: declared.primaryKey.name, slotted: fields, slotCount: nextSlot)
  }
}

extension SchemaEvolution {
  /// Why records stored under `stored` cannot be read as `declared` (one reason per field), or
  /// nothing: reading needs less than writing. A declaration may lack stored fields (an older
  /// app reads a newer store) and may have optional fields the store lacks; a field both have must
  /// keep its type, and a required one must be required in the store.
  static func readingProblems(stored: CollectionSchema, declared: CollectionSchema) -> [SchemaError] {
    var problems: [SchemaError] = []
    for field in declared.fields {
      guard let old = stored.field(named: field.name) else {
        if !field.isOptional {
          problems.append(
            SchemaError(
              collection: stored.name, field: field.name,
              message: "is declared as \(field.declarationText), a required field the stored records lack"))
        }
        continue
      }
      if old.type != field.type || (old.isOptional && !field.isOptional) {
        problems.append(
          SchemaError(
            collection: stored.name, field: field.name,
            message: "is stored as \(old.declarationText) and declared as \(field.declarationText)"))
      }
    }
    return problems
  }
}
