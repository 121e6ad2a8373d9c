/// Rank and select on strictly ascending lists of non-negative indices.
///
/// A changeset names only the rows that changed; every other row's position follows from how many
/// listed indices precede it. These two queries turn "the r-th row that is not listed" into an index
/// and back, which is what lets composition and the sorted result work in time proportional to the
/// number of changes rather than to the size of the collection.
@usableFromInline
enum SortedIndices {
  /// How many elements of `sorted` are less than `value`.
  @inlinable
  static func countLess(_ sorted: [Int], than value: Int) -> Int {
    var low = 0
    var high = sorted.count
    while low < high {
      let middle = (low &+ high) >> 1
      if sorted[middle] < value { low = middle &+ 1 } else { high = middle }
    }
    return low
  }

  /// Whether `sorted` contains `value`.
  @inlinable
  static func contains(_ sorted: [Int], _ value: Int) -> Bool {
    let index = countLess(sorted, than: value)
    return index < sorted.count && sorted[index] == value
  }

  /// The `rank`-th (from 0) non-negative integer that `sorted` does not contain.
  ///
  /// `sorted[i] - i` counts the absent integers below `sorted[i]` and never decreases, so a binary
  /// search finds how many listed indices precede the answer.
  @inlinable
  static func absent(_ rank: Int, from sorted: [Int]) -> Int {
    var low = 0
    var high = sorted.count
    while low < high {
      let middle = (low &+ high) >> 1
      if sorted[middle] &- middle <= rank { low = middle &+ 1 } else { high = middle }
    }
    return rank &+ low
  }

  /// How many integers below `value` `sorted` does not contain: the rank of `value` among them.
  @inlinable
  static func absentRank(of value: Int, in sorted: [Int]) -> Int {
    value &- countLess(sorted, than: value)
  }

  /// Whether `list` is strictly ascending and starts at or above zero.
  @inlinable
  static func isStrictlyAscendingAndNonNegative(_ list: [Int]) -> Bool {
    var previous = -1
    for value in list {
      guard value > previous else { return false }
      previous = value
    }
    return true
  }

  /// `list` sorted with repeated values removed.
  @inlinable
  static func sortedUnique(_ list: [Int]) -> [Int] {
    var sorted = list
    sorted.sort()
    var result: [Int] = []
    result.reserveCapacity(sorted.count)
    for value in sorted where result.last != value { result.append(value) }
    return result
  }
}
