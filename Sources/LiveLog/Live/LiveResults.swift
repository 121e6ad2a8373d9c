public import Changesets
public import Observation

/// Live results for SwiftUI-style code: an `@Observable` object holding the current results and
/// the last changeset, updated on the main actor after each commit that changes them.
///
/// ```swift
/// let live = try LiveResults(store.objects(Repository.self).filter("language == 'Swift'"))
/// // In a view: ForEach(live.results) { … }, animating with live.lastChangeset
/// ```
@MainActor
@Observable
public final class LiveResults<Element: Sendable> {
  /// The results now (empty until the first delivery).
  public private(set) var results: Results<Element>?
  /// The changeset of the last update; `nil` before the first update.
  public private(set) var lastChangeset: Changeset?
  /// How many deliveries have arrived (the initial one counts).
  public private(set) var deliveries = 0

  @ObservationIgnored private var task: Task<Void, Never>?

  /// Starts following `results`; see `Results.changes(keyPaths:since:coalescing:)`.
  public init(_ results: Results<Element>, keyPaths: [String]? = nil) throws(QueryError) {
    let changes = try results.changes(keyPaths: keyPaths)
    task = Task { @MainActor [weak self] in
      for await change in changes {
        guard let self else { return }
        self.take(change)
      }
    }
  }

  private func take(_ change: ResultsChange<Element>) {
    switch change {
    case .initial(let results):
      self.results = results
    case .update(let results, let changeset):
      self.results = results
      lastChangeset = changeset
    }
    deliveries += 1
  }

  /// Stops following the store.
  public func stop() {
    task?.cancel()
    task = nil
  }

  isolated deinit {
    task?.cancel()
  }
}
