import GitHubSearch
import LiveLog

/// The local half of a search: the live query on the store that shows cached repositories at
/// once, before GitHub answers — the seed's
/// `realm.objects(Repo).filter("full_name CONTAINS[c] %@ AND language = %@", term, language)`,
/// sorted by stars as GitHub sorts its answer.
enum LocalSearch {
  /// The results for `query`: full names containing the term (case-insensitively), in the
  /// query's language unless it is "any", most stars first.
  ///
  /// The language compares case-insensitively (`==[c]`): GitHub's `language:` qualifier does, so
  /// a search typed as `--language assembly` must find repositories GitHub files as `Assembly`.
  static func results(in store: Store, for query: SearchQuery) throws -> Results<Repository> {
    let all = try store.objects(Repository.self)
    let term = query.normalizedTerm
    let filtered =
      if let language = query.language.name {
        try all.filter("full_name CONTAINS[c] %@ AND language ==[c] %@", term, language)
      } else {
        try all.filter("full_name CONTAINS[c] %@", term)
      }
    return try filtered.sorted(by: "stargazers_count", ascending: false)
  }
}
