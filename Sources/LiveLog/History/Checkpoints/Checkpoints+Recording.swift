import LMDB

extension Checkpoints {
  /// Summarizes the events after the header's `through` up to `last` (the log's end in `txn`), and
  /// moves `through` to `last`; a store without a header yet starts at the first event, with
  /// `interval`. Every commit calls it after appending its events, so it reads just those; the
  /// first writable open of a store made before checkpoints reads the whole log once.
  func record(through last: UInt64, log: EventLog, interval: UInt64, _ txn: WriteTransaction) throws {
    try record(through: last, log: log, reading: txn, interval: interval, txn)
  }

  /// `record(through:log:interval:_:)` with the log read in `events`, which may be another
  /// store's (a verification's scratch store holds no copy of the log it summarizes).
  private func record(
    through last: UInt64, log: EventLog, reading events: some ReadableTransaction, interval: UInt64,
    _ txn: WriteTransaction
  ) throws {
    let stored = try self.header(txn)
    var header = stored ?? Header(interval: max(interval, 1), through: 0)
    guard header.through <= last else {
      throw StoreError.corruptState(
        reason: "the checkpoints reach LSN \(header.through), past the log's end \(last); "
          + "run `livelog replay --in-place` to rebuild them")
    }
    guard header.through < last else {
      if stored == nil { try setHeader(header, txn) }
      return
    }
    var recorder = Recorder(checkpoints: self, interval: header.interval)
    try log.forEachRaw(from: header.through + 1, through: last, events) { lsn, bytes in
      try recorder.follow(try EventCodec.header(bytes, lsn: lsn), log: log, reading: events, txn)
      return true
    }
    header.through = last
    try setHeader(header, txn)
  }

  /// Empties the database and summarizes the whole log again with `interval`, in transactions of
  /// `eventsPerTransaction` events: what a replay does once it has copied the log (or, for a
  /// verification, read from the source; see `source`).
  ///
  /// `source`, when given, is where the log is read instead of `environment`, through its `last`
  /// event: a verification's scratch store summarizes the live log as of its snapshot rather than
  /// copying it first.
  func rebuild(
    log: EventLog, interval: UInt64, environment: Environment,
    source: (snapshot: Snapshot, last: UInt64)? = nil, eventsPerTransaction: UInt64 = 200_000
  ) throws {
    let last = try source?.last ?? environment.read { try log.lastLSN($0) }
    try environment.write { txn in
      try txn.removeAll(database)
      try setHeader(Header(interval: max(interval, 1), through: 0), txn)
    }
    var done: UInt64 = 0
    while done < last {
      let end = min(last, done + eventsPerTransaction)
      if let source {
        try source.snapshot.read { events in
          try environment.write { txn in
            try record(through: end, log: log, reading: events, interval: interval, txn)
          }
        }
      } else {
        try environment.write { txn in try record(through: end, log: log, interval: interval, txn) }
      }
      done = end
    }
  }

  /// Writes one run of events' entries.
  private struct Recorder {
    let checkpoints: Checkpoints
    let interval: UInt64
    /// Intervals and collections whose first created row is known to be written. Every new row
    /// looks here, so the set is keyed by two integers: building and hashing a byte key for each
    /// one cost a replay a third of this summary's time.
    var created: Set<CreatedInterval> = []

    struct CreatedInterval: Hashable {
      var collection: UInt32
      /// The interval's number, `k`.
      var number: UInt64
    }

    mutating func follow(
      _ header: EventHeader, log: EventLog, reading events: some ReadableTransaction, _ txn: WriteTransaction
    ) throws {
      guard header.kind != .schema else { return }
      let database = checkpoints.database
      let collection = Checkpoints.collectionID(header)
      let k = (header.lsn - 1) / interval
      let start = k * interval
      guard let previous = header.previousLSN else {
        // A new row: only the interval's first one is kept; rows count up, so later ones are larger.
        guard created.insert(CreatedInterval(collection: collection, number: k)).inserted else { return }
        let key = Checkpoints.createdKey(collection: collection, interval: k)
        if try txn.get(database, key) == nil {
          var value: [UInt8] = []
          value.appendLittleEndian(header.row)
          try txn.put(database, key, value)
        }
        return
      }
      let versionKey = Checkpoints.versionKey(collection: collection, row: header.row, interval: k)
      if previous <= start {
        // The interval's first change of a row that existed at its checkpoint.
        var value: [UInt8] = []
        value.appendLittleEndian(previous)
        try txn.put(database, versionKey, value)
      } else if try txn.get(database, versionKey) == nil {
        // Created in this interval: no query as of its checkpoint or earlier sees the row.
        return
      }
      var slots: [UInt16] = []
      if header.isUpsert {
        let old = try log.record(at: previous, events)
        do {
          slots = try RecordSlots.changed(old, header.payload).map { UInt16($0) }
        } catch {
          throw StoreError.corruptEvent(
            lsn: header.lsn, reason: "its record or the one it replaces: \(error)")
        }
      } else {
        slots = [Checkpoints.deletedSlot]
      }
      for slot in slots {
        try txn.put(
          database, Checkpoints.changedKey(collection: collection, interval: k, slot: slot, row: header.row),
          [1])
      }
    }
  }
}
