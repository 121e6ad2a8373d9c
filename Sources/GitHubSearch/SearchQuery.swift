/// One repository search as the user asked for it: a term, a language and a page size.
///
/// Two queries are equal when GitHub would see the same search: the term's surrounding whitespace
/// and runs of inner whitespace do not count, and `.named("swift")` equals `.swift`.
public struct SearchQuery: Sendable, Hashable, CustomStringConvertible {
  /// The text as typed. It may hold GitHub qualifiers of its own (`stars:>10`, `user:octocat`).
  public var term: String
  /// The language filter.
  public var language: SearchLanguage
  /// Results per page, 1 to 100 (GitHub's range).
  public var perPage: Int

  /// Shortest term worth a request (the seed's rule: fewer than three characters is noise).
  public static let minimumTermLength = 3
  /// GitHub's default page size.
  public static let defaultPerPage = 30
  /// GitHub's largest page size.
  public static let maximumPerPage = 100
  /// GitHub's search API serves only the first 1,000 results of any search.
  public static let reachableResults = 1_000

  public init(term: String, language: SearchLanguage = .any, perPage: Int = SearchQuery.defaultPerPage) {
    self.term = term
    self.language = language
    self.perPage = perPage
  }

  /// The term trimmed, its inner runs of whitespace reduced to one space.
  public var normalizedTerm: String {
    term.split(whereSeparator: \.isWhitespace).joined(separator: " ")
  }

  /// Whether the term is long enough to search for: `minimumTermLength` characters besides
  /// whitespace. (The seed counted UTF-8 bytes, spaces included, which let a single CJK character
  /// or "a b" through.)
  public var isSearchable: Bool {
    term.lazy.filter { !$0.isWhitespace }.count >= SearchQuery.minimumTermLength
  }

  /// The `q` parameter: `tetris language:Assembly`, or the term alone for any language.
  public var qualifiedText: String {
    [normalizedTerm.nonEmpty, language.qualifier].compactMap { $0 }.joined(separator: " ")
  }

  /// The last page that can hold results GitHub will serve (34 for 30 a page).
  public var lastReachablePage: Int {
    let size = min(max(perPage, 1), SearchQuery.maximumPerPage)
    return (SearchQuery.reachableResults + size - 1) / size
  }

  public var description: String { "“\(qualifiedText)”" }

  public static func == (lhs: SearchQuery, rhs: SearchQuery) -> Bool {
    lhs.qualifiedText == rhs.qualifiedText && lhs.perPage == rhs.perPage
  }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(qualifiedText)
    hasher.combine(perPage)
  }
}
