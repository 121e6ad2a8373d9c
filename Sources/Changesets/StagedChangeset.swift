/// A changeset split into steps that UIKit's `performBatchUpdates` accepts one at a time.
///
/// A single batch that reloads a row and also moves, deletes or inserts rows is where table and
/// collection views throw "attempt to delete and reload the same index path" or animate the wrong
/// cells: UIKit implements a reload as a delete plus an insert of the same index path. The steps keep
/// reloads apart from structural changes:
///
/// 1. **Reload** the modified rows, at their old indices. Nothing else changes, so the indices are
///    the same before and after this step.
/// 2. **Restructure**: deletions, insertions and moves, with no reloads. Moved rows are moves here
///    (``Changeset/deletionsExcludingMoves`` and ``Changeset/insertionsExcludingMoves`` leave them
///    out), so no index is both deleted and moved.
/// 3. **Reload moved rows** at their new indices (optional, on by default). A move never refreshes a
///    cell, and a changeset cannot say whether a moved row's content changed.
///
/// Each step is itself a valid ``Changeset``; empty steps are left out, so an empty changeset has no
/// steps. Applying the steps in order has the effect of the original changeset, and
/// ``collections(from:to:)`` gives what the data source must present once each step is committed.
public struct StagedChangeset: Hashable, Sendable {
  /// The steps, in the order to commit them; at most three.
  public let stages: [Changeset]

  /// Splits `changeset` into the steps described on the type.
  ///
  /// - Parameter reloadingMovedRows: Whether to add the third step; turn it off when cells of moved
  ///   rows are refreshed some other way (for example with `reconfigureItems`).
  public init(_ changeset: Changeset, reloadingMovedRows: Bool = true) {
    var stages: [Changeset] = []
    if !changeset.modifications.isEmpty {
      stages.append(
        Changeset(
          uncheckedDeletions: [], insertions: [], modifications: changeset.modifications,
          modificationsNew: changeset.modifications, moves: []))
    }
    if !changeset.deletions.isEmpty || !changeset.insertions.isEmpty {
      stages.append(
        Changeset(
          uncheckedDeletions: changeset.deletions, insertions: changeset.insertions,
          modifications: [], modificationsNew: [], moves: changeset.moves))
    }
    if reloadingMovedRows && !changeset.moves.isEmpty {
      let targets = changeset.moves.map(\.to)  // ascending
      stages.append(
        Changeset(
          uncheckedDeletions: [], insertions: [], modifications: targets, modificationsNew: targets,
          moves: []))
    }
    self.stages = stages
  }

  /// Whether there is nothing to commit.
  public var isEmpty: Bool { stages.isEmpty }

  /// The collection to present after each stage, given the collections before and after the whole
  /// change: after the first reload step, the old rows with the new content of the modified ones;
  /// from the restructuring step on, the new collection.
  ///
  /// Throws ``ChangesetError/indexOutOfRange(index:count:)`` when the staged changeset does not
  /// describe a change from `old.count` to `new.count` elements.
  public func collections<Element>(from old: [Element], to new: [Element]) throws(ChangesetError)
    -> [[Element]]
  {
    let structure = stages.first(where: isRestructuring) ?? .empty
    let expected = old.count - structure.deletions.count + structure.insertions.count
    guard expected == new.count else { throw .indexOutOfRange(index: expected, count: new.count) }
    var result: [[Element]] = []
    var current = old
    var restructured = false
    for stage in stages {
      if isRestructuring(stage) {
        restructured = true
        let count = current.count - stage.deletions.count + stage.insertions.count
        guard count == new.count else { throw .indexOutOfRange(index: count, count: new.count) }
        current = try stage.applied(to: current) { new[$0] }
      } else if restructured {
        guard current.count == new.count else {
          throw .indexOutOfRange(index: current.count, count: new.count)
        }
        current = try stage.applied(to: current) { new[$0] }
      } else {
        // Before the restructuring, indices are old indices; a modified row stays in place, so its
        // new index is the matching index that the restructuring neither deletes nor inserts.
        var newIndices: [Int: Int] = [:]
        for index in stage.modifications {
          let newIndex = SortedIndices.absent(
            SortedIndices.absentRank(of: index, in: structure.deletions), from: structure.insertions)
          guard index < current.count, newIndex < new.count else {
            throw .indexOutOfRange(index: newIndex, count: new.count)
          }
          newIndices[index] = newIndex
        }
        let before = current
        current = try stage.applied(to: before) { index in newIndices[index].map { new[$0] } ?? before[index]
        }
      }
      result.append(current)
    }
    return result
  }

  /// Whether `stage` is the restructuring step rather than a reload step.
  private func isRestructuring(_ stage: Changeset) -> Bool {
    !stage.deletions.isEmpty || !stage.insertions.isEmpty
  }
}

extension StagedChangeset: Codable {
  private enum CodingKeys: String, CodingKey {
    case stages
  }

  /// Decodes and checks the shape the initializer produces: at most one restructuring step, with
  /// no modifications, and reload steps that only reload, one on either side of it.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    let stages = try container.decode([Changeset].self, forKey: .stages)
    let structural = stages.indices.filter { !stages[$0].deletions.isEmpty || !stages[$0].insertions.isEmpty }
    let reloadsAreClean = stages.indices.allSatisfy { index in
      structural.contains(index)
        ? stages[index].modifications.isEmpty
        : stages[index].modifications == stages[index].modificationsNew && stages[index].moves.isEmpty
    }
    guard structural.count <= 1, reloadsAreClean, stages.count <= 3, !stages.contains(where: \.isEmpty)
    else {
      throw DecodingError.dataCorruptedError(
        forKey: .stages, in: container, debugDescription: "stages do not have the staged shape")
    }
    self.stages = stages
  }

  /// Encodes the stages.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(stages, forKey: .stages)
  }
}
