extension Changeset {
  /// A changeset between two sequences whose elements may repeat, by Paul Heckel's algorithm
  /// ("A technique for isolating differences between files", CACM 21(4), 1978).
  ///
  /// Elements that occur exactly once in each sequence are matched first; matches then spread to
  /// equal neighbours, forwards and backwards, from those anchors and from the sequences' ends. The
  /// matched pairs keep their order where a longest increasing subsequence allows it and are moves
  /// otherwise; unmatched elements are deleted or inserted. The result is always correct, and its
  /// moves are minimal for the pairs Heckel's passes matched, but an element that repeats and is not
  /// next to a match is deleted and inserted rather than matched, so deletions and insertions can
  /// exceed the minimum. Elements that match are equal, so there are no modifications.
  ///
  /// For lists of unique ids prefer ``init(from:to:changed:)``: it matches every common id and
  /// reports duplicates instead of tolerating them. Expected O(n + m) plus O(c log c) for the moves.
  @inlinable
  public static func heckel<Element: Hashable>(from old: [Element], to new: [Element]) -> Changeset {
    // Passes 1 and 2: occurrence counts per element, and where in `old` a unique one sits.
    var table: [Element: (old: Int, new: Int, oldIndex: Int)] = [:]
    for (index, element) in old.enumerated() {
      table[element, default: (0, 0, index)].old += 1
    }
    for element in new {
      table[element, default: (0, 0, -1)].new += 1
    }
    var oldToNew = [Int32](repeating: -1, count: old.count)
    var newToOld = [Int32](repeating: -1, count: new.count)
    func match(_ oldIndex: Int, _ newIndex: Int) {
      oldToNew[oldIndex] = Int32(truncatingIfNeeded: newIndex)
      newToOld[newIndex] = Int32(truncatingIfNeeded: oldIndex)
    }
    func canMatch(_ oldIndex: Int, _ newIndex: Int) -> Bool {
      oldIndex >= 0 && oldIndex < old.count && newIndex >= 0 && newIndex < new.count
        && oldToNew[oldIndex] < 0 && newToOld[newIndex] < 0 && old[oldIndex] == new[newIndex]
    }
    // Pass 3: elements unique on both sides are the anchors.
    for (index, element) in new.enumerated() {
      if let entry = table[element], entry.old == 1 && entry.new == 1 { match(entry.oldIndex, index) }
    }
    // Pass 4: spread forwards from each match; the start of both sequences counts as a match.
    if canMatch(0, 0) { match(0, 0) }
    for index in 0..<new.count {
      let oldIndex = Int(newToOld[index])
      if oldIndex >= 0 && canMatch(oldIndex + 1, index + 1) { match(oldIndex + 1, index + 1) }
    }
    // Pass 5: spread backwards; the end of both sequences counts as a match.
    if canMatch(old.count - 1, new.count - 1) { match(old.count - 1, new.count - 1) }
    for index in stride(from: new.count - 1, through: 0, by: -1) {
      let oldIndex = Int(newToOld[index])
      if oldIndex >= 0 && canMatch(oldIndex - 1, index - 1) { match(oldIndex - 1, index - 1) }
    }
    // Pass 6, Heckel's listing of the differences, is the changeset built from the matching.
    var stable = [Bool](repeating: false, count: new.count)
    let stableCount = markLongestIncreasing(newToOld: newToOld, stable: &stable)
    return Changeset(
      oldToNew: oldToNew, newToOld: newToOld, stable: stable, stableCount: stableCount, modified: [])
  }
}
