/// A row: a repository's position in insertion order, as indexes store it.
typealias Row = UInt32

/// Operations on ascending, duplicate-free arrays of rows: posting lists and candidate sets.
///
/// Because rows count up in insertion order, an ascending row list is already in the order of
/// unsorted results: set operations never need a sort afterwards.
enum RowSet {
  /// Rows in both. Walks the smaller list and gallops through the larger, so a short list
  /// against a long one costs O(short · log long).
  static func intersection(_ a: [Row], _ b: [Row]) -> [Row] {
    let (small, large) = a.count <= b.count ? (a, b) : (b, a)
    guard !small.isEmpty, !large.isEmpty else { return [] }
    var result: [Row] = []
    result.reserveCapacity(small.count)
    if large.count / small.count < 8 {
      // Comparable sizes: a linear merge is fastest.
      var i = 0
      var j = 0
      while i < small.count && j < large.count {
        let x = small[i]
        let y = large[j]
        if x == y {
          result.append(x)
          i += 1
          j += 1
        } else if x < y {
          i += 1
        } else {
          j += 1
        }
      }
      return result
    }
    var low = 0
    for value in small {
      low = gallop(large, from: low, to: value)
      if low == large.count { break }
      if large[low] == value { result.append(value) }
    }
    return result
  }

  /// The first index at or after `start` whose row is at least `value` (exponential, then
  /// binary search).
  static func gallop(_ rows: [Row], from start: Int, to value: Row) -> Int {
    var bound = 1
    var low = start
    while low + bound < rows.count && rows[low + bound] < value {
      low += bound
      bound *= 2
    }
    var high = min(low + bound, rows.count)
    while low < high {
      let middle = (low + high) / 2
      if rows[middle] < value { low = middle + 1 } else { high = middle }
    }
    return low
  }

  /// Rows in either.
  static func union(_ a: [Row], _ b: [Row]) -> [Row] {
    if a.isEmpty { return b }
    if b.isEmpty { return a }
    var result: [Row] = []
    result.reserveCapacity(a.count + b.count)
    var i = 0
    var j = 0
    while i < a.count && j < b.count {
      let x = a[i]
      let y = b[j]
      if x == y {
        result.append(x)
        i += 1
        j += 1
      } else if x < y {
        result.append(x)
        i += 1
      } else {
        result.append(y)
        j += 1
      }
    }
    result.append(contentsOf: a[i...])
    result.append(contentsOf: b[j...])
    return result
  }

  /// The union of many lists, pairwise so that each row is copied O(log k) times.
  static func union(_ lists: [[Row]]) -> [Row] {
    var lists = lists
    while lists.count > 1 {
      var next: [[Row]] = []
      next.reserveCapacity((lists.count + 1) / 2)
      var index = 0
      while index + 1 < lists.count {
        next.append(union(lists[index], lists[index + 1]))
        index += 2
      }
      if index < lists.count { next.append(lists[index]) }
      lists = next
    }
    return lists.first ?? []
  }

  /// Rows of `a` that are not in `b`.
  static func subtracting(_ a: [Row], _ b: [Row]) -> [Row] {
    guard !b.isEmpty else { return a }
    var result: [Row] = []
    result.reserveCapacity(a.count)
    var j = 0
    for value in a {
      while j < b.count && b[j] < value { j += 1 }
      if j < b.count && b[j] == value { continue }
      result.append(value)
    }
    return result
  }

  /// Whether the ascending `rows` contains `value`.
  static func contains(_ rows: [Row], _ value: Row) -> Bool {
    // A plain binary search: the values asked about come in no order, so galloping from the
    // start would take twice the steps.
    var low = 0
    var high = rows.count
    while low < high {
      let middle = (low + high) / 2
      if rows[middle] < value { low = middle + 1 } else { high = middle }
    }
    return low < rows.count && rows[low] == value
  }

  /// The distinct rows of `rows` (in any order), ascending. Many rows spread over a range not much
  /// wider than their count (an ordered range, which lists rows by value) are set as bits of one
  /// bitmap and read back in order: a pass over the words rather than a comparison sort.
  static func ascending(_ rows: [Row]) -> [Row] {
    guard let low = rows.min(), let high = rows.max(), let words = bitmap(of: rows, low: low, high: high)
    else { return normalized(rows) }
    var result: [Row] = []
    result.reserveCapacity(rows.count)
    for (index, word) in words.enumerated() where word != 0 {
      var bits = word
      let base = low + Row(index << 6)
      while bits != 0 {
        result.append(base + Row(bits.trailingZeroBitCount))
        bits &= bits - 1
      }
    }
    SpareWords.shared.keep(words)
    return result
  }

  /// `rows`, which lie in `low ... high`, as bits of words (bit `row - low`), or nil when they are
  /// too few or too sparse for it to pay: at least 64 rows, and no more words than four per row,
  /// so that zeroing and reading the words costs about what the rows do. Give the words to
  /// `SpareWords.shared.keep` once done with them.
  static func bitmap(of rows: [Row], low: Row, high: Row) -> [UInt64]? {
    let span = Int(high - low) + 1
    guard rows.count >= 64, span / 64 <= rows.count * 4 else { return nil }
    var words = SpareWords.shared.zeroed(span / 64 + 1)
    // Through a buffer pointer: through the array, every bit set would check that the buffer is
    // unshared. (`row - low` traps below `low`; the precondition guards the words' end, which the
    // pointer does not in optimized builds.)
    words.withUnsafeMutableBufferPointer { words in
      for row in rows {
        let (word, mask) = bit(Int(row - low))
        precondition(word < words.count, "a row past the bitmap's span")
        words[word] |= mask
      }
    }
    return words
  }

  /// The word and the bit within it of the row `offset` rows past a bitmap's first.
  @inline(__always)
  static func bit(_ offset: Int) -> (word: Int, mask: UInt64) {
    (offset >> 6, 1 << UInt64(offset & 63))
  }

  /// Sorts and removes duplicates (of rows, or of trigram codes, which are `UInt32`s too).
  static func normalized(_ rows: [Row]) -> [Row] {
    var rows = rows
    rows.sort()
    var write = 0
    for read in rows.indices where read == 0 || rows[read] != rows[read - 1] {
      rows[write] = rows[read]
      write += 1
    }
    rows.removeLast(rows.count - write)
    return rows
  }
}
