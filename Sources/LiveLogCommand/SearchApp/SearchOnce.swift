import Dispatch
import Foundation
import GitHubSearch
import LiveLog
import Synchronization

/// The scripting mode, `livelog search --once`: what the app does for one search, printed
/// instead of drawn. It prints the local results (the live query's initial delivery), fetches the
/// search's pages, upserts them in one commit, and prints the changeset that the commit produced
/// (the live query's update) — the lines of `livelog watch`: initial, then update.
///
/// A fetch that changes nothing (identical upserts, a 304) still prints an update, with an empty
/// changeset, so that a script always reads two deliveries. A failed fetch prints the error on
/// standard error and exits 1, after the local results.
struct SearchOnce {
  var store: Store
  var client: GitHubSearchClient
  var query: SearchQuery
  var maxPages: Int
  var format: String
  var withIDs: Bool

  func run(output: Output) throws -> Int32 {
    let results = try LocalSearch.results(in: store, for: query)
    let printer = DispatchQueue(label: "livelog.search.once")
    let initialShown = DispatchSemaphore(value: 0)
    let state = Mutex<(updates: Int, failure: String?)>((0, nil))
    let format = self.format
    let withIDs = self.withIDs
    let token = try results.observe(coalescing: false, on: printer) { change in
      do {
        try printChange(change.recordValues, format: format, withIDs: withIDs, to: output)
      } catch {
        state.withLock { $0.failure = "\(error)" }
      }
      if case .initial = change { initialShown.signal() } else { state.withLock { $0.updates += 1 } }
    }
    defer { token.invalidate() }
    guard initialShown.wait(timeout: .now() + .seconds(30)) == .success else {
      throw ExitStatus(status: 1, message: "error: the local query did not start")
    }

    let client = self.client
    let query = self.query
    let maxPages = self.maxPages
    let fetched = blockingWait(placeholder: Result<SearchPages, GitHubSearchError>.failure(.cancelled)) {
      do throws(GitHubSearchError) {
        return .success(try await client.pages(of: query, upTo: maxPages))
      } catch {
        return .failure(error)
      }
    }
    let pages: SearchPages
    switch fetched {
    case .success(let value): pages = value
    case .failure(let error): throw ExitStatus(status: 1, message: "error: \(error.message)")
    }

    // One commit for every page: one changeset for the whole fetch.
    let mutations = pages.results.flatMap { result -> [Mutation] in
      if case .fresh(let page) = result { return page.mutations }
      return []
    }
    let summary = mutations.isEmpty ? CommitSummary() : try store.write(mutations)
    if format == "text" {
      printer.sync { output.line(fetchLine(pages, summary)) }
    }
    store.synchronizeLiveQueries()
    printer.sync {}
    let (updates, failure) = state.withLock { ($0.updates, $0.failure) }
    if let failure { throw ExitStatus(status: 1, message: "error: \(failure)") }
    if updates == 0 {
      let now = try LocalSearch.results(in: store, for: query)
      try printer.sync {
        try printChange(.update(now.recordValues, .empty), format: format, withIDs: withIDs, to: output)
      }
    }
    if let failure = pages.failure {
      throw ExitStatus(status: 1, message: "error: a later page failed: \(failure.message)")
    }
    return 0
  }

  /// `fetched 30 repositories for “tetris language:Assembly” (page 1; 30 inserted, 0 updated, 0 unchanged)`.
  private func fetchLine(_ pages: SearchPages, _ summary: CommitSummary) -> String {
    let fresh = pages.results.filter { if case .fresh = $0 { true } else { false } }.count
    let notModified = pages.results.count - fresh
    var text = "fetched \(pages.repositories.count) repositories for \(query) ("
    text += pages.results.count == 1 ? "page 1" : "pages 1–\(pages.results.count)"
    if notModified > 0 { text += ", \(notModified) not modified" }
    text += "; \(summary.inserted) inserted, \(summary.updated) updated, \(summary.unchanged) unchanged)"
    return text
  }
}
