import LMDB

/// Runs a `Migration` inside the write transaction that records the new schema: a schema event,
/// then one upsert per record whose encoding changes, all one commit.
struct SchemaMigrator {
  let store: Store
  let migration: Migration
  let time: CommitTime

  /// Changes per batch of materialization: bounds what waits in memory.
  static let batchSize = 16_384

  func run(stored: StoredCollection, declared: CollectionSchema, firstLSN: UInt64, _ txn: WriteTransaction)
    throws
  {
    func refuse(_ field: String?, _ message: String) -> SchemaError {
      SchemaError(collection: stored.name, field: field, message: message)
    }
    guard declared.primaryKey.type == stored.schema.primaryKey.type else {
      throw refuse(
        declared.primaryKey.name,
        "a migration cannot change the primary key's type (\(stored.schema.primaryKey.type) to "
          + "\(declared.primaryKey.type)); create a new collection and copy the records into it")
    }
    let schema = try SchemaEvolution.migrated(stored: stored.schema, declared: declared).validated()
    let version = stored.version + 1
    let migrated = stored.with(SchemaVersion(version: version, lsn: firstLSN, schema: schema))
    let slots = declared.fields.map { schema.field(named: $0.name)?.position ?? 0 }
    var pending = EventCollector(firstLSN: firstLSN)
    pending.add(
      EventCodec.beginSchema(
        schema, time: time,
        .init(collection: stored.id, schemaVersion: version, row: 0, previous: stored.versions.last?.lsn ?? 0)
      ))
    let total = try stored.count(txn)
    var done = 0
    var changes: [RecordChange] = []
    let nextRow = try stored.nextRow(txn)
    func flush() throws {
      try pending.appendSealed(to: store.log, txn, keepingLast: true, into: &changes)
      try migrated.apply(changes, nextRow: nextRow, txn, oldSchema: stored.schema)
      changes.removeAll(keepingCapacity: true)
    }
    // Rows are read first: the upserts rewrite the state they are read from.
    let rows = try stored.everyRow(txn).map { UInt64($0) }
    for row in rows {
      guard let bytes = try stored.record(at: row, txn) else { continue }
      let oldBytes = Array(bytes)
      let old = RecordValues(schema: stored.schema, values: try stored.values(bytes, row: row))
      guard let key = old.primaryKey, let (_, previous) = try stored.row(of: key, txn) else {
        throw StoreError.corruptState(reason: "\(stored.name): the record at row \(row) has no key")
      }
      let declaredValues = try migration.transform(old, declared)
      var values = [FieldValue](repeating: .null, count: schema.slotCount)
      for (index, value) in declaredValues.enumerated() where index < slots.count {
        values[slots[index]] = value
      }
      let new = RecordValues(schema: schema, values: values)
      if let (field, problem) = new.firstMismatch() {
        throw refuse(field.name, "the migration of the record with key \(key) gives a value that \(problem)")
      }
      guard new.primaryKey == key else {
        throw refuse(
          schema.primaryKey.name, "the migration changed the key of the record \(key); keys must stay")
      }
      let (event, start) = EventCodec.beginUpsert(
        values, time: time, .init(collection: stored.id, schemaVersion: version, row: row, previous: previous)
      )
      var change = RecordChange(
        kind: .updated, key: key, row: row, oldRecord: oldBytes, previousLSN: previous, event: event,
        recordStart: start, recordEnd: event.count, newValues: values)
      change.lsn = pending.add(event)
      changes.append(change)
      done += 1
      if changes.count >= SchemaMigrator.batchSize {
        try flush()
        store.options.progress?(
          StoreProgress(step: .migrating(collection: stored.name), completed: done, total: total))
      }
    }
    try pending.appendSealed(to: store.log, txn, keepingLast: false, into: &changes)
    try store.recordCheckpoints(through: pending.nextLSN - 1, txn)
    try migrated.apply(changes, nextRow: nextRow, txn, oldSchema: stored.schema)
    // The batches wrote the rows' state only: the indexes are built again, under the new schema.
    try migrated.rebuildIndexes(txn)
    store.options.progress?(
      StoreProgress(step: .migrating(collection: stored.name), completed: done, total: total))
    try store.catalog.write(id: stored.id, name: stored.name, versions: migrated.versions, txn)
  }
}

/// The events of one commit as they are made: each takes the next LSN, and each is sealed and
/// appended once it is known not to be the commit's last (the last one carries the commit-end
/// flag, sealed when the commit is complete).
struct EventCollector {
  private(set) var nextLSN: UInt64
  /// Unsealed events with their LSNs, not yet appended.
  private var waiting: [(lsn: UInt64, bytes: [UInt8])] = []

  init(firstLSN: UInt64) { nextLSN = firstLSN }

  /// Takes an unsealed event; returns its LSN.
  @discardableResult
  mutating func add(_ bytes: [UInt8]) -> UInt64 {
    waiting.append((nextLSN, bytes))
    nextLSN += 1
    return nextLSN - 1
  }

  /// Seals and appends the waiting events (all but the last when `keepingLast`); the record
  /// changes whose events these are get their sealed bytes (their records are read from them).
  mutating func appendSealed(
    to log: EventLog, _ txn: WriteTransaction, keepingLast: Bool, into changes: inout [RecordChange]
  ) throws {
    let count = keepingLast ? waiting.count - 1 : waiting.count
    guard count > 0 else { return }
    var byLSN: [UInt64: Int] = [:]
    for (index, change) in changes.enumerated() { byLSN[change.lsn] = index }
    for index in 0..<count {
      var (lsn, bytes) = waiting[index]
      EventCodec.seal(&bytes, lsn: lsn, endsCommit: !keepingLast && index == count - 1)
      try log.append(bytes, at: lsn, txn)
      if let position = byLSN[lsn] { changes[position].event = bytes }
    }
    waiting.removeFirst(count)
  }
}
