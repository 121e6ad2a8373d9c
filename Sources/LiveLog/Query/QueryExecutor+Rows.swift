import LMDB

extension QueryExecutor {
  /// Every row of the collection, ascending.
  func everyRow() throws -> [Row] { try collection.everyRow(txn, recent: indexes.recent) }

  /// The candidates whose records match `predicate`, checked one record at a time (on every
  /// core, a part each, when they are many and there is no limit to stop at); `checked` counts
  /// the records read.
  func check(_ candidates: [Row], _ predicate: Predicate, limit: Int?, checked: inout Int) throws -> [Row] {
    if limit == nil, candidates.count >= Self.parallelCheckMinimum, let read = txn as? Transaction {
      checked += candidates.count
      return try checkOnEveryCore(candidates, predicate, read)
    }
    let compiled = CompiledPredicate(predicate)
    var rows: [Row] = []
    var scratch: [UInt8] = []
    scratch.reserveCapacity(256)
    var count = 0
    try collection.forEachRecord(of: candidates, txn, recent: indexes.recent) { row, record in
      count += 1
      if try compiled.matches(RecordView(bytes: record, row: row), scratch: &scratch) {
        rows.append(row)
        if let limit, rows.count >= limit { return false }
      }
      return true
    }
    checked += count
    return rows
  }

  /// How many candidates make checking them on every core worth waking the workers (some
  /// microseconds) for: a check costs from a few tenths of a microsecond (a record in the cache,
  /// two integers compared) to more than one (a record read from memory, text folded).
  static var parallelCheckMinimum: Int { 256 }

  /// `check` of many candidates, without a limit, in a read-only transaction: contiguous parts
  /// of the candidates are checked on every core, each part reading its records with cursors of
  /// its own in the caller's transaction (read-only LMDB transactions may be read from several
  /// threads at once: `Snapshot`), while this thread waits inside it.
  private func checkOnEveryCore(_ candidates: [Row], _ predicate: Predicate, _ read: Transaction) throws
    -> [Row]
  {
    try collection.prepareForReadsOnEveryCore(read)
    let shared = MapShared((read: read, recent: indexes.recent))
    let collection = collection
    @Sendable func checkPart(_ part: Range<Int>) throws -> [Row] {
      let (read, recent) = shared.value
      // Each part compiles its own copy: the predicate's nodes are reference-counted, and
      // counting shared ones from every core at once costs more than the check itself.
      let compiled = CompiledPredicate(predicate)
      var rows: [Row] = []
      var scratch: [UInt8] = []
      scratch.reserveCapacity(256)
      try collection.forEachRecord(of: Array(candidates[part]), read, recent: recent) { row, record in
        if try compiled.matches(RecordView(bytes: record, row: row), scratch: &scratch) { rows.append(row) }
        return true
      }
      return rows
    }
    let outcomes = try ParallelMap.mapParts(candidates.count, minimum: Self.parallelCheckMinimum / 2) {
      part in
      Result { try checkPart(part) }
    }
    // The first failure, by part, is the answer, unless it echoes another's: a part that meets a
    // damaged page fails the shared transaction, and parts still reading it then fail with
    // MDB_BAD_TXN.
    let failures = outcomes.compactMap { outcome -> (any Error)? in
      if case .failure(let error) = outcome { return error }
      return nil
    }
    if let failure = failures.first(where: { ($0 as? LMDBError)?.isFailedTransaction != true })
      ?? failures.first
    {
      throw failure
    }
    return outcomes.flatMap { (try? $0.get()) ?? [] }
  }
}
