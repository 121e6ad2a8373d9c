import LMDB

extension Store {
  /// Applies `mutations` — of any collections — as one atomic commit and returns what it did;
  /// live queries of this process hear of the commit at once. For writes that read first (an
  /// increment, a conditional write), use `write(expecting:_:)` with a closure.
  ///
  /// Within the batch the last mutation on a key wins. An upsert identical to the stored record,
  /// or a delete of a key the collection lacks, writes no event. Either every event of the
  /// commit and its materialized state are written, or (on any error) nothing is. A record type's
  /// collection is created (or evolved to its declaration) the first time it is written.
  @discardableResult
  public func write(_ mutations: [Mutation]) throws -> CommitSummary {
    try commit(expecting: nil, grouped: true) { _, _ in (mutations, ()) }.summary
  }

  /// Applies `mutations` as one atomic commit; see `write(_:)` for arrays.
  @discardableResult
  public func write(_ mutations: some Sequence<Mutation>) throws -> CommitSummary {
    try write(Array(mutations))
  }

  /// Runs `produce` in one LMDB write transaction and commits the mutations it returns, with
  /// the value it returns. `produce` may run more than once: when a collection it writes must be
  /// created or evolved first (which takes its own transaction), when another process changed a
  /// schema meanwhile, and when the map grows. `grouped`: the commit may share its transaction
  /// and fsync with other threads' (`Environment.writeGrouped`; `produce` may then run on
  /// another writer's thread).
  func commit<T>(
    expecting version: UInt64?, grouped: Bool = false,
    _ produce: (WriteTransaction, CatalogState) throws -> (mutations: [Mutation], value: T)
  ) throws -> (summary: CommitSummary, value: T) {
    guard !options.readOnly else { throw StoreError.readOnly(path: directory) }
    do {
      while true {
        let time = CommitTime.now
        let outcome: CommitOutcome<T>
        do {
          outcome = try writeCommit(grouped: grouped) { txn -> CommitOutcome<T> in
            guard let state = try catalog.state(in: txn) else { return .again([]) }
            if let version {
              let current = try log.lastLSN(txn)
              guard current == version else {
                throw StoreError.versionConflict(expected: version, found: current)
              }
            }
            let (mutations, value) = try produce(txn, state)
            let batch = Batch(mutations)
            var targets: [String: WriteTarget] = [:]
            var missing: [CollectionSchema] = []
            for index in batch.indices where targets[mutations[index].collection] == nil {
              let declaration = mutations[index].declaration
              // A record type is written only once its declaration is known to read its records back.
              if let type = mutations[index].recordType { try type.checkLayout() }
              guard let stored = state.collection(named: declaration.name),
                SchemaEvolution.between(stored: stored.schema, declared: declaration) == .unchanged
              else {
                if !missing.contains(where: { $0.name == declaration.name }) { missing.append(declaration) }
                continue
              }
              targets[declaration.name] = WriteTarget(stored, declaration)
            }
            guard missing.isEmpty else { return .again(missing) }
            return .committed(try commit(mutations, batch, targets, time, txn), value)
          }
        } catch let needed as TransactionNeedsCollection {
          try needed.recordType.bind(in: self)
          outcome = .again([])
        }
        switch outcome {
        case .committed(let summary, let value): return (summary, value)
        case .again(let declarations):
          // Outside the write transaction: creating or evolving a collection is a commit of its own.
          try catalog.refresh()
          for declaration in declarations { _ = try ensureCollection(declaration) }
        }
      }
    } catch let error as LMDBError where error.isMapLimitReached {
      throw StoreError.mapLimitReached(
        path: directory, maximum: options.maximumMapSize ?? environment.info.mapSize)
    } catch let error as LMDBError where error.isDiskFull {
      throw StoreError.diskFull(path: directory, reason: error.description)
    }
  }

  private func commit(
    _ mutations: [Mutation], _ batch: Batch, _ targets: [String: WriteTarget], _ time: CommitTime,
    _ txn: WriteTransaction
  ) throws -> CommitSummary {
    var summary = CommitSummary()
    var nextRows: [UInt32: UInt64] = [:]
    for target in targets.values { nextRows[target.collection.id] = try target.collection.nextRow(txn) }
    var changes: [(collection: UInt32, change: RecordChange)] = []
    changes.reserveCapacity(batch.count)
    for index in batch.indices {
      let mutation = mutations[index]
      guard let target = targets[mutation.collection] else { continue }
      let collection = target.collection
      switch mutation.change {
      case .upsert(let declared):
        let values = target.slotValues(declared)
        if let (field, problem) = RecordValues(schema: collection.schema, values: values).firstMismatch() {
          throw StoreError.invalidRecord(collection: collection.name, field: field.name, reason: problem)
        }
        guard let key = PrimaryKey(values[collection.schema.primaryKey.position]) else { continue }
        if let (row, current) = try collection.row(of: key, txn) {
          guard let stored = try collection.record(at: row, txn) else {
            throw StoreError.corruptState(
              reason: "\(collection.name): key \(key) maps to row \(row), which has no record")
          }
          let (event, start) = EventCodec.beginUpsert(
            values, time: time, target.place(row: row, previous: current))
          // A record written before the schema gained fields has fewer slots: compare by value.
          var identical = EventCodec.record(in: event, from: start, equals: stored)
          if !identical && RecordCodec.storedSlotCount(stored) != values.count {
            identical = try collection.values(stored, row: row) == values
          }
          if identical {
            summary.unchanged += 1
            continue
          }
          changes.append(
            (
              collection.id,
              RecordChange(
                kind: .updated, key: key, row: row, oldRecord: Array(stored), previousLSN: current,
                event: event,
                recordStart: start, recordEnd: event.count, newValues: values)
            ))
          summary.updated += 1
        } else {
          let row = nextRows[collection.id] ?? 1
          let (event, start) = EventCodec.beginUpsert(values, time: time, target.place(row: row, previous: 0))
          changes.append(
            (
              collection.id,
              RecordChange(
                kind: .inserted, key: key, row: row, previousLSN: 0, event: event, recordStart: start,
                recordEnd: event.count, newValues: values)
            ))
          nextRows[collection.id] = row + 1
          summary.inserted += 1
        }
      case .delete(let key):
        guard key.fieldType == collection.schema.primaryKey.type,
          let (row, current) = try collection.row(of: key, txn)
        else {
          summary.unchanged += 1
          continue
        }
        let stored = try collection.record(at: row, txn).map { Array($0) }
        let event = EventCodec.beginDelete(key, time: time, target.place(row: row, previous: current))
        changes.append(
          (
            collection.id,
            RecordChange(
              kind: .deleted, key: key, row: row, oldRecord: stored, previousLSN: current, event: event,
              recordStart: 0, recordEnd: 0)
          ))
        summary.deleted += 1
      }
    }
    guard !changes.isEmpty else { return summary }
    var lsn = try log.lastLSN(txn)
    summary.firstLSN = lsn + 1
    for index in changes.indices {
      lsn += 1
      changes[index].change.lsn = lsn
      EventCodec.seal(&changes[index].change.event, lsn: lsn, endsCommit: index == changes.count - 1)
      try log.append(changes[index].change.event, at: lsn, txn)
    }
    try recordCheckpoints(through: lsn, txn)
    summary.lastLSN = lsn
    summary.commits = 1
    for target in targets.values.sorted(by: { $0.collection.id < $1.collection.id }) {
      let own = changes.filter { $0.collection == target.collection.id }.map(\.change)
      guard !own.isEmpty else { continue }
      try target.collection.apply(
        own, nextRow: nextRows[target.collection.id] ?? 1, txn, recentCapacity: options.recentCapacity)
    }
    return summary
  }
}

/// How one attempt of a commit ended.
private enum CommitOutcome<T> {
  case committed(CommitSummary, T)
  /// The catalog changed, or these collections must be created or evolved first.
  case again([CollectionSchema])
}

/// A collection a commit writes to, with where its declaration's fields are stored.
private struct WriteTarget {
  let collection: StoredCollection
  /// Each declared field's position in the declaration and its slot in the collection.
  let pairs: [(declared: Int, stored: Int)]
  /// Whether every declared field is stored at its own position (the common case).
  let isIdentity: Bool

  init(_ collection: StoredCollection, _ declaration: CollectionSchema) {
    self.collection = collection
    pairs = declaration.fields.enumerated().compactMap { index, field in
      collection.schema.field(named: field.name, probablyAt: index).map { (field.position, $0.position) }
    }
    isIdentity =
      pairs.allSatisfy { $0.declared == $0.stored } && declaration.slotCount == collection.schema.slotCount
  }

  /// Values by position of the declaration, as values by slot of the collection.
  func slotValues(_ declared: [FieldValue]) -> [FieldValue] {
    let count = collection.schema.slotCount
    if isIdentity && declared.count == count { return declared }
    var values = [FieldValue](repeating: .null, count: count)
    for pair in pairs where pair.declared < declared.count { values[pair.stored] = declared[pair.declared] }
    return values
  }

  func place(row: UInt64, previous: UInt64) -> EventCodec.Target {
    .init(collection: collection.id, schemaVersion: collection.version, row: row, previous: previous)
  }
}

/// Which mutations of a batch take effect: the last on each key of each collection, in the order
/// of those last mutations.
struct Batch {
  /// Positions in the batch of the mutations that take effect.
  var indices: [Int]

  init(_ mutations: [Mutation]) {
    struct Target: Hashable {
      var collection: String
      var key: PrimaryKey?
    }
    var latest: [Target: Int] = [:]
    latest.reserveCapacity(mutations.count)
    for index in mutations.indices {
      latest[Target(collection: mutations[index].collection, key: mutations[index].key)] = index
    }
    if latest.count == mutations.count {
      indices = Array(mutations.indices)
    } else {
      indices = mutations.indices.filter {
        latest[Target(collection: mutations[$0].collection, key: mutations[$0].key)] == $0
      }
    }
  }

  var count: Int { indices.count }
}
