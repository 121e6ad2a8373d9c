extension Changeset {
  /// This changeset with only the modifications for which `isChanged` is true; `isChanged` gets
  /// each modification's position in ``modifications`` (and ``modificationsNew``).
  ///
  /// For a producer that knows more than the indices: a composed changeset reports a row that
  /// either part modified, and one that can compare the row's content at the two ends drops those
  /// that came back to what they were.
  public func keepingModifications(where isChanged: (Int) -> Bool) -> Changeset {
    let kept = modifications.indices.filter(isChanged)
    guard kept.count != modifications.count else { return self }
    return Changeset(
      uncheckedDeletions: deletions, insertions: insertions, modifications: kept.map { modifications[$0] },
      modificationsNew: kept.map { modificationsNew[$0] }, moves: moves)
  }
}
