import Foundation
import GitHubSearch
import LiveLog

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

let searchCommand = Command(
  name: "search",
  summary: "search GitHub as you type, with the store as an offline cache (full-screen)",
  help: """
    usage: livelog search [--term TEXT] [--language NAME] [--offline DIR [--latency MS]]
                          [--base-url URL] [--per-page N] [--pages N] [--highlight MS]
           livelog search --once --term TEXT [--language NAME] [--format text|json] [--ids] ...

    A full-screen search of GitHub's repositories. What the store already holds shows at once;
    GitHub is asked after a 0.5 s pause in typing, and its answer is written to the store with
    upserts, so the table changes through the store's changesets: new rows flash green, changed
    rows yellow, and the app works offline from what earlier searches stored.

    Keys: type a term (3 characters or more); Tab / Shift-Tab switch the language (Swift,
    Objective-C, any, and --language's); arrows, PgUp, PgDn, Home, End scroll; Ctrl-R searches
    again; Ctrl-U clears the term, Ctrl-W its last word; Ctrl-L redraws; Esc, Ctrl-C or Ctrl-D
    quit.

      --term TEXT       start with this term
      --language NAME   the language selected at start (default Swift; with --once, any)
      --offline DIR     answer from recorded responses (DIR/manifest.json) instead of GitHub,
                        e.g. Tests/Fixtures/github/recorded
      --latency MS      with --offline, delay each answer (default 0)
      --base-url URL    the API root (default $GITHUB_API_URL, else https://api.github.com);
                        GITHUB_TOKEN, if set, is sent as the token
      --per-page N      results per page, 1 to 100 (default 30)
      --pages N         pages to fetch per search, 1 to 10 (default 1)
      --highlight MS    how long new and changed rows stay highlighted (default 1000)

    Scripting (--once): print the local results, fetch, upsert, print the changeset the fetch
    produced, exit. The lines are those of `livelog watch` (initial, then update; json: one object
    per line, {"kind", "lsn", "count", "deletions", "insertions", "modifications",
    "modifications_new", "moves", "ids"?}); --ids adds the ids. A failed fetch exits 1.
    """,
  run: { arguments, context in
    let once = arguments.flag("--once")
    let term = try arguments.value("--term")
    let languageName = try arguments.value("--language")
    let offline = try arguments.value("--offline")
    let latency = try arguments.integer("--latency", in: 0...60_000)
    let baseURL = try arguments.value("--base-url")
    let perPage = try arguments.integer("--per-page", in: 1...SearchQuery.maximumPerPage)
    let pages = try arguments.integer("--pages", in: 1...10) ?? 1
    let format = try arguments.choice("--format", ["text", "json"])
    let withIDs = arguments.flag("--ids")
    let highlight = try arguments.integer("--highlight", in: 0...60_000) ?? 1000
    try arguments.finish()
    if !once, format != nil || withIDs {
      throw UsageError(message: "--format and --ids go with --once")
    }
    if offline == nil, latency != nil {
      throw UsageError(message: "--latency goes with --offline")
    }
    if !once, !TerminalDevice.isAvailable {
      throw UsageError(message: "\(TerminalError.notATerminal)")
    }
    let client = try searchClient(offline: offline, latency: latency ?? 0, baseURL: baseURL)

    if once {
      guard let term else { throw UsageError(message: "--once needs --term") }
      let query = SearchQuery(
        term: term, language: SearchLanguage(name: languageName ?? "any"),
        perPage: perPage ?? SearchQuery.defaultPerPage)
      guard query.isSearchable else {
        throw UsageError(
          message: "the term must have at least \(SearchQuery.minimumTermLength) characters besides spaces")
      }
      let store = try context.openStore()
      let search = SearchOnce(
        store: store, client: client, query: query, maxPages: pages, format: format ?? "text",
        withIDs: withIDs)
      return try search.run(output: context.output)
    }

    let store = try context.openStore()
    let languages = selectorLanguages(languageName)
    let session = SearchSession(
      term: TextWidth.sanitized(term ?? ""), languages: languages,
      languageIndex: languages.firstIndex(of: SearchLanguage(name: languageName ?? "Swift")) ?? 0,
      perPage: perPage ?? SearchQuery.defaultPerPage,
      title: "store \(context.storePath) · "
        + (offline.map { "offline: \($0)" } ?? client.configuration.baseURL.absoluteString),
      highlightDuration: .milliseconds(highlight))
    let outcome = blockingWait(placeholder: Result<Void, TerminalError>.success(())) {
      do throws(TerminalError) {
        let app = SearchApp(
          store: store, client: client, terminal: try TerminalDevice(), session: session, maxPages: pages)
        try await app.run()
        return .success(())
      } catch {
        return .failure(error)
      }
    }
    switch outcome {
    case .success: break
    case .failure(.notATerminal): throw UsageError(message: "\(TerminalError.notATerminal)")
    case .failure(let error): throw ExitStatus(status: 1, message: "error: \(error)")
    }
    return 0
  }
)

/// The selector's languages: Swift, Objective-C and any, as in the seed, with `name` first when it
/// is another one (`--language Assembly`).
private func selectorLanguages(_ name: String?) -> [SearchLanguage] {
  let standard: [SearchLanguage] = [.swift, .objectiveC, .any]
  guard let name else { return standard }
  let language = SearchLanguage(name: name)
  return standard.contains(language) ? standard : [language] + standard
}

/// The GitHub client: the network (with `--base-url` or the environment's API root), or recorded
/// answers from `offline`.
private func searchClient(offline: String?, latency: Int, baseURL: String?) throws -> GitHubSearchClient {
  var configuration = GitHubSearchConfiguration.fromEnvironment()
  if let baseURL {
    guard let url = URL(string: baseURL) else {
      throw UsageError(message: "--base-url '\(baseURL)' is not a URL")
    }
    configuration.baseURL = url
  }
  let transport: any HTTPTransport
  if let offline {
    do {
      transport = try RecordedResponses(
        directory: URL(fileURLWithPath: offline), latency: .milliseconds(latency))
    } catch {
      throw UsageError(message: "--offline \(offline): \(error)")
    }
  } else {
    transport = URLSessionTransport()
  }
  let client = GitHubSearchClient(configuration: configuration, transport: transport)
  do {
    _ = try client.url(for: SearchQuery(term: "livelog"))
  } catch {
    throw UsageError(message: error.message)
  }
  return client
}
