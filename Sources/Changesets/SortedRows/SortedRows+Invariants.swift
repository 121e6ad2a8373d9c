extension SortedRows {
  /// The first broken structural rule, or `nil`: rows ascending, bounds separating children, counts
  /// matching, leaves at one depth, no node over capacity and none but the root under a quarter.
  /// For tests; O(n).
  func invariantViolation() -> String? {
    var leafDepth: Int?
    var previous: Element?
    func check(_ node: RowNode<Element>, depth: Int, isRoot: Bool, low: Element?, high: Element?)
      -> String?
    {
      if node.isLeaf {
        if leafDepth == nil { leafDepth = depth }
        guard leafDepth == depth else { return "leaves at depths \(leafDepth ?? -1) and \(depth)" }
        guard node.count == node.rows.count else { return "leaf count \(node.count) != rows" }
        guard node.rows.count <= capacity.leaf else { return "leaf over capacity" }
        if !isRoot && node.rows.count < capacity.minimum(leaf: true) { return "leaf underfull" }
        for row in node.rows {
          if let previous, !(previous < row) { return "rows out of order at \(row)" }
          if let low, row < low { return "row \(row) below its bound" }
          if let high, !(row < high) { return "row \(row) not below the next bound" }
          previous = row
        }
        return nil
      }
      guard node.children.count == node.counts.count, node.bounds.count == node.children.count - 1
      else { return "branch arrays disagree" }
      guard node.children.count <= capacity.branch else { return "branch over capacity" }
      if isRoot && node.children.count < 2 { return "root branch with one child" }
      if !isRoot && node.children.count < capacity.minimum(leaf: false) { return "branch underfull" }
      guard node.count == node.counts.reduce(0, +) else { return "branch count mismatch" }
      for (index, child) in node.children.enumerated() {
        guard child.count == node.counts[index] else { return "child count mismatch" }
        let childLow = index == 0 ? low : node.bounds[index - 1]
        let childHigh = index == node.bounds.count ? high : node.bounds[index]
        if let problem = check(child, depth: depth + 1, isRoot: false, low: childLow, high: childHigh) {
          return problem
        }
      }
      return nil
    }
    return check(root, depth: 0, isRoot: true, low: nil, high: nil)
  }
}
