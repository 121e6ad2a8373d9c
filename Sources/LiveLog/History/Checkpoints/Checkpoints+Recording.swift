import LMDB

extension Checkpoints {
  /// Summarizes the events after the header's `through` up to `last` (the log's end in `txn`), and
  /// moves `through` to `last`; a store without a header yet starts at the first event, with
  /// `interval`. Every commit calls it after appending its events, so it reads just those; the
  /// first writable open of a store made before checkpoints reads the whole log once.
  func record(through last: UInt64, log: EventLog, interval: UInt64, _ txn: WriteTransaction) throws {
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
    var recorder = Recorder(
      interval: header.interval, entries: TransactionEntries(checkpoints: self, txn: txn))
    try recorder.follow(log, from: header.through + 1, through: last, txn)
    header.through = last
    try setHeader(header, txn)
  }

  /// Empties the database and writes `summary` in its place, appended in key order.
  func replaceAll(with summary: Summary, _ txn: WriteTransaction) throws {
    try txn.removeAll(database)
    try setHeader(Header(interval: summary.interval, through: summary.through), txn)
    try summary.write(into: database, txn)
  }

  /// Empties the database, to summarize the log again from its first event with `interval`.
  func empty(interval: UInt64, _ txn: WriteTransaction) throws {
    try txn.removeAll(database)
    try setHeader(Header(interval: max(interval, 1), through: 0), txn)
  }

  /// Works out one run of events' entries, in log order, and hands them to `entries`: a
  /// commit's write transaction, or a summary in memory.
  struct Recorder<Entries: CheckpointEntries> {
    let interval: UInt64
    var entries: Entries
    /// Intervals and collections whose first created row is noted. Every new row
    /// looks here, so the set is keyed by two integers: building and hashing a byte key for each
    /// one cost a replay a third of this summary's time.
    var created: Set<CreatedInterval> = []

    struct CreatedInterval: Hashable {
      var collection: UInt32
      /// The interval's number, `k`.
      var number: UInt64
    }

    mutating func follow(_ header: EventHeader, log: EventLog, reading events: some ReadableTransaction)
      throws
    {
      guard header.kind != .schema else { return }
      let collection = Checkpoints.collectionID(header)
      let k = (header.lsn - 1) / interval
      let start = k * interval
      guard let previous = header.previousLSN else {
        // A new row: only the interval's first one is kept; rows count up, so later ones are larger.
        guard created.insert(CreatedInterval(collection: collection, number: k)).inserted else { return }
        try entries.noteCreated(collection: collection, interval: k, row: header.row)
        return
      }
      if previous <= start {
        // The interval's first change of a row that existed at its checkpoint.
        try entries.noteVersion(collection: collection, row: header.row, interval: k, previous: previous)
      } else if try !entries.hasVersion(collection: collection, row: header.row, interval: k) {
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
        try entries.noteChanged(collection: collection, interval: k, slot: slot, row: header.row)
      }
    }

    /// Follows the events `first ... last` of `log`, read in `events`.
    mutating func follow(
      _ log: EventLog, from first: UInt64, through last: UInt64, _ events: some ReadableTransaction
    ) throws {
      try log.forEachRaw(from: first, through: last, events) { lsn, bytes in
        try follow(try EventCodec.header(bytes, lsn: lsn), log: log, reading: events)
        return true
      }
    }
  }
}
