/// One change to the store, as a batch carries it.
public enum Mutation: Sendable, Hashable {
  /// Insert the repository, or replace the stored one with the same id. Replacing a repository
  /// with an identical one changes nothing and writes no event.
  case upsert(Repository)
  /// Remove the repository with this id; nothing happens if there is none.
  case delete(id: Int64)

  /// The id of the repository the mutation concerns.
  public var id: Int64 {
    switch self {
    case .upsert(let repository): repository.id
    case .delete(let id): id
    }
  }
}
