// libFuzzer target: the query parser (`Query(parsing:for:)`, on the repositories schema).
//
// Any input must parse or throw a `QueryError`; never trap. A query that parses must print
// (`Query.text`) to text that parses back to the same query, and the engine's compiled predicate
// must agree with the reference evaluator on a few records.
// Built and run by scripts/fuzz.sh; not part of the package.
import Foundation

@testable import LiveLog

private let samples: [[FieldValue]] = {
  var a = Repository(id: 1, fullName: "apple/swift")
  a.name = "swift"
  a.description = "The Swift Programming Language — ÉTÉ straße"
  a.language = "C++"
  a.stargazersCount = 60_000
  a.topics = ["swift", "compiler"]
  a.isFork = false
  var b = Repository(id: -7, fullName: "o/r")
  b.language = nil
  b.topics = []
  b.isArchived = true
  return [a.fieldValues, b.fieldValues, Repository(id: 0, fullName: "").fieldValues]
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzQueryParser(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
  let query: Query
  do throws(QueryError) {
    query = try Query(parsing: text, for: Repository.self)
  } catch {
    _ = error.description
    return 0
  }
  let printed = query.text
  guard let again = try? Query(parsing: printed, for: Repository.self) else {
    fatalError(
      "the text of a parsed query does not parse: \(text.debugDescription) → \(printed.debugDescription)")
  }
  guard again == query else {
    fatalError(
      "the text of a parsed query parses to another query: \(text.debugDescription) → \(printed.debugDescription)"
    )
  }
  let compiled = CompiledPredicate(query.predicate)
  for values in samples {
    let reference = PredicateEvaluator.matches(query.predicate) { values[$0.position] }
    let engine = compiled.matches { values[$0.position] }
    guard reference == engine else {
      fatalError("compiled and reference evaluators disagree on \(text.debugDescription)")
    }
  }
  return 0
}
