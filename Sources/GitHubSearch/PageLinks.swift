public import Foundation

/// The pagination links of a response, from its `Link` header (RFC 8288):
/// `<https://api.github.com/search/repositories?q=…&page=2>; rel="next", <…&page=34>; rel="last"`.
///
/// The client follows pages by number, not by these URLs: a recorded Link can name another host
/// (WireMock recordings say `localhost:54240`), and following it would send the token there.
public struct PageLinks: Sendable, Hashable {
  public var first: URL?
  public var previous: URL?
  public var next: URL?
  public var last: URL?

  public init(first: URL? = nil, previous: URL? = nil, next: URL? = nil, last: URL? = nil) {
    self.first = first
    self.previous = previous
    self.next = next
    self.last = last
  }

  /// The links of a `Link` header; relative references resolve against `base`. Parsing is
  /// lenient, because a bad header must not fail a search that brought results: an entry that
  /// cannot be read is skipped, and of two links with the same relation the first counts.
  public init(header: String?, relativeTo base: URL? = nil) {
    self.init()
    guard let header else { return }
    var scanner = LinkHeaderScanner(header)
    for entry in scanner.entries() {
      guard let url = URL(string: entry.target, relativeTo: base)?.absoluteURL else { continue }
      for relation in entry.relations {
        switch relation {
        case "first" where first == nil: first = url
        case "prev" where previous == nil, "previous" where previous == nil: previous = url
        case "next" where next == nil: next = url
        case "last" where last == nil: last = url
        default: break
        }
      }
    }
  }

  /// The page number the `next` link asks for.
  public var nextPage: Int? { next.flatMap(PageLinks.pageNumber) }
  /// The page number of the `last` link: how many pages the search has (up to GitHub's 1,000 cap).
  public var lastPage: Int? { last.flatMap(PageLinks.pageNumber) }
  /// The page number the `prev` link asks for.
  public var previousPage: Int? { previous.flatMap(PageLinks.pageNumber) }

  /// The `page` query parameter of `url`, when it is a whole number of at least 1.
  public static func pageNumber(of url: URL) -> Int? {
    guard let items = URLComponents(url: url, resolvingAgainstBaseURL: true)?.queryItems,
      let value = items.first(where: { $0.name == "page" })?.value,
      let page = Int(value), page >= 1
    else { return nil }
    return page
  }
}

/// Splits a `Link` header into entries: a target in angle brackets, then `; name=value`
/// parameters, entries separated by commas. Commas inside `<…>` or a quoted value do not separate.
struct LinkHeaderScanner {
  struct Entry {
    var target: String
    /// The `rel` parameter's space-separated relation types, lowercased.
    var relations: [String]
  }

  private let characters: [Character]
  private var index = 0

  init(_ header: String) { characters = Array(header) }

  mutating func entries() -> [Entry] {
    var entries: [Entry] = []
    while true {
      skip { $0.isWhitespace || $0 == "," }
      guard index < characters.count else { return entries }
      guard characters[index] == "<" else {
        skipToNextEntry()
        continue
      }
      index += 1
      let start = index
      while index < characters.count && characters[index] != ">" { index += 1 }
      guard index < characters.count else { return entries }  // an unterminated target ends the header
      let target = String(characters[start..<index]).trimmingWhitespace
      index += 1
      var relations: [String] = []
      while true {
        skip(\.isWhitespace)
        guard index < characters.count, characters[index] == ";" else { break }
        index += 1
        let (name, value) = parameter()
        if name == "rel", let value, relations.isEmpty {
          relations = value.lowercased().split(whereSeparator: \.isWhitespace).map(String.init)
        }
      }
      skipToNextEntry()
      if !target.isEmpty { entries.append(Entry(target: target, relations: relations)) }
    }
  }

  /// `name=value`, `name="quoted \" value"` or a bare `name`; the name lowercased.
  private mutating func parameter() -> (String, String?) {
    skip(\.isWhitespace)
    let nameStart = index
    while index < characters.count, !"=;,".contains(characters[index]) { index += 1 }
    let name = String(characters[nameStart..<index]).trimmingWhitespace.lowercased()
    guard index < characters.count, characters[index] == "=" else { return (name, nil) }
    index += 1
    skip(\.isWhitespace)
    var value = ""
    if index < characters.count, characters[index] == "\"" {
      index += 1
      while index < characters.count, characters[index] != "\"" {
        if characters[index] == "\\", index + 1 < characters.count { index += 1 }
        value.append(characters[index])
        index += 1
      }
      if index < characters.count { index += 1 }
    } else {
      while index < characters.count, !";,".contains(characters[index]) {
        value.append(characters[index])
        index += 1
      }
    }
    return (name, value.trimmingWhitespace)
  }

  /// Moves past the rest of the current entry, to just after the next comma outside quotes.
  private mutating func skipToNextEntry() {
    var quoted = false
    while index < characters.count {
      let character = characters[index]
      index += 1
      if character == "\"" { quoted.toggle() }
      if character == "," && !quoted { return }
    }
  }

  private mutating func skip(_ predicate: (Character) -> Bool) {
    while index < characters.count && predicate(characters[index]) { index += 1 }
  }
}
