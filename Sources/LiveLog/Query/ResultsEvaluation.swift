/// What running a query found: the rows of `Results`, whatever their element type.
///
/// Not nested in the generic `Results`: `Store.results(_:_:asOf:)` is generic and runs
/// unspecialized from an app's module, and nested in `Results<Element>` the evaluation depended on
/// the element, so that every copy of it went through the runtime's witnesses (with the generic
/// read around it, a fifth of a point query's time).
struct ResultsEvaluation: Sendable {
  var rows: RowList
  /// The rows' keys, in order, when the index gave them with the rows (`QueryRun.integerKeys`).
  var integerKeys: [Int64]? = nil
  /// The collection at the results' version; `nil` when it did not exist then.
  var view: VersionView?
  var version: UInt64
  var error: StoreFailure?

  static func failed(_ error: any Error) -> ResultsEvaluation {
    ResultsEvaluation(rows: .array([]), view: nil, version: 0, error: StoreFailure(error))
  }

  /// What `query` finds in the collection `name` as of `asOf` (now when `nil`), in `read`.
  static func run(_ query: Query, of name: String, asOf: UInt64?, _ read: StateRead) throws
    -> ResultsEvaluation
  {
    // The collection as it was then: its schema of then, or nothing before it existed.
    guard let then = try read.collection(named: name, at: asOf) else {
      return ResultsEvaluation(rows: .array([]), view: nil, version: asOf ?? read.current)
    }
    let found = try then.rowsAndKeys(for: query)
    return ResultsEvaluation(
      rows: .array(found.rows), integerKeys: found.integerKeys, view: then.view(of: read.store),
      version: then.version)
  }
}
