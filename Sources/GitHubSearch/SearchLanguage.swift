/// The language filter of a search: the seed app's segmented control (Swift / Objective-C), "any",
/// or any other language GitHub knows.
public enum SearchLanguage: Sendable, Hashable, CustomStringConvertible {
  /// No `language:` qualifier.
  case any
  case swift
  case objectiveC
  /// Another language by GitHub's name for it (`Assembly`, `C++`, `Jupyter Notebook`).
  case named(String)

  /// The language GitHub calls `name`; "Swift" and "Objective-C" (in any case) map to their own
  /// cases so that a picker and a typed name compare equal, and an empty name or "any" means any.
  public init(name: String) {
    let trimmed = name.trimmingWhitespace
    switch trimmed.lowercased() {
    case "", "any": self = .any
    case "swift": self = .swift
    case "objective-c", "objc", "objectivec": self = .objectiveC
    default: self = .named(trimmed)
    }
  }

  /// GitHub's name of the language, as `language:` qualifiers and the `language` field of a
  /// repository spell it; `nil` for any language.
  public var name: String? {
    switch self {
    case .any: nil
    case .swift: "Swift"
    case .objectiveC: "Objective-C"
    case .named(let name):
      switch SearchLanguage(name: name) {
      case .named(let other):
        // Quotes would end the qualifier's quoting early; no language GitHub knows has one.
        other.filter { $0 != "\"" }.trimmingWhitespace.nonEmpty
      case let known:
        known.name  // `.named("swift")` is Swift
      }
    }
  }

  /// The search qualifier: `language:Swift`, `language:"Jupyter Notebook"`; `nil` for any.
  public var qualifier: String? {
    guard let name else { return nil }
    return name.contains(where: \.isWhitespace) ? "language:\"\(name)\"" : "language:\(name)"
  }

  public var description: String { name ?? "any language" }
}

extension String {
  /// The string without leading and trailing whitespace (spaces, tabs, newlines).
  var trimmingWhitespace: String {
    guard let first = firstIndex(where: { !$0.isWhitespace }),
      let last = lastIndex(where: { !$0.isWhitespace })
    else { return "" }
    return String(self[first...last])
  }

  /// `nil` when empty, so that optional chains can treat "" as absent.
  var nonEmpty: String? { isEmpty ? nil : self }
}
