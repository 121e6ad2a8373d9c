internal import Foundation

/// `manifest.json` of a recorded-responses directory, as written on disk.
///
/// ```json
/// {"entries": [{"name": "tetris-2014", "origin": "real", "note": "…",
///   "request": {"term": "tetris", "language": "assembly", "page": 1, "per_page": 30},
///   "status": 200, "headers": {"ETag": "\"…\"", "Link": "<…>; rel=\"next\""},
///   "body": "../search-responses/05_….json"}]}
/// ```
struct RecordingManifest: Decodable {
  var description: String?
  var entries: [Entry]

  struct Entry: Decodable {
    var name: String
    /// `real`, `derived` or `synthesized`: documentation only.
    var origin: String?
    var note: String?
    var request: RequestPattern
    var status: Int
    var headers: [String: String]?
    /// The body file, relative to the manifest's directory; none for a 304 or an empty body.
    var body: String?
  }

  /// Which requests an entry answers. An absent `language` matches any language (and none);
  /// an absent `per_page` matches any page size; `page` defaults to 1.
  struct RequestPattern: Decodable, Hashable {
    var term: String
    var language: String?
    var page: Int?
    var perPage: Int?

    private enum Keys: String, CodingKey {
      case term, language, page
      case perPage = "per_page"
    }

    init(from decoder: any Decoder) throws {
      let container = try decoder.container(keyedBy: Keys.self)
      term = try container.decode(String.self, forKey: .term)
      language = try container.decodeIfPresent(String.self, forKey: .language)
      page = try container.decodeIfPresent(Int.self, forKey: .page)
      perPage = try container.decodeIfPresent(Int.self, forKey: .perPage)
    }

    /// Whether the request `request` asks for what this pattern answers. Terms and languages
    /// compare without regard to case or spacing, as GitHub's search does.
    func matches(_ request: RecordedRequest) -> Bool {
      guard RecordedRequest.fold(term) == request.term, (page ?? 1) == request.page else { return false }
      if let perPage, perPage != request.perPage { return false }
      if let language, RecordedRequest.fold(language) != request.language { return false }
      return true
    }

    var summary: String {
      var text = "“\(term)"
      if let language { text += " language:\(language)" }
      text += "” page \(page ?? 1)"
      if let perPage { text += " (\(perPage) a page)" }
      return text
    }
  }
}

/// What a search request asks for, read back from its URL: the term, the `language:` qualifier,
/// the page and the page size. Folded (lowercased, spaces normalised) for matching.
struct RecordedRequest: CustomStringConvertible {
  var term: String
  var language: String?
  var page: Int
  var perPage: Int

  /// `nil` when the URL is not a repository search with a `q` parameter.
  init?(url: URL) {
    guard url.path.hasSuffix("/search/repositories"),
      let items = URLComponents(url: url, resolvingAgainstBaseURL: true)?.percentEncodedQueryItems
    else { return nil }
    func value(_ name: String) -> String? {
      // `+` means a space in a query; decode it before the percent escapes (which may hold `%2B`).
      items.first { $0.name == name }?.value?.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
    }
    guard let q = value("q") else { return nil }
    var termWords: [String] = []
    var language: String?
    for token in RecordedRequest.tokens(q) {
      if token.lowercased().hasPrefix("language:") {
        language = String(token.dropFirst("language:".count)).filter { $0 != "\"" }
      } else {
        termWords.append(token)
      }
    }
    self.term = RecordedRequest.fold(termWords.joined(separator: " "))
    self.language = language.map(RecordedRequest.fold)
    self.page = value("page").flatMap { Int($0) } ?? 1
    self.perPage = value("per_page").flatMap { Int($0) } ?? SearchQuery.defaultPerPage
  }

  var description: String {
    "“\(term)\(language.map { " language:\($0)" } ?? "")” page \(page) (\(perPage) a page)"
  }

  static func fold(_ text: String) -> String {
    text.lowercased().split(whereSeparator: \.isWhitespace).joined(separator: " ")
  }

  /// Whitespace-separated tokens; a quoted part (`language:"Jupyter Notebook"`) stays in one token.
  static func tokens(_ text: String) -> [String] {
    var tokens: [String] = []
    var current = ""
    var quoted = false
    for character in text {
      if character == "\"" { quoted.toggle() }
      if character.isWhitespace && !quoted {
        if !current.isEmpty { tokens.append(current) }
        current = ""
      } else {
        current.append(character)
      }
    }
    if !current.isEmpty { tokens.append(current) }
    return tokens
  }
}
