extension Changeset {
  /// The minimal changeset that turns `old` into `new`, two lists of unique row ids.
  ///
  /// Rows are matched by id in expected O(n) (Heckel's symbol table: every id is unique, so every
  /// common id is an anchor), and the rows that stay are one longest increasing subsequence of the
  /// common rows' old positions in new order, found in O(c log c); every other common row is a move.
  /// Integer ids (`Int`, `UInt64`, ...) hash with a cheap mixer instead of SipHash.
  ///
  /// - Parameters:
  ///   - old: Row ids before the change; no id may repeat.
  ///   - new: Row ids after the change; no id may repeat.
  ///   - changed: Ids whose content changed. Those present in both lists that do not move become
  ///     ``modifications``; the others are ignored (an inserted or moved row is reloaded anyway).
  /// - Throws: ``ChangesetError/duplicateID(id:side:firstIndex:secondIndex:)`` naming the first
  ///   repeated id and both of its positions.
  @inlinable
  public init<ID: Hashable>(from old: [ID], to new: [ID], changed: Set<ID> = []) throws(ChangesetError) {
    let matching = try IDMatching(old: old, new: new)
    self = matching.changeset(modified: matching.stayingOldIndices(in: changed))
  }

  /// The minimal changeset that turns `old` into `new`, asking `isChanged` about every row that stays.
  ///
  /// Use this form when the caller can tell a changed row cheaply (say, by comparing versions) and
  /// building a set of ids would cost more. `isChanged` is called once per common row that does not
  /// move, in old order. Otherwise identical to ``init(from:to:changed:)``.
  @inlinable
  public init<ID: Hashable>(
    from old: [ID], to new: [ID], isChanged: (ID) -> Bool
  ) throws(ChangesetError) {
    let matching = try IDMatching(old: old, new: new)
    self = matching.changeset(modified: matching.stayingOldIndices(where: isChanged))
  }
}
