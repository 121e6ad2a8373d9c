import Changesets
import Testing

/// Independent reference answers, written as plainly as possible so they are easy to trust.
enum Oracle {
  /// Length of the longest common subsequence by the textbook O(n·m) table.
  static func lcsLength<T: Equatable>(_ a: [T], _ b: [T]) -> Int {
    guard !a.isEmpty && !b.isEmpty else { return 0 }
    var previous = [Int](repeating: 0, count: b.count + 1)
    var current = previous
    for x in a {
      for (j, y) in b.enumerated() {
        current[j + 1] = x == y ? previous[j] + 1 : max(previous[j + 1], current[j])
      }
      swap(&previous, &current)
    }
    return previous[b.count]
  }

  /// Length of the longest strictly increasing subsequence (patience sorting).
  static func lisLength(_ values: [Int]) -> Int {
    var tails: [Int] = []
    for value in values {
      var low = 0
      var high = tails.count
      while low < high {
        let middle = (low + high) / 2
        if tails[middle] < value { low = middle + 1 } else { high = middle }
      }
      if low == tails.count { tails.append(value) } else { tails[low] = value }
    }
    return tails.count
  }

  /// The fewest moves between two lists of unique ids: common rows minus the longest run of common
  /// rows kept in order. Small inputs use the LCS table; larger ones LIS of new positions.
  static func minimalMoves<ID: Hashable>(_ old: [ID], _ new: [ID]) -> Int {
    let newSet = Set(new)
    let oldSet = Set(old)
    let commonOld = old.filter { newSet.contains($0) }
    let commonNew = new.filter { oldSet.contains($0) }
    if commonOld.count <= 250 {
      return commonOld.count - lcsLength(commonOld, commonNew)
    }
    var position: [ID: Int] = [:]
    for (index, id) in commonNew.enumerated() { position[id] = index }
    return commonOld.count - lisLength(commonOld.compactMap { position[$0] })
  }
}

/// Checks every documented property of `changeset` as the change from `old` to `new`.
///
/// `expectedModified` are the ids that must be reported as modified when they do not move (the
/// checker removes the moved ones itself); `nil` skips the modification check.
func verify<ID: Hashable>(
  _ changeset: Changeset, old: [ID], new: [ID], expectedModified: Set<ID>?,
  _ context: @autoclosure () -> String = "", sourceLocation: SourceLocation = #_sourceLocation
) {
  // Correct: deleting, then inserting, rebuilds the new list.
  let rebuilt = try? changeset.applied(to: old) { new[$0] }
  #expect(rebuilt == new, "apply mismatch \(context())", sourceLocation: sourceLocation)
  // Well formed: the validating initializer accepts it unchanged.
  let revalidated = try? Changeset(
    deletions: changeset.deletions, insertions: changeset.insertions,
    modifications: changeset.modifications, modificationsNew: changeset.modificationsNew,
    moves: changeset.moves)
  #expect(revalidated == changeset, "malformed \(context())", sourceLocation: sourceLocation)
  // Moves are listed as deletions and insertions, move a row onto itself, and are minimal.
  let deletions = Set(changeset.deletions)
  let insertions = Set(changeset.insertions)
  for move in changeset.moves {
    #expect(deletions.contains(move.from) && insertions.contains(move.to), sourceLocation: sourceLocation)
    #expect(
      old.indices.contains(move.from) && new.indices.contains(move.to)
        && old[move.from] == new[move.to], "move \(move) \(context())", sourceLocation: sourceLocation)
  }
  #expect(
    changeset.moves.count == Oracle.minimalMoves(old, new), "moves not minimal \(context())",
    sourceLocation: sourceLocation)
  // Deletions are exactly the vanished rows plus the moves' sources (and the same for insertions).
  let newSet = Set(new)
  let oldSet = Set(old)
  let movedIDs = Set(changeset.moves.map { old[$0.from] })
  let expectedDeletions = old.indices.filter { !newSet.contains(old[$0]) || movedIDs.contains(old[$0]) }
  let expectedInsertions = new.indices.filter { !oldSet.contains(new[$0]) || movedIDs.contains(new[$0]) }
  #expect(changeset.deletions == expectedDeletions, "deletions \(context())", sourceLocation: sourceLocation)
  #expect(
    changeset.insertions == expectedInsertions, "insertions \(context())", sourceLocation: sourceLocation)
  // Modifications: the changed common rows that did not move, paired with their new indices.
  guard changeset.modifications.count == changeset.modificationsNew.count else {
    Issue.record("modification lists differ in length \(context())", sourceLocation: sourceLocation)
    return
  }
  for (oldIndex, newIndex) in zip(changeset.modifications, changeset.modificationsNew) {
    #expect(
      old.indices.contains(oldIndex) && new.indices.contains(newIndex) && old[oldIndex] == new[newIndex],
      "modification pair \(context())", sourceLocation: sourceLocation)
  }
  if let expectedModified {
    let expected = Set(
      old.filter { expectedModified.contains($0) && newSet.contains($0) && !movedIDs.contains($0) })
    let reported = Set(changeset.modifications.compactMap { old.indices.contains($0) ? old[$0] : nil })
    #expect(reported == expected, "modifications \(context())", sourceLocation: sourceLocation)
  }
}

/// A random change of a list of unique ids: deletions, insertions, relocations, an occasional full
/// shuffle, and a random set of changed ids (including some absent ones).
struct RandomChange {
  var old: [Int]
  var new: [Int]
  var changed: Set<Int>

  /// A fresh old list of `size` ids, then a change of it.
  static func make(_ rng: inout SplitMix64, size: Int? = nil) -> RandomChange {
    let size = size ?? rng.size()
    let old = (0..<size).map { $0 * 3 }.shuffled(using: &rng)
    return make(from: old, nextID: size * 3 + 1, &rng)
  }

  /// A change of `old`, drawing inserted ids from `nextID` upwards.
  static func make(from old: [Int], nextID: Int, _ rng: inout SplitMix64) -> RandomChange {
    let deleteRate = [0, 0.01, 0.1, 0.3, 0.9, 1.0][Int.random(in: 0..<6, using: &rng)]
    var new = old.filter { _ in !rng.chance(deleteRate) }
    if rng.chance(0.08) {
      new.shuffle(using: &rng)
    } else if !new.isEmpty {
      let relocations = [0, 1, 2, 5, new.count / 10, new.count / 2][Int.random(in: 0..<6, using: &rng)]
      for _ in 0..<relocations {
        let row = new.remove(at: Int.random(in: 0..<new.count, using: &rng))
        new.insert(row, at: Int.random(in: 0...new.count, using: &rng))
      }
    }
    let insertCount = [0, 1, 3, old.count / 10, old.count / 2][Int.random(in: 0..<5, using: &rng)]
    var next = nextID
    for _ in 0..<insertCount {
      new.insert(next, at: Int.random(in: 0...new.count, using: &rng))
      next += 1
    }
    let changeRate = [0, 0.05, 0.3, 1.0][Int.random(in: 0..<4, using: &rng)]
    var changed = Set(old.filter { _ in rng.chance(changeRate) })
    changed.insert(-1)  // an id neither list holds must be ignored
    if let inserted = new.last, rng.chance(0.5) { changed.insert(inserted) }
    return RandomChange(old: old, new: new, changed: changed)
  }
}
