import TestSupport

@testable import LiveLog

/// A scratch store (`Store.scratch(in:)`) beside the repositories it should hold, for
/// differential tests: every write goes to both, and a query's expected answer is a brute-force
/// filter of the model (`ReferenceEvaluator`), which shares no code with the store's query path.
final class ModelledStore {
  let store: Store
  private(set) var model: [Int64: Repository] = [:]

  init(in directory: TemporaryDirectory) throws {
    store = try Store.scratch(in: directory)
  }

  /// Writes `repositories` in one commit.
  func upsert(_ repositories: [Repository]) throws {
    try store.write(repositories.map(Mutation.upsert))
    for repository in repositories { model[repository.id] = repository }
  }

  func delete(_ id: Int64) throws {
    try store.write([.delete(Repository.self, id: id)])
    model[id] = nil
  }

  /// The ids of the model's repositories that match `query`, ascending.
  func expectedIDs(_ query: Query) -> [Int64] {
    model.values.filter { ReferenceEvaluator.matches(query.predicate, $0.fieldValues) }.map(\.id).sorted()
  }
}
