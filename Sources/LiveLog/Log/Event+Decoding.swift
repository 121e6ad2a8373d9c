extension EventHeader {
  /// The whole event, its record decoded under the schema version it was written with, as
  /// `catalog` knows the collections (a schema event carries its own schema).
  func event(in catalog: CatalogState) throws(StoreError) -> Event {
    func corrupt(_ reason: String) -> StoreError { .corruptEvent(lsn: lsn, reason: reason) }
    let change: Event.Change
    let name: String
    switch kind {
    case .schema:
      let schema = try schema()
      name = schema.name
      change = .schema(schema)
    case .upsert, .delete:
      let schema = try recordSchema(in: catalog)
      name = schema.name
      if kind == .delete {
        change = .delete(try deletedKey())
      } else {
        do {
          change = .upsert(
            RecordValues(schema: schema, values: try RecordCodec.decode(payload, schema: schema)))
        } catch {
          throw corrupt(error.description)
        }
      }
    }
    return Event(
      lsn: lsn, time: time, collection: name, schemaVersion: schemaVersion, change: change,
      endsCommit: endsCommit,
      row: row, previousLSN: previousLSN)
  }

  /// The schema the event's record was written with.
  func recordSchema(in catalog: CatalogState) throws(StoreError) -> CollectionSchema {
    if collection == 0 { return LegacySchemas.repositoriesV1 }
    guard let stored = catalog.collection(id: collection) else {
      throw .corruptEvent(
        lsn: lsn, reason: "it names collection \(collection), which the catalog does not hold")
    }
    guard let schema = stored.schema(version: schemaVersion) else {
      throw .corruptEvent(
        lsn: lsn,
        reason: "it names version \(schemaVersion) of \(stored.name)'s schema, which the catalog lacks")
    }
    return schema
  }
}
