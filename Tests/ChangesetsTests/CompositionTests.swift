import Changesets
import Testing

@Suite("Composition")
struct CompositionTests {
  /// The ids each changeset reports as modified or moved, which composition reports as modified
  /// when the row ends up neither moved nor gone.
  private func touchedIDs(_ changeset: Changeset, old: [Int]) -> Set<Int> {
    Set(changeset.modifications.map { old[$0] } + changeset.moves.map { old[$0.from] })
  }

  @Test func moved_and_moved_back_is_not_a_move() throws {
    let first = try Changeset(from: [1, 2, 3, 4], to: [2, 3, 4, 1])
    let second = try Changeset(from: [2, 3, 4, 1], to: [1, 2, 3, 4])
    let composed = first.composed(with: second)
    #expect(composed.moves.isEmpty)
    #expect(composed.deletions.isEmpty && composed.insertions.isEmpty)
    // The move hid whether row 1 changed, so it is reported for reloading.
    #expect(composed.modifications == [0])
    #expect(composed.modificationsNew == [0])
  }

  @Test func inserted_then_deleted_vanishes() throws {
    let first = try Changeset(from: [1, 2], to: [1, 9, 2])
    let second = try Changeset(from: [1, 9, 2], to: [1, 2])
    #expect(first.composed(with: second).isEmpty)
  }

  @Test func modifications_carry_over_and_shift() throws {
    let first = try Changeset(from: [1, 2, 3], to: [1, 2, 3], changed: [3])
    let second = try Changeset(from: [1, 2, 3], to: [0, 1, 3], changed: [1])
    let composed = first.composed(with: second)
    #expect(composed.modifications == [0, 2])
    #expect(composed.modificationsNew == [1, 2])
    #expect(composed.deletions == [1])
    #expect(composed.insertions == [0])
  }

  /// Rows neither changeset moved can have to move in the composition: here two untouched rows
  /// give way to a longer run of rows that each step moved.
  @Test func untouched_rows_can_become_moves() throws {
    let s0 = ["a", "b", "c", "s1", "s2"]
    let s1 = ["b", "c", "s1", "s2", "a"]
    let s2 = ["s1", "s2", "a", "b", "c"]
    let first = try Changeset(from: s0, to: s1)
    let second = try Changeset(from: s1, to: s2)
    #expect(first.moves.count == 1 && second.moves.count == 2)
    let composed = first.composed(with: second)
    #expect(composed.moves == [Move(from: 3, to: 0), Move(from: 4, to: 1)])
    verify(composed, old: s0, new: s2, expectedModified: nil)
  }

  /// 2,500 random pairs of consecutive changes: the composition is correct, minimal and reports
  /// exactly the rows the rules say as modified.
  @Test func random_pairs_compose() throws {
    var rng = SplitMix64(seed: 0x5eed_0002)
    for index in 0..<2_500 {
      let one = RandomChange.make(&rng)
      let two = RandomChange.make(from: one.new, nextID: 1_000_000, &rng)
      let first = try Changeset(from: one.old, to: one.new, changed: one.changed)
      let second = try Changeset(from: two.old, to: two.new, changed: two.changed)
      let composed = first.composed(with: second)
      let expected = touchedIDs(first, old: one.old).union(touchedIDs(second, old: two.old))
      verify(composed, old: one.old, new: two.new, expectedModified: expected, "case \(index)")
    }
  }

  /// Folding a run of changesets one at a time, as a slow subscriber's queue does.
  @Test func random_runs_fold() throws {
    var rng = SplitMix64(seed: 0x5eed_0003)
    for index in 0..<300 {
      let start = RandomChange.make(&rng).old
      var current = start
      var folded = Changeset.empty
      var steps: [Changeset] = []
      for step in 0..<Int.random(in: 2...6, using: &rng) {
        let next = RandomChange.make(from: current, nextID: 1_000_000 * (step + 1), &rng)
        let changeset = try Changeset(from: current, to: next.new, changed: next.changed)
        steps.append(changeset)
        folded = folded.composed(with: changeset)
        current = next.new
      }
      verify(folded, old: start, new: current, expectedModified: nil, "case \(index)")
      // Grouping does not change the effect.
      let rightFolded = steps.dropFirst().reduce(Changeset.empty) { $0.composed(with: $1) }
      verify(steps[0].composed(with: rightFolded), old: start, new: current, expectedModified: nil)
    }
  }

  /// Changesets that do not follow each other: composition is garbage in, garbage out, but must
  /// neither trap nor produce lists that break the documented rules.
  @Test func unrelated_changesets_compose_without_trapping() throws {
    var rng = SplitMix64(seed: 0x5eed_0004)
    for index in 0..<500 {
      let one = RandomChange.make(&rng)
      let two = RandomChange.make(&rng)
      let first = try Changeset(from: one.old, to: one.new, changed: one.changed)
      let second = try Changeset(from: two.old, to: two.new, changed: two.changed)
      let composed = first.composed(with: second)
      let revalidated = try? Changeset(
        deletions: composed.deletions, insertions: composed.insertions,
        modifications: composed.modifications, modificationsNew: composed.modificationsNew,
        moves: composed.moves)
      #expect(revalidated == composed, "case \(index)")
    }
  }

  @Test func empty_is_the_identity() throws {
    let changeset = try Changeset(from: [1, 2, 3], to: [3, 4, 1], changed: [1])
    #expect(Changeset.empty.composed(with: changeset) == changeset)
    #expect(changeset.composed(with: .empty) == changeset)
  }
}
