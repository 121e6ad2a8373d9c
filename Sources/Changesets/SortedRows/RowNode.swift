/// A node of the counted B+ tree behind ``SortedRows``.
///
/// Leaves hold rows; branches hold children plus, per child, the number of rows below it, so the
/// position of a row is the sum of the counts left of the path to it: O(log n) for rank, select,
/// insert and remove, with memmoves bounded by the node capacity instead of the result's size.
/// `bounds[i]` separates `children[i]` (all rows below it are smaller) from `children[i + 1]` (all
/// rows are at least as large). A bound need not be a row that still exists: removals leave bounds
/// alone, which keeps them valid separators.
///
/// Nodes are shared between copies of a ``SortedRows`` and copied on the way down before any
/// mutation (path copying), so a value never observes another value's edits.
@usableFromInline
final class RowNode<Element: Comparable> {
  @exclusivity(unchecked) @usableFromInline var rows: ContiguousArray<Element>
  @exclusivity(unchecked) @usableFromInline var children: ContiguousArray<RowNode<Element>>
  @exclusivity(unchecked) @usableFromInline var bounds: ContiguousArray<Element>
  @exclusivity(unchecked) @usableFromInline var counts: ContiguousArray<Int>
  /// Rows below this node.
  @exclusivity(unchecked) @usableFromInline var count: Int
  @usableFromInline let isLeaf: Bool

  @inlinable
  init(rows: ContiguousArray<Element>) {
    self.rows = rows
    children = []
    bounds = []
    counts = []
    count = rows.count
    isLeaf = true
  }

  @inlinable
  init(
    children: ContiguousArray<RowNode<Element>>, bounds: ContiguousArray<Element>,
    counts: ContiguousArray<Int>
  ) {
    rows = []
    self.children = children
    self.bounds = bounds
    self.counts = counts
    var total = 0
    for count in counts { total += count }
    count = total
    isLeaf = false
  }

  /// `elements` in an array that can take one more than `capacity` elements without growing.
  ///
  /// Nodes get their full size up front, as B-tree nodes usually do: an array sized to its
  /// contents would be reallocated by the first insertion into every node, and on a freshly built
  /// tree that first insertion (a malloc, a copy and fresh pages) costs more than the rest of it.
  @inlinable
  static func reserved<Value>(_ elements: some Collection<Value>, _ capacity: Int)
    -> ContiguousArray<Value>
  {
    var array = ContiguousArray<Value>()
    array.reserveCapacity(capacity + 1)
    array.append(contentsOf: elements)
    return array
  }

  /// A node with the same contents; the arrays are shared until one side writes.
  @inlinable
  func copy() -> RowNode<Element> {
    if isLeaf { return RowNode(rows: rows) }
    return RowNode(children: children, bounds: bounds, counts: counts)
  }

  /// The smallest row below this node, or `nil` for an empty leaf.
  @inlinable
  var firstRow: Element? {
    var node = self
    while !node.isLeaf { node = node.children[0] }
    return node.rows.first
  }

  /// How many leaf entries or children this node has, against which its capacity is measured.
  @inlinable
  var width: Int { isLeaf ? rows.count : children.count }

  /// Index of the first element of `list` greater than `row`.
  ///
  /// The search reads through a buffer pointer so that elements are compared in place: copying an
  /// element out of the array would retain whatever it references (a string's storage, say), and
  /// on a cold tree that retain is a cache miss of its own.
  @inlinable
  static func upperBound(_ list: ContiguousArray<Element>, _ row: Element) -> Int {
    list.withUnsafeBufferPointer { list in
      var low = 0
      var high = list.count
      while low < high {
        let middle = (low &+ high) >> 1
        if row < list[middle] { high = middle } else { low = middle &+ 1 }
      }
      return low
    }
  }

  /// Index of the first element of `list` not less than `row`.
  @inlinable
  static func lowerBound(_ list: ContiguousArray<Element>, _ row: Element) -> Int {
    list.withUnsafeBufferPointer { list in
      var low = 0
      var high = list.count
      while low < high {
        let middle = (low &+ high) >> 1
        if list[middle] < row { low = middle &+ 1 } else { high = middle }
      }
      return low
    }
  }

  /// Position of `row` below this node, or `nil` when no row is equivalent to it.
  @inlinable
  func position(of row: Element) -> Int? {
    // The walk holds no reference of its own: `self` keeps the whole tree alive, and a strong
    // reference would retain (write to) every node on the way down.
    unowned(unsafe) var node = self
    var position = 0
    while !node.isLeaf {
      let child = RowNode.upperBound(node.bounds, row)
      node.counts.withUnsafeBufferPointer { counts in
        for index in 0..<child { position &+= counts[index] }
      }
      node = node.children[child]
    }
    let index = RowNode.lowerBound(node.rows, row)
    let found = node.rows.withUnsafeBufferPointer { rows in
      index < rows.count && !(row < rows[index])
    }
    return found ? position &+ index : nil
  }

  /// The row at `position`, which must be below `count`.
  @inlinable
  func row(at position: Int) -> Element {
    var node = self
    var remaining = position
    while !node.isLeaf {
      var child = 0
      while remaining >= node.counts[child] {
        remaining &-= node.counts[child]
        child &+= 1
      }
      node = node.children[child]
    }
    return node.rows[remaining]
  }

  /// Makes `children[index]` safe to mutate: copies it if another tree shares it.
  @inlinable
  func uniqueChild(_ index: Int) {
    if !isKnownUniquelyReferenced(&children[index]) { children[index] = children[index].copy() }
  }

  /// What an insertion did to a node.
  @usableFromInline
  enum InsertOutcome {
    /// The row is in, and the node still fits.
    case inserted
    /// The row is in, and the node split: `right` is its new right sibling, `bound` separates them.
    case split(bound: Element, right: RowNode)
    /// An equivalent row was already there; nothing changed.
    case present
  }

  /// Inserts `row` unless an equivalent row is present, adding its position below this node to
  /// `position`. Counts are only updated on the way back up, so a refused insertion leaves every
  /// node as it was, which is what lets a batch detect a collision while inserting instead of
  /// searching for every new row beforehand.
  @inlinable
  func insert(_ row: Element, _ capacity: NodeCapacity, position: inout Int) -> InsertOutcome {
    if isLeaf {
      let index = RowNode.lowerBound(rows, row)
      let present = rows.withUnsafeBufferPointer { rows in
        index < rows.count && !(row < rows[index])
      }
      if present { return .present }
      position &+= index
      rows.insert(row, at: index)
      count &+= 1
      guard rows.count > capacity.leaf else { return .inserted }
      let half = rows.count / 2
      let right = RowNode(rows: RowNode.reserved(rows[half...], capacity.leaf))
      rows.removeSubrange(half...)
      count = rows.count
      return .split(bound: right.rows[0], right: right)
    }
    let child = RowNode.upperBound(bounds, row)
    counts.withUnsafeBufferPointer { counts in
      for index in 0..<child { position &+= counts[index] }
    }
    uniqueChild(child)
    let bound: Element
    let right: RowNode
    switch children[child].insert(row, capacity, position: &position) {
    case .present:
      return .present
    case .inserted:
      counts[child] &+= 1
      count &+= 1
      return .inserted
    case .split(let splitBound, let splitRight):
      bound = splitBound
      right = splitRight
    }
    count &+= 1
    counts[child] = children[child].count
    children.insert(right, at: child + 1)
    counts.insert(right.count, at: child + 1)
    bounds.insert(bound, at: child)
    guard children.count > capacity.branch else { return .inserted }
    let half = children.count / 2
    let sibling = RowNode(
      children: RowNode.reserved(children[half...], capacity.branch),
      bounds: RowNode.reserved(bounds[half...], capacity.branch),
      counts: RowNode.reserved(counts[half...], capacity.branch))
    let separator = bounds[half - 1]
    children.removeSubrange(half...)
    counts.removeSubrange(half...)
    bounds.removeSubrange((half - 1)...)
    count &-= sibling.count
    return .split(bound: separator, right: sibling)
  }

  /// Removes the row at `position`, which must be below `count`, finding it by the counts alone:
  /// no row is compared on the way down.
  @inlinable
  func remove(at position: Int, _ capacity: NodeCapacity) {
    count &-= 1
    if isLeaf {
      rows.remove(at: position)
      return
    }
    var child = 0
    var remaining = position
    while remaining >= counts[child] {
      remaining &-= counts[child]
      child &+= 1
    }
    uniqueChild(child)
    children[child].remove(at: remaining, capacity)
    counts[child] &-= 1
    if children[child].width < capacity.minimum(leaf: children[child].isLeaf) && children.count > 1 {
      rebalance(child, capacity)
    }
  }

  /// Merges the underfull `children[index]` with a neighbour, or evens the two out when the merged
  /// node would overflow.
  @inlinable
  func rebalance(_ index: Int, _ capacity: NodeCapacity) {
    let leftIndex = index + 1 < children.count ? index : index - 1
    uniqueChild(leftIndex)
    uniqueChild(leftIndex + 1)
    let left = children[leftIndex]
    let right = children[leftIndex + 1]
    if left.isLeaf {
      if left.rows.count + right.rows.count <= capacity.leaf {
        left.rows.append(contentsOf: right.rows)
        left.count = left.rows.count
        removeChild(after: leftIndex)
      } else {
        var all = left.rows
        all.append(contentsOf: right.rows)
        let half = all.count / 2
        left.rows = RowNode.reserved(all[..<half], capacity.leaf)
        right.rows = RowNode.reserved(all[half...], capacity.leaf)
        left.count = left.rows.count
        right.count = right.rows.count
        counts[leftIndex] = left.count
        counts[leftIndex + 1] = right.count
        bounds[leftIndex] = right.rows[0]
      }
      return
    }
    if left.children.count + right.children.count <= capacity.branch {
      left.bounds.append(bounds[leftIndex])
      left.bounds.append(contentsOf: right.bounds)
      left.children.append(contentsOf: right.children)
      left.counts.append(contentsOf: right.counts)
      left.count &+= right.count
      removeChild(after: leftIndex)
    } else {
      var children = left.children
      children.append(contentsOf: right.children)
      var counts = left.counts
      counts.append(contentsOf: right.counts)
      var bounds = left.bounds
      bounds.append(self.bounds[leftIndex])
      bounds.append(contentsOf: right.bounds)
      let half = children.count / 2
      left.children = RowNode.reserved(children[..<half], capacity.branch)
      left.counts = RowNode.reserved(counts[..<half], capacity.branch)
      left.bounds = RowNode.reserved(bounds[..<(half - 1)], capacity.branch)
      right.children = RowNode.reserved(children[half...], capacity.branch)
      right.counts = RowNode.reserved(counts[half...], capacity.branch)
      right.bounds = RowNode.reserved(bounds[half...], capacity.branch)
      left.count = left.counts.reduce(0, &+)
      right.count = right.counts.reduce(0, &+)
      self.counts[leftIndex] = left.count
      self.counts[leftIndex + 1] = right.count
      self.bounds[leftIndex] = bounds[half - 1]
    }
  }

  /// Drops `children[index + 1]` after its contents went into `children[index]`.
  @inlinable
  func removeChild(after index: Int) {
    counts[index] = children[index].count
    children.remove(at: index + 1)
    counts.remove(at: index + 1)
    bounds.remove(at: index)
  }
}

/// Largest number of rows per leaf and children per branch.
@usableFromInline
struct NodeCapacity: Sendable {
  @usableFromInline let leaf: Int
  @usableFromInline let branch: Int

  @inlinable
  init(leaf: Int, branch: Int) {
    // Splitting needs room for two halves that are still at least a quarter full.
    self.leaf = max(leaf, 4)
    self.branch = max(branch, 4)
  }

  /// Fewest entries a non-root node may keep. A branch needs two children: with one, an emptied
  /// leaf below it would have no sibling to merge with.
  @inlinable
  func minimum(leaf isLeaf: Bool) -> Int {
    isLeaf ? max(leaf / 4, 1) : max(branch / 4, 2)
  }
}

// Nodes are mutated only after `isKnownUniquelyReferenced` proved that a single tree owns them
// (path copying in SortedRows and uniqueChild), so a node reachable from two values, or two threads,
// is never written to.
extension RowNode: @unchecked Sendable where Element: Sendable {}
