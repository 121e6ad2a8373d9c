import TestSupport

@testable import LiveLog

/// A scratch store (`Store.scratch(in:)`) beside the repositories it should hold, for
/// differential tests: every write goes to both, and a query's expected answer is a brute-force
/// filter of the model (`ReferenceEvaluator`), which shares no code with the store's query path.
final class ModelledStore {
  let store: Store
  private(set) var model: [Int64: Repository] = [:]
  /// The model's field values, made once per write rather than once per record per query.
  private var fieldValues: [Int64: [FieldValue]] = [:]

  init(in directory: TemporaryDirectory) throws {
    store = try Store.scratch(in: directory)
  }

  /// Writes `repositories` in one commit.
  func upsert(_ repositories: [Repository]) throws {
    try store.write(repositories.map(Mutation.upsert))
    for repository in repositories {
      model[repository.id] = repository
      fieldValues[repository.id] = repository.fieldValues
    }
  }

  func delete(_ id: Int64) throws {
    try store.write([.delete(Repository.self, id: id)])
    model[id] = nil
    fieldValues[id] = nil
  }

  /// The ids of the model's repositories that match `query`, ascending.
  func expectedIDs(_ query: Query) -> [Int64] {
    fieldValues.filter { ReferenceEvaluator.matches(query.predicate, $0.value) }.map(\.key).sorted()
  }
}
