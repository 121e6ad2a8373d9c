/// Where each id of a test's model stands in insertion order: the order a collection's records
/// come in without a sort, their rows' order. A re-insert after a delete goes last, as its new row
/// does. Shares no code with the store.
struct InsertionOrder {
  private var place: [Int64: Int] = [:]
  private var next = 0

  /// Gives `id` the next place, unless it has one.
  mutating func insert(_ id: Int64) {
    guard place[id] == nil else { return }
    place[id] = next
    next += 1
  }

  mutating func remove(_ id: Int64) { place[id] = nil }

  /// Whether `a` was inserted before `b`.
  func isBefore(_ a: Int64, _ b: Int64) -> Bool { (place[a] ?? 0) < (place[b] ?? 0) }
}
