extension Predicate {
  /// The slots of every field the predicate reads, ascending, each once: a record whose values in
  /// these slots are unchanged matches it exactly when it did before.
  var slotsRead: [Int] {
    var slots: Set<Int> = []
    var stack: [Predicate] = [self]
    while let predicate = stack.popLast() {
      switch predicate {
      case .constant: break
      case .comparison(let comparison): slots.insert(comparison.field.position)
      case .relation(let relation): for field in relation.fields { slots.insert(field.position) }
      case .not(let inner): stack.append(inner)
      case .and(let parts), .or(let parts): stack.append(contentsOf: parts)
      }
    }
    return slots.sorted()
  }
}
