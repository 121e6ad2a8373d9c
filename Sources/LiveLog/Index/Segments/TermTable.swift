/// Equality terms of a run of rows, interned: each distinct term's bytes once in an arena, and
/// its rows in order.
struct TermTable {
  private var arena: [UInt8] = []
  private var starts: [Int] = []
  private var hashes: [UInt64] = []
  /// Open addressing, slot → term id + 1 (0: empty).
  private var slots: [Int32] = Array(repeating: 0, count: 1_024)
  private(set) var rows: [[Row]] = []

  mutating func add(_ term: UnsafeRawBufferPointer, row: Row) {
    var hasher = DigestHasher()
    hasher.combine(term)
    let hash = hasher.value
    let mask = slots.count - 1
    var slot = Int(truncatingIfNeeded: hash) & mask
    while slots[slot] != 0 {
      let id = Int(slots[slot]) - 1
      if hashes[id] == hash && bytesEqual(id, term) {
        if rows[id].last != row { rows[id].append(row) }
        return
      }
      slot = (slot + 1) & mask
    }
    let id = starts.count
    starts.append(arena.count)
    arena.append(contentsOf: term)
    hashes.append(hash)
    rows.append([row])
    slots[slot] = Int32(id + 1)
    if starts.count * 2 > slots.count { grow() }
  }

  private func bytesEqual(_ id: Int, _ term: UnsafeRawBufferPointer) -> Bool {
    let start = starts[id]
    let end = id + 1 < starts.count ? starts[id + 1] : arena.count
    guard end - start == term.count else { return false }
    return arena.withUnsafeBytes {
      ByteOrder.compare(UnsafeRawBufferPointer(rebasing: $0[start..<end]), term) == 0
    }
  }

  private mutating func grow() {
    slots = Array(repeating: 0, count: slots.count * 2)
    let mask = slots.count - 1
    for id in hashes.indices {
      var slot = Int(truncatingIfNeeded: hashes[id]) & mask
      while slots[slot] != 0 { slot = (slot + 1) & mask }
      slots[slot] = Int32(id + 1)
    }
  }

  private func range(of id: Int) -> Range<Int> {
    starts[id]..<(id + 1 < starts.count ? starts[id + 1] : arena.count)
  }

  /// The bytes of term `id`, lent to `body`.
  func withBytes<Result>(of id: Int, _ body: (UnsafeRawBufferPointer) -> Result) -> Result {
    arena.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[range(of: id)])) }
  }

  /// The order of term `a` of `x` and term `b` of `y`, bytewise.
  static func compare(_ x: TermTable, _ a: Int, _ y: TermTable, _ b: Int) -> Int {
    x.arena.withUnsafeBytes { left in
      y.arena.withUnsafeBytes { right in
        ByteOrder.compare(
          UnsafeRawBufferPointer(rebasing: left[x.range(of: a)]),
          UnsafeRawBufferPointer(rebasing: right[y.range(of: b)]))
      }
    }
  }

  /// Term ids in the order of their bytes. Each is sorted by its first eight bytes as one
  /// big-endian word (zeros past a short term's end, which sort it before the longer ones it
  /// begins) and by its whole bytes only where those are equal: comparing bytes was most of the
  /// time a segment's terms took to lay out.
  func sortedIDs() -> [Int] {
    arena.withUnsafeBytes { raw in
      var keyed = starts.indices.map { id -> (prefix: UInt64, id: Int) in
        var prefix: UInt64 = 0
        for (index, byte) in raw[range(of: id)].prefix(8).enumerated() {
          prefix |= UInt64(byte) << (56 - 8 * UInt64(index))
        }
        return (prefix, id)
      }
      keyed.sort { x, y in
        if x.prefix != y.prefix { return x.prefix < y.prefix }
        return ByteOrder.compare(
          UnsafeRawBufferPointer(rebasing: raw[range(of: x.id)]),
          UnsafeRawBufferPointer(rebasing: raw[range(of: y.id)])) < 0
      }
      return keyed.map(\.id)
    }
  }
}
