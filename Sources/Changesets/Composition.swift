extension Changeset {
  /// One changeset with the effect of this one followed by `next`.
  ///
  /// `next` must describe the collection this changeset produces. Only indices are needed, so a
  /// subscriber that fell behind can have its pending changesets folded into one without anyone
  /// keeping the intermediate collections. The result is a changeset in its own right:
  ///
  /// - rows inserted by this changeset and deleted by `next` vanish;
  /// - moves are recomputed for the whole span and are minimal for it, so a row moved away and back
  ///   is not a move, and rows neither changeset moved may have to move in the composition;
  /// - a surviving row that does not move is a modification when either changeset modified it, and
  ///   also when either changeset moved it: a move hides whether the row's content changed, so the
  ///   row is reported for reloading rather than risk a stale cell.
  ///
  /// Runs in O(k log k) for k indices listed in both changesets, independent of the collection's
  /// size. A `next` that does not fit this changeset's new collection yields a meaningless (but
  /// well-formed) result, as the sizes of the collections are not part of a changeset.
  public func composed(with next: Changeset) -> Changeset {
    if isEmpty { return next }
    if next.isEmpty { return self }
    let rows = traceTouchedRows(then: next)

    var deletions = SortedIndices.sortedUnique(moves.map(\.from))
    deletions = self.deletions.filter { !SortedIndices.contains(deletions, $0) }
    let nextTargets = next.moves.map(\.to)  // ascending
    var insertions = next.insertions.filter { !SortedIndices.contains(nextTargets, $0) }
    var points: [Move] = []
    var kept: [TracedRow] = []
    for row in rows {
      switch (row.old >= 0, row.new >= 0) {
      case (false, false): continue
      case (false, true): insertions.append(row.new)
      case (true, false): deletions.append(row.old)
      case (true, true):
        if row.moved { points.append(Move(from: row.old, to: row.new)) } else { kept.append(row) }
      }
    }

    // Every old index that is not an untouched common row, and the same on the new side.
    let blockedOld = SortedIndices.sortedUnique(self.deletions + deletions + points.map(\.from))
    let blockedNew = SortedIndices.sortedUnique(next.insertions + insertions + points.map(\.to))
    let solution = MinimalMoves(points: points, blockedOld: blockedOld, blockedNew: blockedNew)

    var moves = solution.untouchedMoves
    var modified: [(old: Int, new: Int)] = []
    for (index, point) in points.enumerated() {
      if solution.stays[index] { modified.append((point.from, point.to)) } else { moves.append(point) }
    }
    let movedUntouched = solution.untouchedMoves.map(\.from).sorted()
    for row in kept where row.modified && !SortedIndices.contains(movedUntouched, row.old) {
      modified.append((row.old, row.new))
    }
    moves.sort { $0.to < $1.to }
    modified.sort { $0.old < $1.old }
    deletions.append(contentsOf: moves.map(\.from))
    insertions.append(contentsOf: moves.map(\.to))
    deletions.sort()
    insertions.sort()
    return Changeset(
      uncheckedDeletions: deletions, insertions: insertions, modifications: modified.map(\.old),
      modificationsNew: modified.map(\.new), moves: moves)
  }

  /// A row one of the two changesets mentions, followed from the old collection through the middle
  /// one to the new one. -1 stands for "not there": inserted (old) or deleted (new).
  struct TracedRow {
    var old: Int
    var middle: Int
    var new: Int
    var moved: Bool
    var modified: Bool
  }

  /// Every row either changeset lists by its index in the middle collection, with its old and new
  /// index filled in. A row only one side lists kept its place on the other side, so its missing
  /// index is the matching unlisted index there.
  private func traceTouchedRows(then next: Changeset) -> [TracedRow] {
    var before: [TracedRow] = []
    let targets = moves.map(\.to)  // ascending
    for move in moves {
      before.append(TracedRow(old: move.from, middle: move.to, new: -1, moved: true, modified: false))
    }
    for index in insertions where !SortedIndices.contains(targets, index) {
      before.append(TracedRow(old: -1, middle: index, new: -1, moved: false, modified: false))
    }
    for (old, middle) in zip(modifications, modificationsNew) {
      before.append(TracedRow(old: old, middle: middle, new: -1, moved: false, modified: true))
    }
    before.sort { $0.middle < $1.middle }

    var after: [TracedRow] = []
    let sources = next.moves.map(\.from).sorted()
    for move in next.moves {
      after.append(TracedRow(old: -1, middle: move.from, new: move.to, moved: true, modified: false))
    }
    for index in next.deletions where !SortedIndices.contains(sources, index) {
      after.append(TracedRow(old: -1, middle: index, new: -1, moved: false, modified: false))
    }
    for (middle, new) in zip(next.modifications, next.modificationsNew) {
      after.append(TracedRow(old: -1, middle: middle, new: new, moved: false, modified: true))
    }
    after.sort { $0.middle < $1.middle }

    func forward(_ middle: Int) -> Int {
      SortedIndices.absent(
        SortedIndices.absentRank(of: middle, in: next.deletions), from: next.insertions)
    }
    func backward(_ middle: Int) -> Int {
      SortedIndices.absent(SortedIndices.absentRank(of: middle, in: insertions), from: deletions)
    }
    var rows: [TracedRow] = []
    rows.reserveCapacity(before.count + after.count)
    var first = 0
    var second = 0
    while first < before.count || second < after.count {
      if second == after.count
        || (first < before.count && before[first].middle < after[second].middle)
      {
        var row = before[first]
        row.new = forward(row.middle)
        rows.append(row)
        first += 1
      } else if first == before.count || after[second].middle < before[first].middle {
        var row = after[second]
        row.old = backward(row.middle)
        rows.append(row)
        second += 1
      } else {
        var row = before[first]
        row.new = after[second].new
        row.moved = row.moved || after[second].moved
        row.modified = row.modified || after[second].modified
        rows.append(row)
        first += 1
        second += 1
      }
    }
    return rows
  }
}
