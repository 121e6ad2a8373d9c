extension SortedRows {
  /// What happened to one row: its version before (if the result held it) and after (if the result
  /// holds it now).
  ///
  /// `old` must be the version the result currently holds, since rows are found by value. A row
  /// whose sort key changed is an update from the old version to the new one, not a removal plus an
  /// insertion, so that it can be reported as staying, moving or being modified.
  public struct Change {
    /// The row as the result holds it before the change, or `nil` for a row entering the result.
    public var old: Element?
    /// The row after the change, or `nil` for a row leaving the result.
    public var new: Element?
    /// Whether the row's content changed; a row that stays in place is then a modification.
    public var contentChanged: Bool

    /// A change from `old` to `new`; `contentChanged` defaults to true, the safe answer.
    @inlinable
    public init(old: Element?, new: Element?, contentChanged: Bool = true) {
      self.old = old
      self.new = new
      self.contentChanged = contentChanged
    }

    /// A row entering the result.
    @inlinable
    public static func insert(_ row: Element) -> Change { Change(old: nil, new: row) }

    /// A row leaving the result.
    @inlinable
    public static func remove(_ row: Element) -> Change { Change(old: row, new: nil) }

    /// A row that stays in the result, possibly with a new sort key.
    @inlinable
    public static func update(from old: Element, to new: Element, contentChanged: Bool = true)
      -> Change
    {
      Change(old: old, new: new, contentChanged: contentChanged)
    }
  }

  /// Applies `changes` and returns the changeset from the previous rows to the new ones.
  ///
  /// The changeset is correct and minimal (see ``Changeset``); its modifications are the updated
  /// rows with `contentChanged` that did not move. Only the changed rows are visited: the cost is
  /// O(k log n) for k changes, plus O(k log k) to choose the moves.
  ///
  /// Throws, with the rows as they were, ``ChangesetError/rowNotFound(row:)`` when an `old` row is
  /// not in the result, ``ChangesetError/duplicateChange(row:)`` when two changes name the same old
  /// row, and ``ChangesetError/duplicateRow(row:)`` when a `new` row is equivalent to another new row
  /// or to a row that stays.
  @inlinable
  @discardableResult
  public mutating func apply(_ changes: [Change]) throws(ChangesetError) -> Changeset {
    return try commit(prepare(changes))
  }

  /// Changes checked against the current rows, with the old rows' positions.
  @usableFromInline
  struct PreparedChanges {
    @usableFromInline var changes: [Change]
    /// Per change: the old row's position, or -1 for an insertion.
    @usableFromInline var oldPositions: [Int]
    /// The old positions that are taken, ascending.
    @usableFromInline var removedPositions: [Int]

    @inlinable
    init(changes: [Change], oldPositions: [Int], removedPositions: [Int]) {
      self.changes = changes
      self.oldPositions = oldPositions
      self.removedPositions = removedPositions
    }
  }

  /// Checks `changes` against the current rows without mutating them and finds the old rows.
  @inlinable
  func prepare(_ changes: [Change]) throws(ChangesetError) -> PreparedChanges {
    let changes = changes.filter { $0.old != nil || $0.new != nil }
    var oldPositions = [Int](repeating: -1, count: changes.count)
    var removed: [Int] = []
    for (index, change) in changes.enumerated() {
      guard let old = change.old else { continue }
      guard let position = root.position(of: old) else {
        throw .rowNotFound(row: String(describing: old))
      }
      oldPositions[index] = position
      removed.append(position)
    }
    removed.sort()
    for index in removed.indices.dropFirst() where removed[index - 1] == removed[index] {
      throw .duplicateChange(row: String(describing: root.row(at: removed[index])))
    }
    var added: [Element] = changes.compactMap(\.new)
    added.sort()
    for index in added.indices.dropFirst() where !(added[index - 1] < added[index]) {
      throw .duplicateRow(row: String(describing: added[index]))
    }
    // A new row equivalent to a row that stays is caught by `commit`, which finds it anyway while
    // inserting; looking every new row up here as well would cost a second descent per row.
    return PreparedChanges(changes: changes, oldPositions: oldPositions, removedPositions: removed)
  }

  /// Performs prepared changes and describes them.
  ///
  /// Throws ``ChangesetError/duplicateRow(row:)`` when a new row is equivalent to a row that stays,
  /// after undoing what it did: the rows are then the same as before (the tree's shape may differ).
  @inlinable
  mutating func commit(_ prepared: PreparedChanges) throws(ChangesetError) -> Changeset {
    let changes = prepared.changes
    // All removals first, highest position first so that the positions found while preparing stay
    // valid; a new row may then take the place of an old row that another change removed.
    for position in prepared.removedPositions.reversed() { removeRow(at: position) }
    var inserted: [(change: Int, position: Int)] = []
    for (index, change) in changes.enumerated() {
      guard let new = change.new else { continue }
      guard let position = insertIfAbsent(new) else {
        undo(changes, inserted: inserted.map(\.change))
        throw .duplicateRow(row: String(describing: new))
      }
      inserted.append((index, position))
    }
    var newPositions = [Int](repeating: -1, count: changes.count)
    if inserted.count <= 256 {
      // Only insertions follow an insertion, so a row's final position is the position it was
      // inserted at, counted among the final positions that later insertions did not take.
      var taken: [Int] = []
      for (change, position) in inserted.reversed() {
        let final = SortedIndices.absent(position, from: taken)
        newPositions[change] = final
        taken.insert(final, at: SortedIndices.countLess(taken, than: final))
      }
    } else {
      for (change, _) in inserted {
        if let new = changes[change].new { newPositions[change] = root.position(of: new) ?? -1 }
      }
    }
    return Changeset(
      touchedOldPositions: prepared.oldPositions, newPositions: newPositions,
      removedPositions: prepared.removedPositions,
      contentChanged: changes.map(\.contentChanged))
  }
}

extension SortedRows {
  /// Takes back a committed batch: removes the new rows of the changes listed in `inserted` and
  /// puts every old row back.
  @inlinable
  mutating func undo(_ changes: [Change], inserted: [Int]) {
    for index in inserted {
      if let new = changes[index].new, let position = root.position(of: new) {
        removeRow(at: position)
      }
    }
    for change in changes {
      if let old = change.old { _ = insertIfAbsent(old) }
    }
  }

  /// Takes back a batch that `commit` completed.
  @inlinable
  mutating func revert(_ prepared: PreparedChanges) {
    undo(prepared.changes, inserted: Array(prepared.changes.indices))
  }
}

extension SortedRows.Change: Sendable where Element: Sendable {}
extension SortedRows.Change: Equatable {}
