import Changesets
import Testing

@Suite("Heckel's algorithm")
struct HeckelTests {
  static let old = Array(
    "MUCH WRITING IS LIKE SNOW , A MASS OF LONG WORDS AND PHRASES FALLS UPON THE RELEVANT FACTS COVERING UP THE DETAILS ."
      .split(separator: " ").map(String.init))
  static let new = Array(
    "A MASS OF LATIN WORDS FALLS UPON THE RELEVANT FACTS LIKE SOFT SNOW , COVERING UP THE DETAILS ."
      .split(separator: " ").map(String.init))

  /// The paper's example. Tokens repeat ("THE" twice on each side), so pass 3 cannot anchor them;
  /// passes 4 and 5 match them next to "UPON"/"RELEVANT" and "UP"/"DETAILS". Derived by hand:
  ///
  /// - unmatched old tokens MUCH(0) WRITING(1) IS(2) LONG(9) AND(11) PHRASES(12) are deleted;
  /// - unmatched new tokens LATIN(3) SOFT(11) are inserted;
  /// - the 17 matched tokens, in old order, sit at new positions
  ///   10 12 13 0 1 2 4 5 6 7 8 9 14 15 16 17 18, whose only longest increasing run (length 14)
  ///   skips the first three: LIKE(3→10), SNOW(4→12) and ","(5→13) move.
  @Test func the_papers_example() throws {
    let changeset = Changeset.heckel(from: Self.old, to: Self.new)
    #expect(changeset.deletions == [0, 1, 2, 3, 4, 5, 9, 11, 12])
    #expect(changeset.insertions == [3, 10, 11, 12, 13])
    #expect(changeset.moves == [Move(from: 3, to: 10), Move(from: 4, to: 12), Move(from: 5, to: 13)])
    #expect(changeset.modifications.isEmpty)
    #expect(try changeset.applied(to: Self.old) { Self.new[$0] } == Self.new)
  }

  /// The same text with every token made unique by its occurrence number ("THE#1"), run through
  /// the unique-id diff: the first "THE" matches the first, the second the second, so the answer is
  /// the same.
  @Test func the_papers_example_with_unique_tokens() throws {
    func numbered(_ tokens: [String]) -> [String] {
      var seen: [String: Int] = [:]
      return tokens.map { token in
        seen[token, default: 0] += 1
        return "\(token)#\(seen[token] ?? 0)"
      }
    }
    let changeset = try Changeset(from: numbered(Self.old), to: numbered(Self.new))
    #expect(changeset == Changeset.heckel(from: Self.old, to: Self.new))
  }

  /// Repeated tokens away from any anchor are deleted and inserted, not matched: Heckel's known
  /// limit, stated in the documentation.
  @Test func repeats_without_anchors_are_replaced() throws {
    let changeset = Changeset.heckel(from: ["x", "a", "a", "y"], to: ["y", "a", "a", "x"])
    #expect(
      try changeset.applied(to: ["x", "a", "a", "y"]) { ["y", "a", "a", "x"][$0] } == ["y", "a", "a", "x"])
    #expect(changeset.deletions.count == 3 && changeset.moves.count == 1)
  }

  /// 600 random token lists over a small alphabet (so tokens repeat): always correct and well
  /// formed, and never more moves than matched pairs allow.
  @Test func random_sequences_with_repeats() throws {
    var rng = SplitMix64(seed: 0x5eed_0200)
    let alphabet = (0..<12).map { String(UnicodeScalar(UInt8(65 + $0))) }
    for index in 0..<600 {
      let old = (0..<Int.random(in: 0...80, using: &rng)).map { _ in alphabet.randomElement(using: &rng) ?? ""
      }
      var new = old.filter { _ in !rng.chance(0.2) }
      for _ in 0..<Int.random(in: 0...10, using: &rng) {
        new.insert(alphabet.randomElement(using: &rng) ?? "", at: Int.random(in: 0...new.count, using: &rng))
      }
      if rng.chance(0.3) { new.shuffle(using: &rng) }
      let changeset = Changeset.heckel(from: old, to: new)
      #expect(try changeset.applied(to: old) { new[$0] } == new, "case \(index)")
      let revalidated = try Changeset(
        deletions: changeset.deletions, insertions: changeset.insertions, moves: changeset.moves)
      #expect(revalidated == changeset)
      for move in changeset.moves { #expect(old[move.from] == new[move.to]) }
    }
  }
}
