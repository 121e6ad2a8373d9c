/// The fewest moves for a change described sparsely: a few explicitly placed rows among an implicit,
/// order-preserving majority.
///
/// Composition and the sorted result both know exactly where a handful of "touched" common rows
/// were and are (`points`), while every other common row is known only to keep its order: the r-th
/// untouched row in the old collection is the r-th untouched row in the new one. Their positions
/// are the integers missing from `blockedOld` / `blockedNew` (every old and new index that is not an
/// untouched common row). Which rows must move is a longest-common-subsequence question over all
/// common rows, but the untouched rows can be handled in blocks:
///
/// Cut the untouched rows wherever a touched row falls between them, on either side. Inside one
/// block the rows are consecutive among the common rows of both collections, so any common
/// subsequence can be extended to take the whole block once it takes one of its rows: a row outside
/// the block that is compatible with one block row is on the same side of all of them. Blocks
/// therefore enter the subsequence whole, as single items weighted by their length, and a weighted
/// longest increasing subsequence over at most 3k+1 items (k touched rows) finds the optimum in
/// O(k log k). The block after the last cut follows every touched row on both sides and always stays.
///
/// The answer may move untouched rows (a short block can lose to a longer chain of touched rows), but
/// never more rows in total than there are touched rows, since moving all of them is a solution.
@usableFromInline
struct MinimalMoves {
  /// Per touched row, in input order: whether it stays in place.
  @usableFromInline var stays: [Bool]
  /// Untouched rows that must move anyway, in no particular order.
  @usableFromInline var untouchedMoves: [Move]

  /// Solves the problem for touched rows `points` (`from` old index, `to` new index) given the
  /// strictly ascending index lists that are not untouched common rows on each side (they must
  /// include the points' own indices).
  @usableFromInline
  init(points: [Move], blockedOld: [Int], blockedNew: [Int]) {
    stays = Array(repeating: false, count: points.count)
    untouchedMoves = []
    guard !points.isEmpty else { return }

    var cuts: [Int] = []
    cuts.reserveCapacity(points.count * 2)
    for point in points {
      cuts.append(SortedIndices.absentRank(of: point.from, in: blockedOld))
      cuts.append(SortedIndices.absentRank(of: point.to, in: blockedNew))
    }
    cuts = SortedIndices.sortedUnique(cuts)

    // Items: untouched blocks first (point == -1), then the touched rows.
    var items: [Item] = []
    items.reserveCapacity(cuts.count + points.count)
    var start = 0
    for cut in cuts where cut > start {
      items.append(
        Item(
          old: SortedIndices.absent(start, from: blockedOld),
          new: SortedIndices.absent(start, from: blockedNew), weight: cut - start, point: -1,
          firstRank: start))
      start = cut
    }
    for (index, point) in points.enumerated() {
      items.append(Item(old: point.from, new: point.to, weight: 1, point: index, firstRank: 0))
    }
    items.sort { $0.old < $1.old }

    let chosen = MinimalMoves.heaviestIncreasingChain(items)
    for (index, item) in items.enumerated() {
      if item.point >= 0 {
        stays[item.point] = chosen[index]
      } else if !chosen[index] {
        for rank in item.firstRank..<(item.firstRank + item.weight) {
          untouchedMoves.append(
            Move(
              from: SortedIndices.absent(rank, from: blockedOld),
              to: SortedIndices.absent(rank, from: blockedNew)))
        }
      }
    }
  }

  /// A touched row or a block of untouched rows, placed by its first row.
  @usableFromInline
  struct Item {
    var old: Int
    var new: Int
    var weight: Int
    /// Index into the points, or -1 for a block.
    var point: Int
    /// Rank of a block's first row among the untouched rows.
    var firstRank: Int
  }

  /// Flags the items (sorted by `old`) of a maximum-weight chain increasing in `new` too.
  ///
  /// A Fenwick tree over the ranks of `new` answers "best chain ending below this value" in
  /// O(log m); weights are positive, so stored maxima only grow, which is what the tree needs.
  static func heaviestIncreasingChain(_ items: [Item]) -> [Bool] {
    let count = items.count
    let newValues = items.map(\.new).sorted()
    var treeBest = [Int](repeating: 0, count: count + 1)
    var treeItem = [Int](repeating: -1, count: count + 1)
    var previous = [Int](repeating: -1, count: count)
    var bestTotal = 0
    var bestItem = -1
    for (index, item) in items.enumerated() {
      let rank = SortedIndices.countLess(newValues, than: item.new)  // items below: Fenwick 1...rank
      var position = rank
      var below = 0
      var belowItem = -1
      while position > 0 {
        if treeBest[position] > below {
          below = treeBest[position]
          belowItem = treeItem[position]
        }
        position &= position - 1
      }
      let total = below + item.weight
      previous[index] = belowItem
      if total > bestTotal {
        bestTotal = total
        bestItem = index
      }
      position = rank + 1
      while position <= count {
        if total > treeBest[position] {
          treeBest[position] = total
          treeItem[position] = index
        }
        position += position & -position
      }
    }
    var chosen = [Bool](repeating: false, count: count)
    var cursor = bestItem
    while cursor >= 0 {
      chosen[cursor] = true
      cursor = previous[cursor]
    }
    return chosen
  }
}

extension Changeset {
  /// The changeset of a change known only through its touched rows, every other row having kept
  /// its order: per touched row, its old position (-1 when it entered) and new position (-1 when it
  /// left), and whether its content changed.
  ///
  /// `removedPositions` is the ascending list of the valid old positions. Touched rows present on
  /// both sides stay, move or become modifications as ``MinimalMoves`` decides.
  @usableFromInline
  init(
    touchedOldPositions oldPositions: [Int], newPositions: [Int], removedPositions: [Int],
    contentChanged: [Bool]
  ) {
    var deletions: [Int] = []
    var insertions: [Int] = []
    var points: [Move] = []
    var pointChanged: [Bool] = []
    for index in oldPositions.indices {
      let old = oldPositions[index]
      let new = newPositions[index]
      if old >= 0 && new >= 0 {
        points.append(Move(from: old, to: new))
        pointChanged.append(contentChanged[index])
      } else if old >= 0 {
        deletions.append(old)
      } else if new >= 0 {
        insertions.append(new)
      }
    }
    let solution = MinimalMoves(
      points: points, blockedOld: removedPositions,
      blockedNew: newPositions.filter { $0 >= 0 }.sorted())
    var moves = solution.untouchedMoves
    var modified: [Move] = []
    for (index, point) in points.enumerated() {
      if !solution.stays[index] {
        moves.append(point)
      } else if pointChanged[index] {
        modified.append(point)
      }
    }
    moves.sort { $0.to < $1.to }
    modified.sort { $0.from < $1.from }
    deletions.append(contentsOf: moves.map(\.from))
    insertions.append(contentsOf: moves.map(\.to))
    deletions.sort()
    insertions.sort()
    self.init(
      uncheckedDeletions: deletions, insertions: insertions, modifications: modified.map(\.from),
      modificationsNew: modified.map(\.to), moves: moves)
  }
}
