/// Hash of an id for the matching table.
///
/// Row ids are integers, and `Hasher` (SipHash) costs more than the rest of a table probe; for the
/// integer types a seeded SplitMix64 finaliser spreads sequential ids just as well. The type tests are
/// resolved at compile time once the function is specialised, so each instantiation keeps one branch.
/// The per-diff random seed keeps precomputed colliding id sets from degrading the table.
@inlinable @inline(__always)
func identityHash<ID: Hashable>(_ id: ID, seed: UInt64) -> Int {
  let bits: UInt64
  if MemoryLayout<ID>.size == 8
    && (ID.self == UInt64.self || ID.self == Int.self || ID.self == Int64.self || ID.self == UInt.self)
  {
    bits = unsafeBitCast(id, to: UInt64.self)
  } else if ID.self == UInt32.self || ID.self == Int32.self {
    bits = UInt64(unsafeBitCast(id, to: UInt32.self))
  } else {
    var hasher = Hasher()
    hasher.combine(id)
    return hasher.finalize()
  }
  var x = bits &+ seed
  x = (x ^ (x >> 30)) &* 0xbf58_476d_1ce4_e5b9
  x = (x ^ (x >> 27)) &* 0x94d0_49bb_1331_11eb
  return Int(truncatingIfNeeded: x ^ (x >> 31))
}

/// The row-by-row matching of two id lists (Heckel's symbol table, specialised to unique ids) and
/// the longest run of matched rows that kept their order.
///
/// The table is open addressing with linear probing over 32-bit slots that point back into the id
/// arrays instead of copying ids: `k + 1` means `old[k]`, `-(j + 1)` means `new[j]` (an id only the
/// new side has; kept so that a repeated new id is caught too), 0 means empty. Keeping slots at four
/// bytes keeps the 100,000-row table within the last-level cache.
@usableFromInline
struct IDMatching<ID: Hashable> {
  @usableFromInline let old: [ID]
  @usableFromInline let new: [ID]
  @usableFromInline let slots: [Int32]
  @usableFromInline let mask: Int
  @usableFromInline let seed: UInt64
  /// New index of each old row, or -1 when the row was deleted.
  @usableFromInline let oldToNew: [Int32]
  /// Old index of each new row, or -1 when the row was inserted.
  @usableFromInline let newToOld: [Int32]
  /// Per new index: the row is common and on the chosen longest increasing subsequence, so it stays.
  @usableFromInline let stable: [Bool]
  @usableFromInline let stableCount: Int

  /// Matches `old` against `new`; throws ``ChangesetError/duplicateID(id:side:firstIndex:secondIndex:)``
  /// for the first repeated id found.
  @inlinable
  init(old: [ID], new: [ID]) throws(ChangesetError) {
    let total = old.count + new.count
    guard total < Int(Int32.max) / 2 else { throw .tooManyElements(count: total) }
    // Load stays at or below 2/3 even if every new id is unknown; typically far lower.
    var capacity = 16
    while capacity < total + total / 2 { capacity <<= 1 }
    let mask = capacity - 1
    let seed = UInt64.random(in: .min ... .max)
    var slots = [Int32](repeating: 0, count: capacity)
    var oldToNew = [Int32](repeating: -1, count: old.count)
    var newToOld = [Int32](repeating: -1, count: new.count)
    if let duplicate = IDMatching.match(
      old: old, new: new, slots: &slots, oldToNew: &oldToNew, newToOld: &newToOld, mask: mask,
      seed: seed)
    {
      let id = duplicate.side == .old ? old[duplicate.second] : new[duplicate.second]
      throw .duplicateID(
        id: String(describing: id), side: duplicate.side, firstIndex: duplicate.first,
        secondIndex: duplicate.second)
    }
    var stable = [Bool](repeating: false, count: new.count)
    let stableCount = markLongestIncreasing(newToOld: newToOld, stable: &stable)
    self.old = old
    self.new = new
    self.slots = slots
    self.mask = mask
    self.seed = seed
    self.oldToNew = oldToNew
    self.newToOld = newToOld
    self.stable = stable
    self.stableCount = stableCount
  }

  /// Fills the table and both index maps; returns the first repeated id's positions, if any.
  @inlinable
  static func match(
    old: [ID], new: [ID], slots: inout [Int32], oldToNew: inout [Int32], newToOld: inout [Int32],
    mask: Int, seed: UInt64
  ) -> (side: ChangesetError.Side, first: Int, second: Int)? {
    old.withUnsafeBufferPointer { old in
      new.withUnsafeBufferPointer { new in
        slots.withUnsafeMutableBufferPointer { slots in
          oldToNew.withUnsafeMutableBufferPointer { oldToNew in
            newToOld.withUnsafeMutableBufferPointer { newToOld in
              for index in 0..<old.count {
                let id = old[index]
                var slot = identityHash(id, seed: seed) & mask
                while true {
                  let entry = slots[slot]
                  if entry == 0 {
                    slots[slot] = Int32(truncatingIfNeeded: index &+ 1)
                    break
                  }
                  if old[Int(entry) &- 1] == id { return (.old, Int(entry) &- 1, index) }
                  slot = (slot &+ 1) & mask
                }
              }
              for index in 0..<new.count {
                let id = new[index]
                var slot = identityHash(id, seed: seed) & mask
                while true {
                  let entry = slots[slot]
                  if entry == 0 {
                    slots[slot] = -Int32(truncatingIfNeeded: index &+ 1)
                    break
                  }
                  if entry > 0 {
                    let oldIndex = Int(entry) &- 1
                    if old[oldIndex] == id {
                      let earlier = oldToNew[oldIndex]
                      if earlier >= 0 { return (.new, Int(earlier), index) }
                      oldToNew[oldIndex] = Int32(truncatingIfNeeded: index)
                      newToOld[index] = entry &- 1
                      break
                    }
                  } else {
                    let earlier = Int(-entry) &- 1
                    if new[earlier] == id { return (.new, earlier, index) }
                  }
                  slot = (slot &+ 1) & mask
                }
              }
              return nil
            }
          }
        }
      }
    }
  }

  /// The old index of `id`, or `nil` when the old collection does not hold it.
  @inlinable
  func oldIndex(of id: ID) -> Int? {
    var slot = identityHash(id, seed: seed) & mask
    while true {
      let entry = slots[slot]
      if entry == 0 { return nil }
      if entry > 0 {
        if old[Int(entry) - 1] == id { return Int(entry) - 1 }
      } else if new[Int(-entry) - 1] == id {
        return nil
      }
      slot = (slot + 1) & mask
    }
  }

  /// Whether the row at old index `index` is common and stays in place.
  @inlinable
  func staysInPlace(oldIndex index: Int) -> Bool {
    let newIndex = oldToNew[index]
    return newIndex >= 0 && stable[Int(newIndex)]
  }

  /// Ascending old indices of the rows that stay in place and whose id is in `changed`.
  @inlinable
  func stayingOldIndices(in changed: Set<ID>) -> [Int] {
    guard !changed.isEmpty else { return [] }
    // Looking each changed id up beats testing every row once the set is small next to the rows,
    // which is the usual case (a handful of edited records in a large result).
    if changed.count <= stableCount / 4 {
      var result: [Int] = []
      for id in changed {
        if let index = oldIndex(of: id), staysInPlace(oldIndex: index) { result.append(index) }
      }
      result.sort()
      return result
    }
    return stayingOldIndices { changed.contains($0) }
  }

  /// Ascending old indices of the rows that stay in place and for which `isChanged` holds.
  @inlinable
  func stayingOldIndices(where isChanged: (ID) -> Bool) -> [Int] {
    var result: [Int] = []
    for index in 0..<old.count where staysInPlace(oldIndex: index) && isChanged(old[index]) {
      result.append(index)
    }
    return result
  }

  /// The changeset of the matching, with `modified` (ascending old indices of staying rows) as
  /// the modifications.
  @inlinable
  func changeset(modified: [Int]) -> Changeset {
    Changeset(
      oldToNew: oldToNew, newToOld: newToOld, stable: stable, stableCount: stableCount, modified: modified)
  }
}

/// Marks one longest increasing subsequence of the old indices of the common rows, taken in new
/// order: the largest set of rows that can stay while every other common row moves. Patience
/// sorting, O(c log c) for c common rows, with an O(1) check first because most rows extend the
/// longest run so far. Returns the subsequence's length.
@inlinable
func markLongestIncreasing(newToOld: [Int32], stable: inout [Bool]) -> Int {
  var tailValues: [Int32] = []
  var tailIndices: [Int32] = []
  var previous = [Int32](repeating: -1, count: newToOld.count)
  newToOld.withUnsafeBufferPointer { newToOld in
    previous.withUnsafeMutableBufferPointer { previous in
      for index in 0..<newToOld.count {
        let value = newToOld[index]
        guard value >= 0 else { continue }
        let length = tailValues.count
        var position = length
        if length > 0 && tailValues[length &- 1] > value {
          var low = 0
          var high = length &- 1
          while low < high {
            let middle = (low &+ high) >> 1
            if tailValues[middle] < value { low = middle &+ 1 } else { high = middle }
          }
          position = low
        }
        previous[index] = position > 0 ? tailIndices[position &- 1] : -1
        let index32 = Int32(truncatingIfNeeded: index)
        if position == length {
          tailValues.append(value)
          tailIndices.append(index32)
        } else {
          tailValues[position] = value
          tailIndices[position] = index32
        }
      }
    }
  }
  var cursor = tailIndices.last ?? -1
  while cursor >= 0 {
    stable[Int(cursor)] = true
    cursor = previous[Int(cursor)]
  }
  return tailValues.count
}

extension Changeset {
  /// The changeset of a row matching: `oldToNew`/`newToOld` map matched rows (-1 for unmatched),
  /// `stable` flags, per new index, the matched rows that stay; `modified` lists ascending old
  /// indices of staying rows whose content changed.
  @inlinable
  init(oldToNew: [Int32], newToOld: [Int32], stable: [Bool], stableCount: Int, modified: [Int]) {
    var deletions: [Int] = []
    deletions.reserveCapacity(oldToNew.count - stableCount)
    var insertions: [Int] = []
    insertions.reserveCapacity(newToOld.count - stableCount)
    var moves: [Move] = []
    oldToNew.withUnsafeBufferPointer { oldToNew in
      stable.withUnsafeBufferPointer { stable in
        for index in 0..<oldToNew.count {
          let newIndex = oldToNew[index]
          if newIndex < 0 || !stable[Int(newIndex)] { deletions.append(index) }
        }
      }
    }
    newToOld.withUnsafeBufferPointer { newToOld in
      stable.withUnsafeBufferPointer { stable in
        for index in 0..<newToOld.count where !stable[index] {
          insertions.append(index)
          let oldIndex = newToOld[index]
          if oldIndex >= 0 { moves.append(Move(from: Int(oldIndex), to: index)) }
        }
      }
    }
    self.init(
      uncheckedDeletions: deletions, insertions: insertions, modifications: modified,
      modificationsNew: modified.map { Int(oldToNew[$0]) }, moves: moves)
  }
}
