import LMDB

/// Appends events, as bytes of the log's own format, to a store and materializes them commit by
/// commit, the way the commits were first made: what an import does (and a follower of another
/// store's log). Schema events create and evolve collections, with their indexes, as they did
/// where they were written.
struct EventApplier {
  let target: Store

  /// Appends and applies `events` (contiguous, starting one past the target's version) in one
  /// write transaction, commit by commit.
  func apply(_ events: [(lsn: UInt64, bytes: [UInt8])]) throws {
    try target.writeCommit { txn in try apply(events, in: txn) }
    try target.catalog.refresh()
  }

  /// `apply(_:)` in a write transaction of the caller's (which refreshes the catalog after it).
  func apply(_ events: [(lsn: UInt64, bytes: [UInt8])], in txn: WriteTransaction) throws {
    let loaded = try target.catalog.load(inWrite: txn)
    var state = ReplayCatalog(loaded)
    var stored = Set(loaded.collections.keys)
    var expected = try target.log.lastLSN(txn) + 1
    var commit: [(lsn: UInt64, bytes: [UInt8])] = []
    for event in events {
      guard event.lsn == expected else {
        throw StoreError.corruptEvent(lsn: event.lsn, reason: "expected LSN \(expected) next")
      }
      expected += 1
      commit.append(event)
      let ends = try event.bytes.withUnsafeBytes { try EventCodec.header($0, lsn: event.lsn).endsCommit }
      if ends {
        try apply(commit, &state, &stored, txn)
        commit.removeAll(keepingCapacity: true)
      }
    }
    if !commit.isEmpty { try apply(commit, &state, &stored, txn) }
    try target.recordCheckpoints(through: expected - 1, txn)
  }

  /// One commit's events: appended verbatim, then materialized. Each event must agree with the
  /// state it lands on: its row, and the version it says it replaces.
  private func apply(
    _ events: [(lsn: UInt64, bytes: [UInt8])], _ catalog: inout ReplayCatalog, _ stored: inout Set<UInt32>,
    _ txn: WriteTransaction
  ) throws {
    var changes: [UInt32: [RecordChange]] = [:]
    var nextRows: [UInt32: UInt64] = [:]
    /// The schema records of a collection were written under before this commit migrated it.
    var migratedFrom: [UInt32: CollectionSchema] = [:]
    var collections: [UInt32: StoredCollection] = [:]
    func collection(_ id: UInt32) throws -> StoredCollection {
      if let known = collections[id] { return known }
      guard let entry = catalog.entries[id], let schema = entry.versions.last?.schema else {
        throw StoreError.corruptEvent(lsn: 0, reason: "no collection \(id)")
      }
      let databases = try target.catalog.openDatabases(
        entry.name, keyType: schema.primaryKey.type, create: true, in: txn)
      let collection = StoredCollection(
        id: entry.id, name: entry.name, versions: entry.versions, databases: databases, meta: target.meta,
        log: target.log)
      collections[id] = collection
      // The catalog gets every collection the events make: by a schema event, or the
      // `repositories` of events of format 1.
      if stored.insert(id).inserted {
        try target.catalog.write(id: collection.id, name: collection.name, versions: collection.versions, txn)
      }
      return collection
    }
    for (lsn, bytes) in events {
      try target.log.append(bytes, at: lsn, txn)
      try bytes.withUnsafeBytes { raw in
        let header = try EventCodec.header(raw, lsn: lsn)
        if header.kind == .schema {
          let previous = try catalog.follow(schemaEvent: header)
          collections[header.collection] = nil
          let isNew = !stored.contains(header.collection)
          let now = try collection(header.collection)
          if !isNew { try target.catalog.write(id: now.id, name: now.name, versions: now.versions, txn) }
          if let previous {
            switch SchemaEvolution.between(stored: previous, declared: now.schema) {
            case .compatible(_, let added, let dropped):
              try IndexMaintenance.rebuild(adding: added, dropping: dropped, in: now, txn)
            case .needsMigration:
              migratedFrom[now.id] = previous
            case .unchanged:
              break
            }
          }
          return
        }
        let id = try catalog.entry(for: header).id
        let target = try collection(id)
        let key = try header.key(target.schema.primaryKey)
        if nextRows[id] == nil { nextRows[id] = try target.nextRow(txn) }
        let nextRow = nextRows[id] ?? 1
        let place = try target.row(of: key, txn)
        try RowTracker.check(
          lsn: lsn, key: key, row: header.row, previousLSN: header.previousLSN, isUpsert: header.isUpsert,
          stored: place, nextRow: nextRow)
        let old = try place.flatMap { try target.record(at: $0.row, txn) }.map { Array($0) }
        let kind: RecordChange.Kind = header.isUpsert ? (place == nil ? .inserted : .updated) : .deleted
        if kind == .inserted { nextRows[id] = nextRow + 1 }
        let payloadStart = raw.count - EventCodec.checksumSize - header.payload.count
        var change = RecordChange(
          kind: kind, key: key, row: header.row, oldRecord: old, previousLSN: header.previousLSN ?? 0,
          event: bytes, recordStart: payloadStart, recordEnd: raw.count - EventCodec.checksumSize)
        change.lsn = lsn
        changes[id, default: []].append(change)
      }
    }
    for (id, own) in changes.sorted(by: { $0.key < $1.key }) {
      try collection(id).apply(
        own, nextRow: nextRows[id] ?? 1, txn, oldSchema: migratedFrom[id],
        recentCapacity: target.options.recentCapacity)
    }
    // A migration writes its rows' state only; their indexes are built again once all are written.
    for id in migratedFrom.keys.sorted() { try collection(id).rebuildIndexes(txn) }
  }
}
