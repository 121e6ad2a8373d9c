import LMDB

extension CollectionVersion {
  /// The rows that matched `query` (bound to the collection) at a version read from a checkpoint.
  ///
  /// A row's membership then differs from now only if it was created since (a comparison with
  /// `base.firstNewRow`), changed between the version and its checkpoint (`history.versions`, each
  /// checked against its record of then), or changed after the checkpoint in a field the predicate
  /// reads, or deleted (the checkpoints list those rows by field: each is checked too). Every other
  /// row that matches now matched then, so the current indexes answer for it. Most changes touch
  /// fields a given query does not read — the benchmark's new star counts never meet a search by
  /// name — and those rows cost nothing.
  ///
  /// A sorted query with a limit reads only the first rows of now in its order (a top-k walk)
  /// among rows whose sort keys did not change either, widening the window while too few of them
  /// are left; the rows whose keys changed are sorted by their values of then.
  func rowsFromCheckpoint(_ query: Query, base: CheckpointBase) throws -> [Row] {
    let txn = records.txn
    let compiled = CompiledPredicate(query.predicate)
    let predicateSlots = query.predicate.slotsRead
    let changed = try base.changedRows(
      slots: predicateSlots.map { UInt16(truncatingIfNeeded: $0) } + [Checkpoints.deletedSlot], txn)
    func isRecent(_ row: Row) -> Bool { history.versions[row] != nil || base.isNew(row) }
    // Rows whose membership then must be read from their records of then.
    var then: [Row] = []
    for row in changed where !isRecent(row) {
      if try compiled.matches(RecordView(bytes: record(row), row: row)) { then.append(row) }
    }
    for (row, _) in history.versions where try compiled.matches(RecordView(bytes: record(row), row: row)) {
      then.append(row)
    }
    then = RowSet.normalized(then)
    var run = QueryRun(collection: collection, txn: txn, explaining: false)
    let now = try run.rows(for: Query(predicate: query.predicate))
    let same = now.filter { !isRecent($0) && !RowSet.contains(changed, $0) }
    var rows = RowSet.union(same, then)
    if !query.sort.isEmpty {
      if let limit = query.limit,
        let top = try topRows(
          query, limit: limit, members: same, changedMembership: changed, base: base, &run)
      {
        // The first `limit` rows of now whose keys are as they were, and every member whose keys
        // may differ: the first `limit` of then are among them.
        rows = RowSet.union(top.stable, top.moved)
        rows = RowSet.union(rows, then)
      }
      rows = try SortOrder.sorted(rows, by: query.sort, limit: query.limit, record: record)
    }
    if let limit = query.limit, rows.count > limit { rows.removeLast(rows.count - limit) }
    return rows
  }

  /// For a sorted, limited query: the first `limit` rows of now, in the query's order, among the
  /// members whose sort keys no event after the version changed (`stable`), and the members whose
  /// keys may have changed (`moved`); `nil` when the walk would read more rows than sorting them all.
  private func topRows(
    _ query: Query, limit: Int, members same: [Row], changedMembership: [Row], base: CheckpointBase,
    _ run: inout QueryRun<Transaction>
  ) throws -> (stable: [Row], moved: [Row])? {
    let sortSlots = query.sort.map { UInt16(truncatingIfNeeded: $0.field.position) }
    let changedKeys = try base.changedRows(slots: sortSlots, records.txn)
    let moved = RowSet.intersection(same, changedKeys)
    var window = limit * 2 + 16
    while window <= Self.topKWindow {
      let first = try run.rows(for: Query(predicate: query.predicate, sort: query.sort, limit: window))
      var stable: [Row] = []
      for row in first
      where RowSet.contains(same, row) && !RowSet.contains(changedKeys, row) && stable.count < limit {
        stable.append(row)
      }
      if stable.count >= limit || first.count < window { return (RowSet.normalized(stable), moved) }
      window *= 8
    }
    return nil
  }
}
