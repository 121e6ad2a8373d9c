/// The collections a run of events defines, followed in memory as the events go by: what a
/// replay rebuilds the catalog from, and how it decodes each record with its own schema.
struct ReplayCatalog {
  struct Entry {
    var id: UInt32
    var name: String
    var versions: [SchemaVersion]
  }

  var entries: [UInt32: Entry] = [:]

  init() {}

  /// The catalog of a store, to continue from (an import into a store that holds events).
  init(_ state: CatalogState) {
    for collection in state.collections.values {
      entries[collection.id] = Entry(id: collection.id, name: collection.name, versions: collection.versions)
    }
  }

  /// The entry of the collection an event names; events of format 1 make `repositories` (id 1,
  /// schema version 1 of `LegacySchemas`) exist if it does not yet.
  mutating func entry(for header: EventHeader) throws(StoreError) -> Entry {
    if header.collection == 0 {
      if let legacy = entries.values.first(where: { $0.name == LegacySchemas.repositoriesName }) {
        guard legacy.versions.first?.schema == LegacySchemas.repositoriesV1 else {
          throw .corruptEvent(
            lsn: header.lsn,
            reason: "an event of format 1 belongs to the built-in repositories schema, and this store's "
              + "repositories collection has another")
        }
        return legacy
      }
      guard entries[1] == nil else {
        throw .corruptEvent(
          lsn: header.lsn,
          reason: "an event of format 1 needs collection id 1 for repositories, which is taken")
      }
      let entry = Entry(
        id: 1, name: LegacySchemas.repositoriesName,
        versions: [SchemaVersion(version: 1, lsn: 0, schema: LegacySchemas.repositoriesV1)])
      entries[1] = entry
      return entry
    }
    guard let entry = entries[header.collection] else {
      throw .corruptEvent(
        lsn: header.lsn, reason: "it names collection \(header.collection), which no schema event made")
    }
    return entry
  }

  /// `entry(for:)`'s id, without copying the entry: asked once per event a replay follows.
  mutating func id(for header: EventHeader) throws(StoreError) -> UInt32 {
    if header.collection != 0, let id = entries[header.collection]?.id { return id }
    return try entry(for: header).id
  }

  /// The schema a record event was written with.
  mutating func schema(for header: EventHeader) throws(StoreError) -> CollectionSchema {
    let entry = try entry(for: header)
    guard let version = entry.versions.first(where: { $0.version == header.schemaVersion }) else {
      throw .corruptEvent(
        lsn: header.lsn,
        reason: "it names version \(header.schemaVersion) of \(entry.name)'s schema, which no event made")
    }
    return version.schema
  }

  /// Takes a schema event: a new collection (version 1, naming no earlier version) or the next
  /// version of one. Returns the previous schema, if any.
  @discardableResult
  mutating func follow(schemaEvent header: EventHeader) throws(StoreError) -> CollectionSchema? {
    let schema = try header.schema()
    func corrupt(_ reason: String) -> StoreError { .corruptEvent(lsn: header.lsn, reason: reason) }
    if var entry = entries[header.collection] {
      guard entry.name == schema.name else {
        throw corrupt("it renames collection \(entry.name) to \(schema.name)")
      }
      let last = entry.versions[entry.versions.count - 1]
      guard header.schemaVersion == last.version + 1, (header.previousLSN ?? 0) == last.lsn else {
        throw corrupt(
          "it makes version \(header.schemaVersion) of \(schema.name) after version \(last.version) (LSN \(last.lsn))"
        )
      }
      entry.versions.append(SchemaVersion(version: header.schemaVersion, lsn: header.lsn, schema: schema))
      entries[header.collection] = entry
      return last.schema
    }
    guard header.schemaVersion == 1, header.previousLSN == nil else {
      throw corrupt(
        "it makes version \(header.schemaVersion) of \(schema.name), which has no earlier version")
    }
    guard !entries.values.contains(where: { $0.name == schema.name }) else {
      throw corrupt("it creates \(schema.name) a second time")
    }
    entries[header.collection] = Entry(
      id: header.collection, name: schema.name,
      versions: [SchemaVersion(version: 1, lsn: header.lsn, schema: schema)])
    return nil
  }

  /// Schema versions in all: what the catalog's stamp counts (one catalog write per version).
  var versionCount: UInt64 { UInt64(entries.values.reduce(0) { $0 + $1.versions.count }) }
}

extension ReplayCatalog {
  /// The catalog of a store as it was before the event at `lsn`: the versions made earlier.
  init(_ state: CatalogState, before lsn: UInt64) {
    self.init()
    for collection in state.collections.values {
      let versions = collection.versions.filter { $0.lsn < lsn }
      guard !versions.isEmpty else { continue }
      entries[collection.id] = Entry(id: collection.id, name: collection.name, versions: versions)
    }
  }
}
