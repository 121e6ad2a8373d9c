extension Changeset {
  /// The new collection, rebuilt from the old one and the rows the changeset says are new.
  ///
  /// Surviving rows are copied from `old`; `newElement` is asked for every row whose content must come
  /// from the new collection: the ``insertions`` (which include the targets of ``moves``) and the
  /// ``modificationsNew``. It receives the row's index in the new collection, so `{ new[$0] }` is a
  /// complete answer when the new collection is at hand.
  ///
  /// Throws ``ChangesetError/indexOutOfRange(index:count:)`` when the changeset does not describe a
  /// collection of `old.count` elements. O(old.count + new.count).
  @inlinable
  public func applied<Element>(
    to old: [Element], newElement: (_ newIndex: Int) -> Element
  ) throws(ChangesetError) -> [Element] {
    let oldCount = old.count
    for list in [deletions, modifications] {
      if let last = list.last, last >= oldCount {
        throw .indexOutOfRange(index: last, count: oldCount)
      }
    }
    let newCount = oldCount - deletions.count + insertions.count
    for list in [insertions, modificationsNew] {
      if let last = list.last, last >= newCount {
        throw .indexOutOfRange(index: last, count: newCount)
      }
    }
    var result: [Element] = []
    result.reserveCapacity(newCount)
    var oldIndex = 0
    var deletion = 0
    var insertion = 0
    var modification = 0
    for newIndex in 0..<newCount {
      if insertion < insertions.count && insertions[insertion] == newIndex {
        result.append(newElement(newIndex))
        insertion += 1
        continue
      }
      while deletion < deletions.count && deletions[deletion] == oldIndex {
        deletion += 1
        oldIndex += 1
      }
      // Unreachable for a valid changeset (the survivor count is exact), but a hand-built one must
      // not be able to index past the end.
      guard oldIndex < oldCount else { throw .indexOutOfRange(index: oldIndex, count: oldCount) }
      if modification < modificationsNew.count && modificationsNew[modification] == newIndex {
        result.append(newElement(newIndex))
        modification += 1
      } else {
        result.append(old[oldIndex])
      }
      oldIndex += 1
    }
    return result
  }
}
