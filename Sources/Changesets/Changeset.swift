/// Placeholder: the diff engine lands with its own issue.
public struct Changeset: Hashable, Sendable {
  public init() {}
}
