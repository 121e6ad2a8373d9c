import Changesets
import Foundation
import Testing

@Suite("Staging")
struct StagingTests {
  /// A row with a version, so that a stale cell (old content) is distinguishable from a fresh one.
  struct Versioned: Hashable {
    var id: Int
    var version: Int
  }

  @Test func steps_of_a_mixed_changeset() throws {
    // 1 is modified in place, 4 moves to the front, 2 is deleted, 9 is inserted.
    let changeset = try Changeset(from: [1, 2, 3, 4], to: [4, 1, 3, 9], changed: [1])
    let staged = StagedChangeset(changeset)
    #expect(staged.stages.count == 3)
    #expect(staged.stages[0].modifications == [0] && staged.stages[0].deletions.isEmpty)
    #expect(staged.stages[1].modifications.isEmpty && staged.stages[1].moves == [Move(from: 3, to: 0)])
    #expect(staged.stages[1].deletionsExcludingMoves == [1])
    #expect(staged.stages[1].insertionsExcludingMoves == [3])
    #expect(staged.stages[2].modifications == [0])
    #expect(StagedChangeset(changeset, reloadingMovedRows: false).stages.count == 2)
    #expect(StagedChangeset(.empty).isEmpty)
  }

  /// 1,200 random changes: every step obeys the rules, and committing the steps in turn, with the
  /// data source switched to each step's collection, ends at the new collection.
  @Test func random_changes_stage_safely() throws {
    var rng = SplitMix64(seed: 0x5eed_0500)
    for index in 0..<1_200 {
      let change = RandomChange.make(&rng)
      let old = change.old.map { Versioned(id: $0, version: 0) }
      let new = change.new.map { Versioned(id: $0, version: change.changed.contains($0) ? 1 : 0) }
      let changeset = try Changeset(from: change.old, to: change.new, changed: change.changed)
      let staged = StagedChangeset(changeset, reloadingMovedRows: rng.chance(0.5))
      let collections = try staged.collections(from: old, to: new)
      #expect(collections.count == staged.stages.count)
      var current = old
      var restructured = 0
      for (step, stage) in staged.stages.enumerated() {
        let reloads = Set(stage.modifications)
        let structural = !stage.deletions.isEmpty || !stage.insertions.isEmpty
        // A step either reloads or restructures, never both.
        #expect(reloads.isEmpty != !structural, "case \(index) step \(step)")
        #expect(stage.modifications == stage.modificationsNew || structural)
        if structural { restructured += 1 }
        // What UIKit would do with the step's index lists, on ids.
        let target = collections[step]
        current = try stage.applied(to: current) { target[$0] }
        #expect(current == target, "case \(index) step \(step)")
      }
      #expect(restructured <= 1)
      #expect((collections.last ?? old) == new, "case \(index)")
      // Before restructuring, the collection is the old rows with new content where modified.
      if let first = staged.stages.first, !first.modifications.isEmpty {
        let reloaded = Set(changeset.modifications.map { change.old[$0] })
        #expect(collections[0].map(\.id) == change.old)
        #expect(collections[0].allSatisfy { $0.version == (reloaded.contains($0.id) ? 1 : 0) })
      }
    }
  }

  @Test func collections_refuse_mismatched_sizes() throws {
    let staged = StagedChangeset(try Changeset(from: [1, 2], to: [2, 3]))
    #expect(throws: ChangesetError.self) { try staged.collections(from: [1, 2, 3], to: [2, 3]) }
  }

  @Test func codable_round_trip_and_shape_check() throws {
    let staged = StagedChangeset(try Changeset(from: [1, 2, 3], to: [3, 1, 4], changed: [1]))
    let data = try JSONEncoder().encode(staged)
    #expect(try JSONDecoder().decode(StagedChangeset.self, from: data) == staged)
    let twoRestructurings = Data(#"{"stages":[{"deletions":[0]},{"insertions":[0]}]}"#.utf8)
    #expect(throws: DecodingError.self) {
      try JSONDecoder().decode(StagedChangeset.self, from: twoRestructurings)
    }
  }
}
