import LMDB

extension QueryExecutor {
  /// Every row of the collection, ascending.
  func everyRow() throws -> [Row] { try collection.everyRow(txn, recent: indexes.recent) }

  /// The candidates whose records match `predicate`, checked one record at a time; `checked`
  /// counts the records read.
  func check(_ candidates: [Row], _ predicate: Predicate, limit: Int?, checked: inout Int) throws -> [Row] {
    let compiled = CompiledPredicate(predicate)
    if limit == nil, candidates.count >= Self.parallelCheckMinimum, let read = txn as? Transaction {
      checked += candidates.count
      return try checkOnEveryCore(candidates, predicate, read)
    }
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

  /// How many candidates make checking them on every core worth starting the workers (about
  /// 20 µs) for: each check costs from a fraction of a microsecond (two integers compared) up.
  static var parallelCheckMinimum: Int { 8_192 }

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
    let parts = try ParallelMap.mapParts(candidates.count, minimum: 2_048) { part in
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
    return Array(parts.joined())
  }
}
