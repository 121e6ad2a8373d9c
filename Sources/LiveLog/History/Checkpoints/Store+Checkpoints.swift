import LMDB

extension Store {
  /// Summarizes, in a commit's write transaction, the events it appended (through `last`), and
  /// any before them that no summary holds yet: the one call of each path that appends events.
  func recordCheckpoints(through last: UInt64, _ txn: WriteTransaction) throws {
    try checkpoints?.record(through: last, log: log, interval: options.checkpointInterval, txn)
  }

  /// Brings the checkpoints up to the log's end when a writable open finds them behind it (a store
  /// made before checkpoints, or written by a LiveLog without them), in transactions of at most
  /// 200,000 events. Checkpoints that do not read (a damaged header, or a summary past the log's
  /// end) are derived data: they are rebuilt rather than keeping the store from opening.
  func catchUpCheckpoints() throws {
    guard let checkpoints else { return }
    let (header, damaged, last) = try environment.read { txn -> (Checkpoints.Header?, Bool, UInt64) in
      let last = try log.lastLSN(txn)
      do {
        return (try checkpoints.header(txn), false, last)
      } catch is StoreError {
        return (nil, true, last)
      }
    }
    var done = header?.through ?? 0
    if damaged || done > last {
      // Emptied, and summarized again from the first event below, a run of events at a time: a
      // summary of the whole log in memory (a replay's) would hold all its entries at once.
      try environment.write { txn in
        try checkpoints.empty(interval: header?.interval ?? options.checkpointInterval, txn)
      }
      done = 0
    } else if done == last, header != nil {
      return
    }
    repeat {
      let end = min(last, done + 200_000)
      try environment.write { txn in try recordCheckpoints(through: end, txn) }
      done = end
    } while done < last
  }

  /// The checkpoints a replay's target is to hold: `source`'s log as of `snapshot`, through
  /// `last`, summarized with `source`'s interval (a store and its replay hold the same
  /// checkpoints); `nil` when this store keeps none. The log is read in `snapshot` alone, so this
  /// may run on any thread beside the replay's writes: the source's log is what the replay
  /// copies, and a verification's target holds no copy. Source checkpoints whose header does not
  /// read are what a repair rebuilds (`Store.repairRebuilds`): their interval is then the
  /// source's option, as for a store made before checkpoints.
  func checkpointSummary(like source: Store, _ snapshot: Snapshot, through last: UInt64) throws
    -> Checkpoints.Summary?
  {
    guard checkpoints != nil else { return nil }
    var interval: UInt64?
    do {
      interval = try source.checkpoints.flatMap { checkpoints in
        try source.environment.read { try checkpoints.header($0)?.interval }
      }
    } catch is StoreError {
    } catch let error as LMDBError where error.isDamagedPage {}
    return try snapshot.read { events in
      try Checkpoints.Summary(
        log: source.log, through: last, interval: interval ?? source.options.checkpointInterval, events)
    }
  }

  /// Replaces this store's checkpoints with `summary`, in one write transaction.
  func writeCheckpoints(_ summary: Checkpoints.Summary?) throws {
    guard let checkpoints, let summary else { return }
    try environment.write { txn in try checkpoints.replaceAll(with: summary, txn) }
  }
}
