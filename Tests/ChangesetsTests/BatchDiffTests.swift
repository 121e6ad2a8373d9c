import Changesets
import Testing

@Suite("Batch diff")
struct BatchDiffTests {
  @Test func worked_example_from_the_documentation() throws {
    // The example of Docs/Changesets.md, checked field by field.
    let old = ["a", "b", "c", "d", "e"]
    let new = ["b", "c", "f", "e", "a"]
    let changeset = try Changeset(from: old, to: new, changed: ["c", "a"])
    #expect(changeset.deletions == [0, 3])
    #expect(changeset.insertions == [2, 4])
    #expect(changeset.moves == [Move(from: 0, to: 4)])
    #expect(changeset.modifications == [2])
    #expect(changeset.modificationsNew == [1])
    #expect(changeset.deletionsExcludingMoves == [3])
    #expect(changeset.insertionsExcludingMoves == [2])
    #expect(try changeset.applied(to: old) { new[$0] } == new)
  }

  @Test func identical_lists_give_an_empty_changeset() throws {
    let ids: [UInt64] = [5, 3, 9, 1]
    #expect(try Changeset(from: ids, to: ids).isEmpty)
    #expect(try Changeset(from: [Int](), to: []).isEmpty)
  }

  @Test func everything_replaced() throws {
    let changeset = try Changeset(from: [1, 2, 3], to: [4, 5])
    #expect(changeset.deletions == [0, 1, 2])
    #expect(changeset.insertions == [0, 1])
    #expect(changeset.moves.isEmpty)
  }

  @Test func a_rotation_moves_one_row() throws {
    let changeset = try Changeset(from: [1, 2, 3, 4, 5], to: [5, 1, 2, 3, 4])
    #expect(changeset.moves == [Move(from: 4, to: 0)])
    #expect(changeset.deletions == [4])
    #expect(changeset.insertions == [0])
  }

  @Test func reversal_keeps_one_row() throws {
    let changeset = try Changeset(from: Array(0..<6), to: Array((0..<6).reversed()))
    #expect(changeset.moves.count == 5)
  }

  @Test func modified_rows_that_move_are_not_modifications() throws {
    let changeset = try Changeset(from: [1, 2, 3], to: [3, 1, 2], changed: [1, 3])
    #expect(changeset.moves == [Move(from: 2, to: 0)])
    #expect(changeset.modifications == [0])
    #expect(changeset.modificationsNew == [1])
  }

  @Test func the_closure_form_matches_the_set_form() throws {
    var rng = SplitMix64(seed: 7)
    for _ in 0..<200 {
      let change = RandomChange.make(&rng)
      let bySet = try Changeset(from: change.old, to: change.new, changed: change.changed)
      let byClosure = try Changeset(from: change.old, to: change.new) { change.changed.contains($0) }
      #expect(bySet == byClosure)
    }
  }

  @Test func duplicate_old_id_is_a_typed_error() {
    #expect(throws: ChangesetError.duplicateID(id: "7", side: .old, firstIndex: 1, secondIndex: 3)) {
      try Changeset(from: [1, 7, 2, 7], to: [1])
    }
  }

  @Test func duplicate_common_new_id_is_a_typed_error() {
    #expect(throws: ChangesetError.duplicateID(id: "2", side: .new, firstIndex: 0, secondIndex: 2)) {
      try Changeset(from: [1, 2], to: [2, 1, 2])
    }
  }

  @Test func duplicate_inserted_new_id_is_a_typed_error() {
    #expect(
      throws: ChangesetError.duplicateID(id: "x", side: .new, firstIndex: 1, secondIndex: 2)
    ) {
      try Changeset(from: ["a"], to: ["a", "x", "x"])
    }
  }

  @Test func error_description_names_the_id_and_positions() {
    let error = ChangesetError.duplicateID(id: "7", side: .old, firstIndex: 1, secondIndex: 3)
    #expect(error.description == "id 7 occurs twice in the old collection, at 1 and 3")
  }

  /// Integer ids take the mixer path, strings take `Hasher`, and a custom struct the generic path;
  /// all must agree on the same change.
  @Test func hashing_paths_agree() throws {
    struct Key: Hashable { var value: Int }
    var rng = SplitMix64(seed: 99)
    for _ in 0..<150 {
      let change = RandomChange.make(&rng)
      let ints = try Changeset(from: change.old, to: change.new, changed: change.changed)
      let unsigned = try Changeset(
        from: change.old.map { UInt64($0 + 1) }, to: change.new.map { UInt64($0 + 1) },
        changed: Set(change.changed.map { UInt64($0 + 1) }))
      let small = try Changeset(
        from: change.old.map { Int32($0) }, to: change.new.map { Int32($0) },
        changed: Set(change.changed.map { Int32($0) }))
      let strings = try Changeset(
        from: change.old.map(String.init), to: change.new.map(String.init),
        changed: Set(change.changed.map(String.init)))
      let structs = try Changeset(
        from: change.old.map(Key.init), to: change.new.map(Key.init),
        changed: Set(change.changed.map(Key.init)))
      #expect(ints == unsigned && ints == small && ints == strings && ints == structs)
    }
  }

  /// 4,000 random changes: every property of `verify`, moves checked against the independent
  /// LCS/LIS oracle.
  @Test func random_changes_satisfy_every_property() throws {
    var rng = SplitMix64(seed: 0x5eed_0001)
    for index in 0..<4_000 {
      let change = RandomChange.make(&rng)
      let changeset = try Changeset(from: change.old, to: change.new, changed: change.changed)
      verify(changeset, old: change.old, new: change.new, expectedModified: change.changed, "case \(index)")
    }
  }

  /// The oracle itself: the LCS table and the LIS shortcut agree, and both can tell a bad answer.
  @Test func oracle_agrees_with_itself() {
    var rng = SplitMix64(seed: 3)
    for _ in 0..<200 {
      let old = Array(0..<Int.random(in: 0...60, using: &rng)).shuffled(using: &rng)
      let new = old.shuffled(using: &rng)
      var position: [Int: Int] = [:]
      for (index, id) in new.enumerated() { position[id] = index }
      #expect(Oracle.lcsLength(old, new) == Oracle.lisLength(old.compactMap { position[$0] }))
    }
    #expect(Oracle.minimalMoves([1, 2, 3], [3, 2, 1]) == 2)
  }
}
