import Testing

@testable import Changesets

/// A row ordered by score, highest first, ties broken by id: the shape the engine's keys have.
struct ScoredRow: Comparable, Hashable, CustomStringConvertible {
  var score: Int
  var id: Int

  static func < (a: ScoredRow, b: ScoredRow) -> Bool {
    a.score != b.score ? a.score > b.score : a.id < b.id
  }

  var description: String { "\(id)@\(score)" }
}

@Suite("Sorted rows")
struct SortedRowsTests {
  static let capacities = [
    NodeCapacity(leaf: 128, branch: 64), NodeCapacity(leaf: 4, branch: 4), NodeCapacity(leaf: 8, branch: 5),
  ]

  @Test func build_count_position_and_iteration() throws {
    for capacity in Self.capacities {
      let rows = (0..<1_000).map { ScoredRow(score: 1_000 - $0 / 3, id: $0) }
      let sorted = try SortedRows(sorted: rows, capacity: capacity)
      #expect(sorted.count == 1_000)
      #expect(Array(sorted) == rows)
      #expect(sorted.invariantViolation() == nil)
      for index in stride(from: 0, to: 1_000, by: 37) {
        #expect(sorted.position(of: rows[index]) == index)
        #expect(sorted.row(at: index) == rows[index])
      }
      #expect(sorted.position(of: ScoredRow(score: 5, id: 5)) == nil)
      #expect(sorted.row(at: -1) == nil && sorted.row(at: 1_000) == nil)
    }
    #expect(Array(SortedRows<ScoredRow>()) == [])
  }

  @Test func unsorted_and_duplicate_input_are_typed_errors() {
    #expect(throws: ChangesetError.rowsNotSorted(position: 1)) {
      try SortedRows(sorted: [ScoredRow(score: 1, id: 1), ScoredRow(score: 2, id: 2)])
    }
    #expect(throws: ChangesetError.duplicateRow(row: "1@1")) {
      try SortedRows(sorted: [ScoredRow(score: 1, id: 1), ScoredRow(score: 1, id: 1)])
    }
  }

  @Test func bad_changes_are_typed_errors_and_change_nothing() throws {
    let rows = (0..<50).map { ScoredRow(score: 0, id: $0) }
    var sorted = try SortedRows(sorted: rows, capacity: NodeCapacity(leaf: 4, branch: 4))
    let missing = ScoredRow(score: 9, id: 999)
    #expect(throws: ChangesetError.rowNotFound(row: "999@9")) {
      try sorted.apply([.insert(ScoredRow(score: 1, id: 100)), .remove(missing)])
    }
    #expect(throws: ChangesetError.duplicateChange(row: "3@0")) {
      try sorted.apply([.remove(rows[3]), .update(from: rows[3], to: ScoredRow(score: 1, id: 3))])
    }
    #expect(throws: ChangesetError.duplicateRow(row: "7@0")) {
      try sorted.apply([.insert(rows[7])])
    }
    // The collision is found after removals and other insertions went in; they are undone.
    #expect(throws: ChangesetError.duplicateRow(row: "9@0")) {
      try sorted.apply([
        .remove(rows[1]), .update(from: rows[2], to: ScoredRow(score: 3, id: 2)),
        .insert(ScoredRow(score: -1, id: 60)), .insert(rows[9]),
      ])
    }
    #expect(sorted.invariantViolation() == nil)
    #expect(throws: ChangesetError.duplicateRow(row: "200@5")) {
      try sorted.apply([.insert(ScoredRow(score: 5, id: 200)), .insert(ScoredRow(score: 5, id: 200))])
    }
    #expect(Array(sorted) == rows)
    // A new row may take the key another change frees in the same batch.
    try sorted.apply([.remove(rows[7]), .insert(rows[7])])
    #expect(Array(sorted) == rows)
  }

  @Test func copies_do_not_share_mutations() throws {
    let rows = (0..<300).map { ScoredRow(score: $0 % 7, id: $0) }.sorted()
    let original = try SortedRows(sorted: rows, capacity: NodeCapacity(leaf: 4, branch: 4))
    var copy = original
    try copy.apply(rows.prefix(150).map { .remove($0) } + [.insert(ScoredRow(score: 50, id: 1_000))])
    #expect(Array(original) == rows)
    #expect(copy.count == 151)
    #expect(original.invariantViolation() == nil && copy.invariantViolation() == nil)
  }

  @Test func an_update_that_keeps_its_place_is_a_modification() throws {
    let rows = [ScoredRow(score: 9, id: 1), ScoredRow(score: 5, id: 2), ScoredRow(score: 1, id: 3)]
    var sorted = try SortedRows(sorted: rows)
    let changeset = try sorted.apply([.update(from: rows[1], to: ScoredRow(score: 6, id: 2))])
    #expect(changeset.modifications == [1] && changeset.modificationsNew == [1])
    #expect(changeset.moves.isEmpty)
    let moved = try sorted.apply([.update(from: ScoredRow(score: 6, id: 2), to: ScoredRow(score: 10, id: 2))])
    #expect(moved.moves == [Move(from: 1, to: 0)])
    #expect(moved.modifications.isEmpty)
  }

  /// 2,400 random batches over results of up to 2,000 rows, three node sizes: the result matches a
  /// full re-sort, the tree stays valid, and the changeset satisfies every property of the batch
  /// diff run on the re-sorted lists.
  @Test(arguments: 0..<3)
  func random_batches_match_a_full_resort(capacityIndex: Int) throws {
    var rng = SplitMix64(seed: 0x5eed_0100 + UInt64(capacityIndex))
    let capacity = Self.capacities[capacityIndex]
    for index in 0..<400 {
      let size = rng.size()
      let spread = Int.random(in: 1...(size / 3 + 2), using: &rng)
      var rows = (0..<size).map { ScoredRow(score: Int.random(in: 0..<spread, using: &rng), id: $0) }.sorted()
      var sorted = try SortedRows(sorted: rows, capacity: capacity)
      var nextID = size
      for batch in 0..<Int.random(in: 1...3, using: &rng) {
        let (changes, changed) = randomBatch(rows, spread: spread, nextID: &nextID, &rng)
        let changeset = try sorted.apply(changes)
        var expected = rows.filter { row in !changes.contains { $0.old == row } }
        expected.append(contentsOf: changes.compactMap(\.new))
        expected.sort()
        #expect(Array(sorted) == expected, "case \(index).\(batch)")
        #expect(sorted.invariantViolation() == nil, "case \(index).\(batch)")
        verify(
          changeset, old: rows.map(\.id), new: expected.map(\.id), expectedModified: changed,
          "case \(index).\(batch)")
        if let probe = expected.randomElement(using: &rng) {
          #expect(sorted.position(of: probe) == expected.firstIndex(of: probe))
        }
        rows = expected
      }
    }
  }

  /// Updates, removals and insertions of distinct rows; returns the ids whose content changed.
  private func randomBatch(
    _ rows: [ScoredRow], spread: Int, nextID: inout Int, _ rng: inout SplitMix64
  ) -> ([SortedRows<ScoredRow>.Change], Set<Int>) {
    let touched = min(rows.count, [0, 1, 2, 5, 10, 40, rows.count / 4][Int.random(in: 0..<7, using: &rng)])
    var changes: [SortedRows<ScoredRow>.Change] = []
    var changed: Set<Int> = []
    var usedScores: Set<ScoredRow> = []
    for row in rows.shuffled(using: &rng).prefix(touched) {
      switch Int.random(in: 0..<4, using: &rng) {
      case 0:
        changes.append(.remove(row))
      case 1:
        let contentChanged = rng.chance(0.5)
        changes.append(.update(from: row, to: row, contentChanged: contentChanged))
        if contentChanged { changed.insert(row.id) }
      default:
        var new = ScoredRow(score: Int.random(in: 0..<spread, using: &rng), id: row.id)
        while usedScores.contains(new) { new.score += spread }
        usedScores.insert(new)
        let contentChanged = rng.chance(0.7)
        changes.append(.update(from: row, to: new, contentChanged: contentChanged))
        if contentChanged { changed.insert(row.id) }
      }
    }
    for _ in 0..<Int.random(in: 0...(touched / 2 + 1), using: &rng) {
      changes.append(.insert(ScoredRow(score: Int.random(in: 0..<spread, using: &rng), id: nextID)))
      nextID += 1
    }
    changes.shuffle(using: &rng)
    return (changes, changed)
  }
}
