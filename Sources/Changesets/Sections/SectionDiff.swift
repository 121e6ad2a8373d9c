extension SectionedChangeset {
  /// The changeset between two versions of a sectioned result, given as sections of unique ids.
  ///
  /// Sections are matched by key and diffed like rows (minimal section moves); the rows of every
  /// section present on both sides are then diffed with ``Changeset/init(from:to:changed:)``. A row
  /// whose section changed is a deletion from the old section and an insertion into the new one.
  /// O(n) expected for n rows, plus the moves.
  ///
  /// - Throws: ``ChangesetError/duplicateSectionKey(key:side:firstIndex:secondIndex:)`` for a key
  ///   that repeats, ``ChangesetError/duplicateIDInSections(id:side:first:second:)`` for an id that
  ///   appears twice on one side, in the same section or in two.
  @inlinable
  public init<Key: Hashable, ID: Hashable>(
    from old: [IdentifiedSection<Key, ID>], to new: [IdentifiedSection<Key, ID>],
    changed: Set<ID> = []
  ) throws(ChangesetError) {
    let sections: Changeset
    do {
      sections = try Changeset(from: old.map(\.key), to: new.map(\.key))
    } catch {
      guard case .duplicateID(let key, let side, let first, let second) = error else { throw error }
      throw .duplicateSectionKey(key: key, side: side, firstIndex: first, secondIndex: second)
    }
    try SectionedChangeset.checkUniqueIDs(old, new)

    let movedFrom = Dictionary(sections.moves.map { ($0.to, $0.from) }) { first, _ in first }
    var rows: [SectionRowChanges] = []
    for newIndex in new.indices {
      let oldIndex: Int
      if SortedIndices.contains(sections.insertions, newIndex) {
        guard let from = movedFrom[newIndex] else { continue }
        oldIndex = from
      } else {
        oldIndex = SortedIndices.absent(
          SortedIndices.absentRank(of: newIndex, in: sections.insertions), from: sections.deletions)
      }
      let changes = try Changeset(from: old[oldIndex].ids, to: new[newIndex].ids, changed: changed)
      if !changes.isEmpty {
        rows.append(SectionRowChanges(oldSection: oldIndex, newSection: newIndex, changes: changes))
      }
    }
    rows.sort { $0.oldSection < $1.oldSection }
    self.init(sections: sections, rows: rows)
  }

  /// Throws for the first id that occurs twice on one side, across all sections.
  @inlinable
  static func checkUniqueIDs<Key, ID>(
    _ old: [IdentifiedSection<Key, ID>], _ new: [IdentifiedSection<Key, ID>]
  ) throws(ChangesetError) {
    let oldIDs = old.flatMap(\.ids)
    let newIDs = new.flatMap(\.ids)
    do {
      _ = try IDMatching(old: oldIDs, new: newIDs)
    } catch {
      guard case .duplicateID(let id, let side, let first, let second) = error else { throw error }
      let sections = side == .old ? old.map(\.ids.count) : new.map(\.ids.count)
      throw .duplicateIDInSections(
        id: id, side: side, first: path(ofFlatIndex: first, sectionSizes: sections),
        second: path(ofFlatIndex: second, sectionSizes: sections))
    }
  }

  /// The section and row of the `index`-th row of the concatenated sections.
  @inlinable
  static func path(ofFlatIndex index: Int, sectionSizes: [Int]) -> RowPath {
    var remaining = index
    for (section, size) in sectionSizes.enumerated() {
      if remaining < size { return RowPath(section: section, row: remaining) }
      remaining -= size
    }
    return RowPath(section: sectionSizes.count, row: remaining)
  }
}
