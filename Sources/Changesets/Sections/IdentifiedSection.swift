/// One section of a grouped result, as the batch diff sees it: the section's key and its rows' ids.
public struct IdentifiedSection<Key: Hashable, ID: Hashable> {
  /// What the rows of this section share (a language, a first letter, a day).
  public var key: Key
  /// The ids of the section's rows, in display order.
  public var ids: [ID]

  /// A section with key `key` holding `ids`.
  @inlinable
  public init(key: Key, ids: [ID]) {
    self.key = key
    self.ids = ids
  }
}

extension IdentifiedSection: Equatable {}
extension IdentifiedSection: Hashable {}
extension IdentifiedSection: Sendable where Key: Sendable, ID: Sendable {}
