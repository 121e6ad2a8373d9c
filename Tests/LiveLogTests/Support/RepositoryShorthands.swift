import Foundation
import Testing

@testable import LiveLog

// Most tests are about a store of GitHub repositories: these shorthands name the
// `repositories` collection where the library's API names a record type or a collection.

extension Query {
  /// A query over `Repository`'s fields.
  init(parsing text: String, _ arguments: any QueryArgument...) throws(QueryError) {
    try self.init(parsing: text, for: Repository.schema.declaration, arguments: arguments)
  }

  init(parsing text: String, arguments: [any QueryArgument]) throws(QueryError) {
    try self.init(parsing: text, for: Repository.schema.declaration, arguments: arguments)
  }

  static func `where`(_ build: (RecordFields<Repository>) -> QueryCondition) -> Query {
    Query.where(Repository.self, build)
  }

  func `where`(_ build: (RecordFields<Repository>) -> QueryCondition) -> Query {
    self.where(Repository.self, build)
  }

  func filter(_ text: String, _ arguments: any QueryArgument...) throws(QueryError) -> Query {
    try filter(text, schema: Repository.schema.declaration, arguments: arguments)
  }

  func sorted(by field: String, ascending: Bool = true) throws(QueryError) -> Query {
    try sorted(by: field, in: Repository.schema.declaration, ascending: ascending)
  }

  func sorted<V: FieldValueConvertible>(by keyPath: KeyPath<Repository, V>, ascending: Bool = true) -> Query {
    appendingSortKey(SortDescriptor(field: RecordFields<Repository>.field(keyPath), ascending: ascending))
  }
}

extension Store {
  func results(_ query: Query, asOf lsn: UInt64? = nil) throws -> Results<Repository> {
    try results(Repository.self, query, asOf: lsn)
  }

  func count() throws -> Int { try count(Repository.self) }

  func repository(id: Int64) throws -> Repository? { try record(Repository.self, id: id) }

  func explain(_ query: Query) throws -> QueryExplanation { try explain(query, in: "repositories") }

  func diff(_ query: Query, from: UInt64, to: UInt64) throws -> VersionDiff<Repository> {
    try diff(Repository.self, query, from: from, to: to)
  }

  /// Every repository in insertion order.
  func allRepositories() throws -> [Repository] {
    let all = try objects(Repository.self)
    return try all.indices.map { try all.record(at: $0) }
  }

  /// The `repositories` collection as stored now.
  func repositoriesCollection() throws -> StoredCollection {
    try read { _, state in
      guard let collection = state.collection(named: "repositories") else {
        throw StoreError.unknownCollection(name: "repositories", known: [])
      }
      return collection
    }
  }
}

extension RecordFile {
  func mutations() throws -> [Mutation] { try mutations(of: Repository.self) }

  /// The `InputError` that reading `text` as repositories throws, or nil if it reads.
  static func inputError(_ text: String, source: String) -> InputError? {
    do {
      _ = try RecordFile(source: source, bytes: Array(text.utf8)).mutations()
      return nil
    } catch let error as InputError {
      return error
    } catch {
      Issue.record("unexpected error \(error)")
      return nil
    }
  }
}

extension Mutation {
  static func delete(id: Int64) -> Mutation { .delete(Repository.self, id: id) }

  /// The repository an upsert carries.
  var repository: Repository? { try? record(as: Repository.self) }
}

extension Results where Element == Repository {
  func repository(at position: Int) throws -> Repository { try record(at: position) }
}

extension Mutation {
  /// The repository id a mutation concerns.
  var id: Int64 {
    if case .integer(let number)? = key { return number }
    return -1
  }
}

extension Event {
  /// The event as the mutation of a repository it records (`nil` for a schema event).
  var mutation: Mutation? {
    switch change {
    case .upsert(let record): (try? Repository(values: record)).map { Mutation.upsert($0) }
    case .delete(let key): .delete(from: Repository.schema.declaration, key: key)
    case .schema: nil
    }
  }

  /// The repository id it concerns (-1 for a schema event).
  var id: Int64 {
    if case .integer(let number)? = key { return number }
    return -1
  }
}
