/// The difference between two versions of a result grouped into sections (Realm's sectioned results,
/// Core Data's fetched results controller): section changes plus the row changes inside every
/// section that exists on both sides.
///
/// ``sections`` is a ``Changeset`` over the sections themselves. Rows of deleted sections and of
/// inserted sections are not listed again: UIKit deletes and inserts them with their section. A row
/// that changes section is a deletion in its old section and an insertion in its new one.
public struct SectionedChangeset: Hashable, Sendable, Codable {
  /// Section deletions (old section indices), insertions (new indices) and moves. Section
  /// modifications are never reported: a section is identified by its key alone.
  public let sections: Changeset
  /// Row changes of the sections present before and after (moved ones included), ascending by old
  /// section index; sections whose rows did not change are left out.
  public let rows: [SectionRowChanges]

  /// A sectioned changeset from its parts, which ``applied(to:newSection:newElement:)`` checks.
  public init(sections: Changeset, rows: [SectionRowChanges]) {
    self.sections = sections
    self.rows = rows
  }

  /// Whether nothing changed.
  public var isEmpty: Bool { sections.isEmpty && rows.allSatisfy(\.changes.isEmpty) }

  /// Old paths of deleted rows in surviving sections, moved rows included, ascending.
  public var rowDeletions: [RowPath] {
    rows.flatMap { section in
      section.changes.deletions.map { RowPath(section: section.oldSection, row: $0) }
    }
  }

  /// New paths of inserted rows in surviving sections, moved rows included, ascending.
  public var rowInsertions: [RowPath] {
    rows.flatMap { section in
      section.changes.insertions.map { RowPath(section: section.newSection, row: $0) }
    }.sorted()
  }

  /// Old paths of modified rows, ascending; the new paths are in each section's
  /// ``Changeset/modificationsNew``.
  public var rowModifications: [RowPath] {
    rows.flatMap { section in
      section.changes.modifications.map { RowPath(section: section.oldSection, row: $0) }
    }
  }

  /// The new sections, rebuilt from the old ones.
  ///
  /// Inserted sections come whole from `newSection` (new section index); surviving sections, moved
  /// ones included, are their old rows with their row changes applied, asking `newElement` for the
  /// rows whose content is new (new path). Throws ``ChangesetError`` when the changeset does not
  /// describe `old`.
  public func applied<Element>(
    to old: [[Element]], newSection: (_ newSectionIndex: Int) -> [Element],
    newElement: (RowPath) -> Element
  ) throws(ChangesetError) -> [[Element]] {
    let sectionCount = old.count - sections.deletions.count + sections.insertions.count
    if let last = sections.deletions.last, last >= old.count {
      throw .indexOutOfRange(index: last, count: old.count)
    }
    if let last = sections.insertions.last, last >= sectionCount {
      throw .indexOutOfRange(index: last, count: sectionCount)
    }
    var rowsByOldSection: [Int: SectionRowChanges] = [:]
    for section in rows {
      guard rowsByOldSection.updateValue(section, forKey: section.oldSection) == nil else {
        throw .malformedChangeset("two row changesets for old section \(section.oldSection)")
      }
    }
    let movedFrom = Dictionary(sections.moves.map { ($0.to, $0.from) }) { first, _ in first }
    var result: [[Element]] = []
    result.reserveCapacity(sectionCount)
    var used = 0
    for index in 0..<sectionCount {
      let oldIndex: Int
      if SortedIndices.contains(sections.insertions, index) {
        guard let from = movedFrom[index] else {
          result.append(newSection(index))
          continue
        }
        oldIndex = from
      } else {
        oldIndex = SortedIndices.absent(
          SortedIndices.absentRank(of: index, in: sections.insertions), from: sections.deletions)
      }
      guard oldIndex < old.count else { throw .indexOutOfRange(index: oldIndex, count: old.count) }
      guard let changes = rowsByOldSection[oldIndex] else {
        result.append(old[oldIndex])
        continue
      }
      guard changes.newSection == index else {
        throw .malformedChangeset(
          "rows of old section \(oldIndex) land in section \(changes.newSection), not \(index)")
      }
      used += 1
      result.append(
        try changes.changes.applied(to: old[oldIndex]) {
          newElement(RowPath(section: index, row: $0))
        })
    }
    guard used == rows.count else {
      throw .malformedChangeset("row changes for a section that does not survive")
    }
    return result
  }
}

/// The row changes inside one section that exists before and after.
public struct SectionRowChanges: Hashable, Sendable, Codable {
  /// The section's index before the change.
  public let oldSection: Int
  /// The section's index after the change.
  public let newSection: Int
  /// The changes to the section's rows.
  public let changes: Changeset

  /// Row changes `changes` for the section at `oldSection`, found at `newSection` afterwards.
  public init(oldSection: Int, newSection: Int, changes: Changeset) {
    self.oldSection = oldSection
    self.newSection = newSection
    self.changes = changes
  }
}
