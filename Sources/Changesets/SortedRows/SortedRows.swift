/// Rows kept in sorted order, with positions, so that a live query's result can be maintained
/// incrementally and its changes reported as a ``Changeset``.
///
/// The order is `Element`'s `<`, which must be a strict total order in which no two distinct rows
/// are equivalent. The usual way to get one is to make the element carry the query's sort key and
/// end the comparison with the row's unique id, for example:
///
/// ```swift
/// struct RepositoryRow: Comparable, Sendable {
///   var stars: Int64      // descending
///   var fullName: String  // ascending
///   var rowID: UInt64     // ties, in insertion order
///   static func < (a: Self, b: Self) -> Bool {
///     if a.stars != b.stars { return a.stars > b.stars }
///     if a.fullName != b.fullName { return a.fullName < b.fullName }
///     return a.rowID < b.rowID
///   }
/// }
/// ```
///
/// Rows are compared through the generic `Element` (specialised into the caller, no existential or
/// closure on the hot path) and found again by value: to locate a row, pass the version of it that
/// the result holds. Two rows that are neither `<` each other count as the same row.
///
/// Storage is a counted B+ tree (leaves of up to 128 rows, branches of up to 64 children, each with
/// its subtree's row count), so `count` is O(1) and ``position(of:)``, ``row(at:)`` and each row
/// inserted or removed by ``apply(_:)`` cost O(log n). Copies share nodes until they diverge.
public struct SortedRows<Element: Comparable> {
  @usableFromInline var root: RowNode<Element>
  @usableFromInline let capacity: NodeCapacity

  /// An empty result.
  @inlinable
  public init() {
    self.init(empty: NodeCapacity(leaf: 128, branch: 64))
  }

  @inlinable
  init(empty capacity: NodeCapacity) {
    root = RowNode(rows: [])
    self.capacity = capacity
  }

  /// A result holding `rows`, which must already be in ascending order. O(n).
  ///
  /// Throws ``ChangesetError/duplicateRow(row:)`` for two equivalent rows and
  /// ``ChangesetError/rowsNotSorted(position:)`` for the first row smaller than its predecessor.
  @inlinable
  public init(sorted rows: some Sequence<Element>) throws(ChangesetError) {
    try self.init(sorted: rows, capacity: NodeCapacity(leaf: 128, branch: 64))
  }

  /// As ``init(sorted:)`` with chosen node sizes; tests use tiny nodes to reach deep trees.
  @inlinable
  init(sorted rows: some Sequence<Element>, capacity: NodeCapacity) throws(ChangesetError) {
    self.capacity = capacity
    var all = ContiguousArray<Element>()
    all.reserveCapacity(rows.underestimatedCount)
    for row in rows {
      if let last = all.last, !(last < row) {
        if row < last { throw .rowsNotSorted(position: all.count) }
        throw .duplicateRow(row: String(describing: row))
      }
      all.append(row)
    }
    root = SortedRows.bulkLoad(all, capacity)
  }

  /// Builds the tree bottom-up with nodes three quarters full, leaving room for inserts before the
  /// first split. Sizes within a level differ by at most one, so no node starts underfull.
  @inlinable
  static func bulkLoad(_ rows: ContiguousArray<Element>, _ capacity: NodeCapacity) -> RowNode<Element> {
    guard rows.count > capacity.leaf else { return RowNode(rows: rows) }
    var level: [(node: RowNode<Element>, first: Element)] = []
    for range in evenChunks(rows.count, target: capacity.leaf * 3 / 4) {
      let leaf = RowNode(rows: RowNode<Element>.reserved(rows[range], capacity.leaf))
      level.append((leaf, rows[range.lowerBound]))
    }
    while level.count > 1 {
      var next: [(node: RowNode<Element>, first: Element)] = []
      for range in evenChunks(level.count, target: Swift.max(capacity.branch * 3 / 4, 2)) {
        let group = level[range]
        let node = RowNode(
          children: RowNode<Element>.reserved(group.lazy.map { $0.node }, capacity.branch),
          bounds: RowNode<Element>.reserved(group.dropFirst().lazy.map { $0.first }, capacity.branch),
          counts: RowNode<Element>.reserved(group.lazy.map { $0.node.count }, capacity.branch))
        next.append((node, group[group.startIndex].first))
      }
      level = next
    }
    return level[0].node
  }

  /// `count` split into consecutive ranges of about `target` elements whose sizes differ by at
  /// most one.
  @inlinable
  static func evenChunks(_ count: Int, target: Int) -> [Range<Int>] {
    let chunks = Swift.max(1, (count + target - 1) / target)
    var ranges: [Range<Int>] = []
    ranges.reserveCapacity(chunks)
    var start = 0
    for chunk in 0..<chunks {
      let end = count * (chunk + 1) / chunks
      ranges.append(start..<end)
      start = end
    }
    return ranges
  }

  /// Number of rows. O(1).
  @inlinable
  public var count: Int { root.count }

  /// Whether there are no rows.
  @inlinable
  public var isEmpty: Bool { root.count == 0 }

  /// The row at `position`, or `nil` when `position` is outside `0..<count`. O(log n).
  @inlinable
  public func row(at position: Int) -> Element? {
    guard position >= 0 && position < root.count else { return nil }
    return root.row(at: position)
  }

  /// The position of the row equivalent to `row`, or `nil` when there is none. O(log n).
  @inlinable
  public func position(of row: Element) -> Int? {
    root.position(of: row)
  }

  /// Whether a row equivalent to `row` is present. O(log n).
  @inlinable
  public func contains(_ row: Element) -> Bool {
    root.position(of: row) != nil
  }

  /// Copies the root if another value shares it, so the descent below can copy the rest lazily.
  @inlinable
  mutating func makeRootUnique() {
    if !isKnownUniquelyReferenced(&root) { root = root.copy() }
  }

  /// Inserts `row` and returns its position right after the insertion, or returns `nil` without
  /// changing anything when an equivalent row is present.
  @inlinable
  mutating func insertIfAbsent(_ row: Element) -> Int? {
    makeRootUnique()
    var position = 0
    switch root.insert(row, capacity, position: &position) {
    case .present:
      return nil
    case .inserted:
      return position
    case .split(let bound, let right):
      root = RowNode(
        children: [root, right], bounds: [bound], counts: [root.count, right.count])
      return position
    }
  }

  /// Removes the row at `position`, which must be below `count`.
  @inlinable
  mutating func removeRow(at position: Int) {
    makeRootUnique()
    root.remove(at: position, capacity)
    while !root.isLeaf && root.children.count == 1 { root = root.children[0] }
  }
}

extension SortedRows: Sequence {
  /// Walks the leaves left to right: O(1) amortised per row.
  public struct Iterator: IteratorProtocol {
    @usableFromInline var path: [(node: RowNode<Element>, next: Int)]
    @usableFromInline var leaf: RowNode<Element>?
    @usableFromInline var index: Int

    @inlinable
    init(root: RowNode<Element>) {
      path = []
      leaf = nil
      index = 0
      descend(from: root)
    }

    /// Follows first children down to a leaf, remembering where to continue.
    @inlinable
    mutating func descend(from start: RowNode<Element>) {
      var node = start
      while !node.isLeaf {
        path.append((node, 1))
        node = node.children[0]
      }
      leaf = node
      index = 0
    }

    /// The next row in ascending order, or `nil` after the last.
    @inlinable
    public mutating func next() -> Element? {
      while let current = leaf {
        if index < current.rows.count {
          index += 1
          return current.rows[index - 1]
        }
        leaf = nil
        while let (node, next) = path.last {
          path.removeLast()
          if next < node.children.count {
            path.append((node, next + 1))
            descend(from: node.children[next])
            break
          }
        }
      }
      return nil
    }
  }

  /// An iterator over the rows in ascending order.
  @inlinable
  public func makeIterator() -> Iterator { Iterator(root: root) }

  /// The exact number of rows, so `Array(rows)` allocates once.
  @inlinable
  public var underestimatedCount: Int { root.count }
}

extension SortedRows: Sendable where Element: Sendable {}
extension SortedRows.Iterator: Sendable where Element: Sendable {}
