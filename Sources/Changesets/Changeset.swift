/// The difference between two versions of an ordered collection, in the shape UIKit batch updates
/// expect (the semantics Realm's collection notifications use).
///
/// - ``deletions``: indices in the old collection of rows that are gone, ascending.
/// - ``insertions``: indices in the new collection of rows that are new, ascending.
/// - ``modifications`` / ``modificationsNew``: the rows present in both whose content changed, by
///   old index and by new index, both ascending and in the same order.
/// - ``moves``: rows present in both whose position relative to the other surviving rows changed,
///   ascending by ``Move/to``. Each `from` is also a deletion and each `to` also an insertion, so the
///   changeset stays correct when a consumer ignores moves; a moved row is never a modification.
///
/// Applying a changeset deletes ``deletions`` from the old collection (highest index first), then
/// inserts the new rows at ``insertions`` (lowest index first). Every changeset this module builds is
/// minimal: the number of moves is the number of common rows minus the length of their longest
/// common subsequence.
public struct Changeset: Hashable, Sendable {
  /// Old indices of removed rows, including the old indices of moved rows; ascending.
  public private(set) var deletions: [Int]
  /// New indices of added rows, including the new indices of moved rows; ascending.
  public private(set) var insertions: [Int]
  /// Old indices of rows present in both whose content changed and that did not move; ascending.
  public private(set) var modifications: [Int]
  /// New indices of the rows in ``modifications``, in the same order (hence also ascending).
  public private(set) var modificationsNew: [Int]
  /// Rows that changed position; ascending by ``Move/to``.
  public private(set) var moves: [Move]

  /// The changeset of a collection that did not change.
  public static let empty = Changeset(
    uncheckedDeletions: [], insertions: [], modifications: [], modificationsNew: [], moves: [])

  /// Whether nothing changed.
  @inlinable
  public var isEmpty: Bool {
    deletions.isEmpty && insertions.isEmpty && modifications.isEmpty && moves.isEmpty
  }

  /// Old indices of rows that are really gone: ``deletions`` without the sources of ``moves``.
  ///
  /// This is what `deleteRows(at:)` takes when the moves are sent with `moveRow(at:to:)`.
  public var deletionsExcludingMoves: [Int] {
    guard !moves.isEmpty else { return deletions }
    let sources = moves.map(\.from).sorted()
    return deletions.filter { !SortedIndices.contains(sources, $0) }
  }

  /// New indices of rows that are really new: ``insertions`` without the targets of ``moves``.
  ///
  /// This is what `insertRows(at:)` takes when the moves are sent with `moveRow(at:to:)`.
  public var insertionsExcludingMoves: [Int] {
    guard !moves.isEmpty else { return insertions }
    let targets = moves.map(\.to)  // already ascending
    return insertions.filter { !SortedIndices.contains(targets, $0) }
  }

  /// A changeset from explicit index lists, checked against the rules documented on the type.
  ///
  /// `moves` may come in any order; they are stored ascending by `to`. Everything else must already
  /// be ascending. Throws ``ChangesetError/malformedChangeset(_:)`` naming the first broken rule.
  public init(
    deletions: [Int] = [], insertions: [Int] = [], modifications: [Int] = [],
    modificationsNew: [Int] = [], moves: [Move] = []
  ) throws(ChangesetError) {
    self.init(
      uncheckedDeletions: deletions, insertions: insertions, modifications: modifications,
      modificationsNew: modificationsNew, moves: moves.sorted { $0.to < $1.to })
    if let problem = validationProblem() { throw .malformedChangeset(problem) }
  }

  /// A changeset whose lists the caller built correctly; internal producers skip the checks.
  @usableFromInline
  init(
    uncheckedDeletions deletions: [Int], insertions: [Int], modifications: [Int],
    modificationsNew: [Int], moves: [Move]
  ) {
    self.deletions = deletions
    self.insertions = insertions
    self.modifications = modifications
    self.modificationsNew = modificationsNew
    self.moves = moves
  }

  /// The first rule this changeset breaks, or `nil` when it is well formed.
  func validationProblem() -> String? {
    let lists = [
      ("deletions", deletions), ("insertions", insertions), ("modifications", modifications),
      ("modificationsNew", modificationsNew),
    ]
    for (name, list) in lists where !SortedIndices.isStrictlyAscendingAndNonNegative(list) {
      return "\(name) must be non-negative and strictly ascending"
    }
    guard modifications.count == modificationsNew.count else {
      return "modifications and modificationsNew must have the same length"
    }
    let sources = moves.map(\.from).sorted()
    for (index, move) in moves.enumerated() {
      guard SortedIndices.contains(deletions, move.from) else {
        return "move \(move) starts at an index missing from deletions"
      }
      guard SortedIndices.contains(insertions, move.to) else {
        return "move \(move) ends at an index missing from insertions"
      }
      if index > 0 && moves[index - 1].to == move.to { return "two moves end at \(move.to)" }
      if index > 0 && sources[index - 1] == sources[index] {
        return "two moves start at \(sources[index])"
      }
    }
    // A modified row survives without moving, so its new index follows from its old one: it is the
    // r-th row that is neither deleted nor inserted on both sides.
    for (old, new) in zip(modifications, modificationsNew) {
      guard !SortedIndices.contains(deletions, old) else {
        return "modification \(old) is also a deletion"
      }
      let rank = SortedIndices.absentRank(of: old, in: deletions)
      guard SortedIndices.absent(rank, from: insertions) == new else {
        return "modification \(old) does not land at new index \(new)"
      }
    }
    return nil
  }
}

extension Changeset: Codable {
  private enum CodingKeys: String, CodingKey {
    case deletions, insertions, modifications, modificationsNew, moves
  }

  /// Decodes and validates: a stored changeset is input like any other.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    func list(_ key: CodingKeys) throws -> [Int] {
      try container.decodeIfPresent([Int].self, forKey: key) ?? []
    }
    do {
      try self.init(
        deletions: list(.deletions), insertions: list(.insertions),
        modifications: list(.modifications), modificationsNew: list(.modificationsNew),
        moves: container.decodeIfPresent([Move].self, forKey: .moves) ?? [])
    } catch let error as ChangesetError {
      throw DecodingError.dataCorrupted(
        DecodingError.Context(codingPath: decoder.codingPath, debugDescription: error.description))
    }
  }

  /// Encodes the five lists under their property names.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(deletions, forKey: .deletions)
    try container.encode(insertions, forKey: .insertions)
    try container.encode(modifications, forKey: .modifications)
    try container.encode(modificationsNew, forKey: .modificationsNew)
    try container.encode(moves, forKey: .moves)
  }
}

extension Changeset: CustomStringConvertible {
  /// The non-empty lists, e.g. `Changeset(deletions: [1], insertions: [0], moves: [1->0])`.
  public var description: String {
    var parts: [String] = []
    if !deletions.isEmpty { parts.append("deletions: \(deletions)") }
    if !insertions.isEmpty { parts.append("insertions: \(insertions)") }
    if !modifications.isEmpty {
      parts.append("modifications: \(modifications)")
      parts.append("modificationsNew: \(modificationsNew)")
    }
    if !moves.isEmpty { parts.append("moves: \(moves)") }
    return "Changeset(\(parts.joined(separator: ", ")))"
  }
}
