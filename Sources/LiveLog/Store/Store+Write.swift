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
    // The targets in collection order, and each mutation's place among them.
    let named = targets.sorted { $0.value.collection.id < $1.value.collection.id }
    let order = named.map(\.value)
    let places = Self.places(of: mutations, batch, among: named.map(\.key))
    var nextRows = try order.map { try $0.collection.nextRow(txn) }
    let recentIndexes = try RecentIndexJob.start(
      for: mutations, batch, places, order, options.recentCapacity, txn)
    defer { recentIndexes?.cancel() }
    var prepared = try PreparedUpsert.prepare(mutations, batch, order, places)
    var changes: [RecordChange] = []
    var owners: [Int] = []
    changes.reserveCapacity(batch.count)
    owners.reserveCapacity(batch.count)
    for (position, index) in batch.indices.enumerated() {
      guard let place = places[position] else { continue }
      let collection = order[place].collection
      switch mutations[index].change {
      case .upsert:
        // A record's error is thrown in the batch's order, as if the records were checked here.
        // Taken, not copied: no retains, and the record's bytes go once its event holds them (a
        // large batch's second copy, gone before the fold).
        guard let upsert = try prepared[position].take()?.get() else { continue }
        if let (row, current) = try collection.row(of: upsert.key, txn) {
          guard let stored = try collection.record(at: row, txn) else {
            throw StoreError.corruptState(
              reason: "\(collection.name): key \(upsert.key) maps to row \(row), which has no record")
          }
          // A record written before the schema gained fields has fewer slots: compare by value.
          var identical = upsert.record.withUnsafeBytes { ByteOrder.compare($0, stored) == 0 }
          if !identical && RecordCodec.storedSlotCount(stored) != upsert.values.count {
            identical = try collection.values(stored, row: row) == upsert.values
          }
          if identical {
            summary.unchanged += 1
            continue
          }
          let (event, start) = EventCodec.beginUpsert(
            record: upsert.record, time: time, order[place].place(row: row, previous: current))
          changes.append(
            RecordChange(
              kind: .updated, key: upsert.key, row: row, oldRecord: Array(stored), previousLSN: current,
              event: event, recordStart: start, recordEnd: event.count, newValues: upsert.values,
              placeInBatch: position))
          summary.updated += 1
        } else {
          let row = nextRows[place]
          let (event, start) = EventCodec.beginUpsert(
            record: upsert.record, time: time, order[place].place(row: row, previous: 0))
          changes.append(
            RecordChange(
              kind: .inserted, key: upsert.key, row: row, previousLSN: 0, event: event, recordStart: start,
              recordEnd: event.count, newValues: upsert.values, placeInBatch: position))
          nextRows[place] = row + 1
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
        let event = EventCodec.beginDelete(key, time: time, order[place].place(row: row, previous: current))
        changes.append(
          RecordChange(
            kind: .deleted, key: key, row: row, oldRecord: stored, previousLSN: current, event: event,
            recordStart: 0, recordEnd: 0))
        summary.deleted += 1
      }
      owners.append(place)
    }
    guard !changes.isEmpty else { return summary }
    var lsn = try log.lastLSN(txn)
    summary.firstLSN = lsn + 1
    for index in changes.indices {
      lsn += 1
      changes[index].lsn = lsn
      EventCodec.seal(&changes[index].event, lsn: lsn, endsCommit: index == changes.count - 1)
      try log.append(changes[index].event, at: lsn, txn)
    }
    try recordCheckpoints(through: lsn, txn)
    summary.lastLSN = lsn
    summary.commits = 1
    for place in order.indices {
      // A commit to one collection, the usual one, hands its changes over as they are.
      let own =
        order.count == 1 ? changes : zip(owners, changes).compactMap { $0.0 == place ? $0.1 : nil }
      guard !own.isEmpty else { continue }
      try order[place].collection.apply(
        own, nextRow: nextRows[place], txn, recentCapacity: options.recentCapacity,
        recentIndexes: order.count == 1 ? recentIndexes : nil)
    }
    return summary
  }

  /// Each mutation's place (in the batch's order) among the targets' collection `names`; `nil`
  /// for none. Found once per run of one collection's mutations.
  private static func places(of mutations: [Mutation], _ batch: Batch, among names: [String]) -> [Int?] {
    var places: [Int?] = []
    places.reserveCapacity(batch.count)
    var last: (name: String, place: Int?)?
    for index in batch.indices {
      let name = mutations[index].collection
      if let last, last.name == name {
        places.append(last.place)
        continue
      }
      let place = names.firstIndex(of: name)
      last = (name, place)
      places.append(place)
    }
    return places
  }
}

/// What a commit makes of an upsert before its transaction is needed: its values in the
/// collection's slots, checked, its key and its record's bytes. The upserts of a large batch are
/// prepared on every core: this was most of a commit's time spent on one core, the other idle.
private struct PreparedUpsert: Sendable {
  var values: [FieldValue]
  var key: PrimaryKey
  var record: [UInt8]

  /// The upsert of each mutation of `batch` (by its place in the batch) that has a target, or
  /// `nil` (a delete, no target, or a record without a key, which a commit skips); its error,
  /// which the commit throws when it comes to it.
  static func prepare(_ mutations: [Mutation], _ batch: Batch, _ order: [WriteTarget], _ places: [Int?])
    throws
    -> [Result<PreparedUpsert, StoreError>?]
  {
    let indices = batch.indices
    return try ParallelMap.map(indices.count, minimumPerWorker: 512) { position in
      guard let place = places[position], case .upsert(let declared) = mutations[indices[position]].change
      else {
        return nil
      }
      let collection = order[place].collection
      let values = order[place].slotValues(declared)
      if let (field, problem) = RecordValues(schema: collection.schema, values: values).firstMismatch() {
        return .failure(.invalidRecord(collection: collection.name, field: field.name, reason: problem))
      }
      guard let key = PrimaryKey(values[collection.schema.primaryKey.position]) else { return nil }
      return .success(PreparedUpsert(values: values, key: key, record: RecordCodec.encode(values)))
    }
  }
}

extension RecentIndexJob {
  /// The fewest upserts worth a job. An entry takes about 4 µs (profiled in commits of 100
  /// records); a commit of a record or two is left to its thread (its time is held within twice
  /// a raw LMDB append's).
  static let minimumUpserts = 8

  /// A job encoding the index part of the recent entry of each upsert of `batch` (by its place in
  /// the batch), when the commit writes to one collection and will file its changes as recent
  /// rows (as `apply` decides, were every mutation a change), on a machine of two cores or more;
  /// `nil` otherwise. It starts before the upserts are prepared, so it checks each record's values
  /// itself, and skips the faulty.
  fileprivate static func start(
    for mutations: [Mutation], _ batch: Batch, _ places: [Int?], _ order: [WriteTarget],
    _ recentCapacity: Int,
    _ txn: WriteTransaction
  ) throws -> RecentIndexJob? {
    guard order.count == 1, ParallelMap.cores > 1 else { return nil }
    let upserts = batch.indices.count { if case .upsert = mutations[$0].change { true } else { false } }
    guard upserts >= minimumUpserts else { return nil }
    let target = order[0]
    let recent = try txn.statistics(target.collection.databases.recent).entries
    guard RecentRows.files(batch.count, besides: recent, capacity: recentCapacity) else { return nil }
    let (schema, indices) = (target.collection.schema, batch.indices)
    // Taken once, not from every core per record.
    let indexed = schema.indexedFields
    return RecentIndexJob(count: indices.count) { position, encoder in
      guard places[position] != nil, case .upsert(let declared) = mutations[indices[position]].change else {
        return nil
      }
      let values = target.slotValues(declared)
      guard RecordValues(schema: schema, values: values).firstMismatch() == nil else { return nil }
      return encoder.indexes(values: values, fields: indexed)
    }
  }
}

/// How one attempt of a commit ended.
private enum CommitOutcome<T> {
  case committed(CommitSummary, T)
  /// The catalog changed, or these collections must be created or evolved first.
  case again([CollectionSchema])
}

/// A collection a commit writes to, with where its declaration's fields are stored.
private final class WriteTarget: Sendable {
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
    // A batch of one collection, the usual one, is told apart by keys alone, without hashing
    // the collection's name once per mutation on the writer's thread.
    let first = mutations.first?.collection
    indices =
      mutations.allSatisfy { $0.collection == first }
      ? Self.lastIndices(of: mutations) { $0.key }
      : Self.lastIndices(of: mutations) { Target(collection: $0.collection, key: $0.key) }
  }

  /// The indices of the last mutation of each identity (as `identity` tells them), ascending.
  private static func lastIndices<Identity: Hashable>(
    of mutations: [Mutation], by identity: (Mutation) -> Identity
  ) -> [Int] {
    var latest: [Identity: Int] = [:]
    latest.reserveCapacity(mutations.count)
    for index in mutations.indices { latest[identity(mutations[index])] = index }
    if latest.count == mutations.count { return Array(mutations.indices) }
    return mutations.indices.filter { latest[identity(mutations[$0])] == $0 }
  }

  var count: Int { indices.count }
}
