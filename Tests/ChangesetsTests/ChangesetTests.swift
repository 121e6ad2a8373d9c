import Changesets
import Foundation
import Testing

@Suite("Changeset value")
struct ChangesetTests {
  /// One broken changeset per rule, as (deletions, insertions, modifications, modificationsNew, moves).
  static let broken: [([Int], [Int], [Int], [Int], [Move])] = [
    ([2, 1], [], [], [], []),
    ([], [-1], [], [], []),
    ([], [], [0], [], []),
    ([0], [], [], [], [Move(from: 0, to: 0)]),
    ([], [0], [], [], [Move(from: 0, to: 0)]),
    ([0, 1], [0], [], [], [Move(from: 0, to: 0), Move(from: 1, to: 0)]),
    ([0, 1], [0, 1], [], [], [Move(from: 0, to: 0), Move(from: 0, to: 1)]),
    ([0], [], [0], [0], []),
    // Row 1 survives at new index 2 (one insertion before it), not 1.
    ([], [0], [1], [1], []),
  ]

  @Test(arguments: broken.indices)
  func validation_rejects_each_broken_rule(index: Int) {
    let (deletions, insertions, modifications, modificationsNew, moves) = Self.broken[index]
    #expect(throws: ChangesetError.self) {
      try Changeset(
        deletions: deletions, insertions: insertions, modifications: modifications,
        modificationsNew: modificationsNew, moves: moves)
    }
  }

  @Test func validation_accepts_and_sorts_moves() throws {
    let changeset = try Changeset(
      deletions: [0, 3], insertions: [1, 4], modifications: [1], modificationsNew: [0],
      moves: [Move(from: 0, to: 4), Move(from: 3, to: 1)])
    #expect(changeset.moves == [Move(from: 3, to: 1), Move(from: 0, to: 4)])
  }

  @Test func codable_round_trip_and_validation() throws {
    let changeset = try Changeset(from: [1, 2, 3, 4], to: [4, 1, 3, 5], changed: [3])
    let data = try JSONEncoder().encode(changeset)
    #expect(try JSONDecoder().decode(Changeset.self, from: data) == changeset)
    let corrupt = Data(#"{"deletions":[1],"insertions":[0],"moves":[{"from":2,"to":0}]}"#.utf8)
    #expect(throws: DecodingError.self) { try JSONDecoder().decode(Changeset.self, from: corrupt) }
  }

  @Test func apply_refuses_a_collection_it_does_not_describe() throws {
    let changeset = try Changeset(deletions: [4])
    #expect(throws: ChangesetError.indexOutOfRange(index: 4, count: 3)) {
      try changeset.applied(to: [1, 2, 3]) { $0 }
    }
    let inserting = try Changeset(insertions: [5])
    #expect(throws: ChangesetError.indexOutOfRange(index: 5, count: 2)) {
      try inserting.applied(to: [1]) { $0 }
    }
  }

  @Test func apply_takes_modified_content_from_the_new_side() throws {
    let old = [(1, "a"), (2, "b"), (3, "c")]
    let new = [(3, "c"), (1, "a"), (2, "B")]
    let changeset = try Changeset(from: old.map(\.0), to: new.map(\.0), changed: [2])
    let rebuilt = try changeset.applied(to: old) { new[$0] }
    #expect(rebuilt.map(\.1) == ["c", "a", "B"])
  }

  @Test func description_lists_non_empty_parts() throws {
    let changeset = try Changeset(from: [1, 2], to: [2, 1])
    #expect(changeset.description == "Changeset(deletions: [1], insertions: [0], moves: [1->0])")
    #expect(Changeset.empty.description == "Changeset()")
  }
}
