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
    if damaged || (header?.through ?? 0) > last {
      try checkpoints.rebuild(
        log: log, interval: header?.interval ?? options.checkpointInterval, environment: environment)
      return
    }
    if let header, header.through == last { return }
    var done = header?.through ?? 0
    repeat {
      let end = min(last, done + 200_000)
      try environment.write { txn in try recordCheckpoints(through: end, txn) }
      done = end
    } while done < last
  }

  /// Rebuilds the checkpoints of a replay's target from its copied log (or the source's, below),
  /// with `source`'s interval:
  /// a store and its replay hold the same checkpoints. Source checkpoints whose header does not
  /// read are what a repair rebuilds (`Store.repairRebuilds`): their interval is then the
  /// source's option, as for a store made before checkpoints.
  ///
  /// `log`, when given, is the source's log as of a snapshot, through its `last` event, which
  /// the checkpoints then summarize: the target holds no copy of it (a verification's).
  func rebuildCheckpoints(like source: Store, log sourceLog: (snapshot: Snapshot, last: UInt64)? = nil) throws
  {
    guard let checkpoints else { return }
    var interval: UInt64?
    do {
      interval = try source.checkpoints.flatMap { checkpoints in
        try source.environment.read { try checkpoints.header($0)?.interval }
      }
    } catch is StoreError {
    } catch let error as LMDBError where error.isDamagedPage {}
    try checkpoints.rebuild(
      log: sourceLog == nil ? log : source.log, interval: interval ?? source.options.checkpointInterval,
      environment: environment, source: sourceLog)
  }
}
