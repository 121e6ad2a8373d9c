import Foundation
import LMDB

extension Store {
  /// Creates the collection `schema` declares, or brings a stored one to it when the store can
  /// follow on its own (an optional field added, an index added or dropped); a change that needs
  /// a migration uses the one `options.migrations` holds for the collection, or is refused with
  /// a `SchemaError` naming the field and both declarations. Returns the collection as stored.
  ///
  /// This is what `livelog collection create` does, and what opening a record type does.
  @discardableResult
  public func createCollection(_ schema: CollectionSchema) throws -> CollectionInfo {
    guard let collection = try ensureCollection(schema) else {
      throw StoreError.readOnly(path: directory)
    }
    return try read { txn, _ in
      CollectionInfo(
        name: collection.name, schema: collection.schema, schemaVersion: collection.version,
        records: try collection.count(txn))
    }
  }

  /// The stored collection that `declared` declares, created or evolved first when needed. A
  /// read-only store evolves nothing: it returns the stored collection (or `nil` when there is
  /// none), and reads go by the stored schema.
  func ensureCollection(_ declared: CollectionSchema) throws -> StoredCollection? {
    let declared = try declared.validated()
    while true {
      let stored = try read { _, state in state.collection(named: declared.name) }
      let evolution = stored.map { SchemaEvolution.between(stored: $0.schema, declared: declared) }
      if options.readOnly {
        // Nothing can change: read by the stored schema, unless the declaration cannot read it.
        if let stored,
          let first = SchemaEvolution.readingProblems(stored: stored.schema, declared: declared).first
        {
          throw first
        }
        return stored
      }
      if let stored, evolution == .unchanged { return stored }
      if case .needsMigration(let reasons)? = evolution,
        !options.migrations.contains(where: { $0.collection == declared.name })
      {
        throw reasons.count == 1
          ? reasons[0]
          : SchemaError(
            collection: declared.name,
            message: reasons.map { "field '\($0.field ?? "?")' \($0.message)" }.joined(separator: "; ")
              + ". Supply a Migration for the collection (StoreOptions.migrations), or declare it as stored: "
              + (stored?.schema.description ?? ""))
      }
      _ = try changeSchema(of: declared, expecting: stored?.version)
      try catalog.refresh()
    }
  }

  /// Creates or evolves the collection in one write transaction; false when another writer
  /// changed the catalog first (the caller looks again).
  private func changeSchema(of declared: CollectionSchema, expecting version: Int?) throws -> Bool {
    let time = CommitTime.now
    return try writeCommit { txn -> Bool in
      let state = try catalog.load(inWrite: txn)
      let stored = state.collection(named: declared.name)
      guard stored?.version == version else { return false }
      var lsn = try log.lastLSN(txn)
      guard let stored else {
        let id = state.nextID
        let schema = declared
        let databases = try catalog.openDatabases(
          schema.name, keyType: schema.primaryKey.type, create: true, in: txn)
        lsn += 1
        var event = EventCodec.beginSchema(
          schema, time: time, .init(collection: id, schemaVersion: 1, row: 0, previous: 0))
        EventCodec.seal(&event, lsn: lsn, endsCommit: true)
        try log.append(event, at: lsn, txn)
        try recordCheckpoints(through: lsn, txn)
        _ = databases
        try catalog.write(
          id: id, name: schema.name, versions: [SchemaVersion(version: 1, lsn: lsn, schema: schema)], txn)
        return true
      }
      let evolution = SchemaEvolution.between(stored: stored.schema, declared: declared)
      switch evolution {
      case .unchanged:
        return true
      case .compatible(let schema, let added, let dropped):
        lsn += 1
        var event = EventCodec.beginSchema(
          schema, time: time,
          .init(
            collection: stored.id, schemaVersion: stored.version + 1, row: 0,
            previous: stored.versions.last?.lsn ?? 0))
        EventCodec.seal(&event, lsn: lsn, endsCommit: true)
        try log.append(event, at: lsn, txn)
        try recordCheckpoints(through: lsn, txn)
        let evolved = stored.with(SchemaVersion(version: stored.version + 1, lsn: lsn, schema: schema))
        try IndexMaintenance.rebuild(adding: added, dropping: dropped, in: evolved, txn) { done, total in
          options.progress?(
            StoreProgress(step: .buildingIndex(collection: schema.name), completed: done, total: total))
        }
        try catalog.write(id: stored.id, name: stored.name, versions: evolved.versions, txn)
        return true
      case .needsMigration:
        guard let migration = options.migrations.first(where: { $0.collection == declared.name }) else {
          return false
        }
        try SchemaMigrator(store: self, migration: migration, time: time).run(
          stored: stored, declared: declared, firstLSN: lsn + 1, txn)
        return true
      }
    }
  }
}

extension StoredCollection {
  /// The collection with one more schema version.
  func with(_ version: SchemaVersion) -> StoredCollection {
    StoredCollection(
      id: id, name: name, versions: versions + [version], databases: databases, meta: meta, log: log)
  }
}

extension CommitTime {
  /// The wall-clock time now.
  static var now: CommitTime {
    CommitTime(microsecondsSince1970: Int64(Date().timeIntervalSince1970 * 1_000_000))
  }
}

/// How far long work on a store has come: an upgrade, an index build, a migration.
public struct StoreProgress: Sendable, Hashable, CustomStringConvertible {
  public enum Step: Sendable, Hashable {
    /// Bringing a store of an older format to the current one: a replay of its log, whose step
    /// says the unit (events copied, then records written).
    case upgrading(ReplayProgress.Step)
    /// Building a new index of a collection from its records; counted in records.
    case buildingIndex(collection: String)
    /// Migrating a collection's records to a new schema; counted in records.
    case migrating(collection: String)
  }

  public var step: Step
  public var completed: Int
  public var total: Int

  public var description: String {
    switch step {
    case .upgrading(let replay):
      "upgrading the store, "
        + ReplayProgress(step: replay, completed: UInt64(max(completed, 0)), total: UInt64(max(total, 0)))
        .description
    case .buildingIndex(let name): "building indexes of \(name): \(completed) of \(total) records"
    case .migrating(let name): "migrating \(name): \(completed) of \(total) records"
    }
  }
}
