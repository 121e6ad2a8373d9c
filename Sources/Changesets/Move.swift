/// A row that survived a change but whose position relative to the other surviving rows changed.
///
/// `from` is an index in the old collection and is also listed in ``Changeset/deletions``; `to` is an
/// index in the new collection and is also listed in ``Changeset/insertions``. Listing both keeps the
/// changeset applicable as plain deletions and insertions, which is what UIKit does with a move
/// internally anyway; a driver that wants move animations subtracts the moves from both lists.
public struct Move: Hashable, Sendable, Codable {
  /// Index of the row in the old collection.
  public let from: Int
  /// Index of the row in the new collection.
  public let to: Int

  /// A move of the row at old index `from` to new index `to`.
  @inlinable
  public init(from: Int, to: Int) {
    self.from = from
    self.to = to
  }
}

extension Move: CustomStringConvertible {
  /// `from->to`, short enough to read in a failed test's output.
  public var description: String { "\(from)->\(to)" }
}
