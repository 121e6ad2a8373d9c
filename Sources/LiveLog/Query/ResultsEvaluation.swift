/// What running a query found: the rows of `Results`, whatever their element type.
///
/// Not nested in the generic `Results`: a query run through `Store.results(_:_:asOf:)`, called
/// from an app's module, runs unspecialized, and every copy of a type that depends on the
/// element went through the runtime's generic witnesses (a fifth of a point query's time).
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
