/// A GitHub repository: the item of the search API, reduced to the fields LiveLog stores.
///
/// Field names in queries and JSON are the API's own snake_case keys (`stargazers_count`,
/// `owner.login`). Every field but `id` and `fullName` is optional, because older API responses
/// lack keys that newer ones have (`node_id`, `topics`, `license`, `archived`).
public struct Repository: Hashable, Sendable, Identifiable {
  public var id: Int64
  public var nodeID: String?
  public var name: String?
  public var fullName: String
  public var ownerLogin: String?
  public var ownerAvatarURL: String?
  public var htmlURL: String?
  public var description: String?
  public var isFork: Bool?
  public var language: String?
  public var stargazersCount: Int64?
  public var forksCount: Int64?
  public var watchersCount: Int64?
  public var openIssuesCount: Int64?
  public var topics: [String]?
  public var licenseSPDXID: String?
  public var isArchived: Bool?
  public var createdAt: Timestamp?
  public var updatedAt: Timestamp?
  public var pushedAt: Timestamp?
  public var defaultBranch: String?
  public var size: Int64?

  /// A repository with its required fields; set the others as known.
  public init(id: Int64, fullName: String) {
    self.id = id
    self.fullName = fullName
  }

  /// Longest text a field may hold, in UTF-8 bytes. GitHub limits descriptions to a few hundred
  /// characters; a longer value is a broken producer, not data.
  public static let maximumTextBytes = 64 * 1024
  /// Most topics a repository may carry (GitHub allows 20).
  public static let maximumTopics = 1_000

  /// The stored fields, in storage order.
  public static let schema = Schema([
    ("id", .integer, .ordered),
    ("node_id", .string, []),
    ("name", .string, .substring),
    ("full_name", .string, .substring),
    ("owner.login", .string, [.substring, .equality]),
    ("owner.avatar_url", .string, []),
    ("html_url", .string, []),
    ("description", .string, .substring),
    ("fork", .bool, .equality),
    ("language", .string, .equality),
    ("stargazers_count", .integer, .ordered),
    ("forks_count", .integer, .ordered),
    ("watchers_count", .integer, .ordered),
    ("open_issues_count", .integer, .ordered),
    ("topics", .stringList, .equality),
    ("license.spdx_id", .string, .equality),
    ("archived", .bool, .equality),
    ("created_at", .date, .ordered),
    ("updated_at", .date, .ordered),
    ("pushed_at", .date, .ordered),
    ("default_branch", .string, []),
    ("size", .integer, .ordered),
  ])

  /// The values of `Repository.schema`'s fields, in order.
  public var fieldValues: [FieldValue] {
    func text(_ value: String?) -> FieldValue { value.map(FieldValue.string) ?? .null }
    func number(_ value: Int64?) -> FieldValue { value.map(FieldValue.integer) ?? .null }
    func flag(_ value: Bool?) -> FieldValue { value.map(FieldValue.bool) ?? .null }
    func date(_ value: Timestamp?) -> FieldValue { value.map(FieldValue.date) ?? .null }
    return [
      .integer(id), text(nodeID), text(name), .string(fullName), text(ownerLogin), text(ownerAvatarURL),
      text(htmlURL), text(description), flag(isFork), text(language), number(stargazersCount),
      number(forksCount), number(watchersCount), number(openIssuesCount),
      topics.map(FieldValue.strings) ?? .null, text(licenseSPDXID), flag(isArchived), date(createdAt),
      date(updatedAt), date(pushedAt), text(defaultBranch), number(size),
    ]
  }

  /// Rebuilds a repository from the values of `Repository.schema`'s fields; `nil` when a value
  /// does not have its field's type or a required field is missing.
  public init?(fieldValues values: [FieldValue]) {
    guard values.count >= Repository.schema.fields.count,
      case .integer(let id) = values[0], case .string(let fullName) = values[3]
    else { return nil }
    func text(_ i: Int) -> String?? {
      switch values[i] {
      case .null: .some(nil)
      case .string(let s): .some(s)
      default: nil
      }
    }
    func number(_ i: Int) -> Int64?? {
      switch values[i] {
      case .null: .some(nil)
      case .integer(let n): .some(n)
      default: nil
      }
    }
    func flag(_ i: Int) -> Bool?? {
      switch values[i] {
      case .null: .some(nil)
      case .bool(let b): .some(b)
      default: nil
      }
    }
    func date(_ i: Int) -> Timestamp?? {
      switch values[i] {
      case .null: .some(nil)
      case .date(let d): .some(d)
      default: nil
      }
    }
    let topics: [String]??
    switch values[14] {
    case .null: topics = .some(nil)
    case .strings(let list): topics = .some(list)
    default: topics = nil
    }
    guard let nodeID = text(1), let name = text(2), let ownerLogin = text(4),
      let ownerAvatarURL = text(5), let htmlURL = text(6), let description = text(7),
      let isFork = flag(8), let language = text(9), let stars = number(10), let forks = number(11),
      let watchers = number(12), let openIssues = number(13), let topics,
      let license = text(15), let isArchived = flag(16), let createdAt = date(17),
      let updatedAt = date(18), let pushedAt = date(19), let defaultBranch = text(20),
      let size = number(21)
    else { return nil }
    self.init(id: id, fullName: fullName)
    self.nodeID = nodeID
    self.name = name
    self.ownerLogin = ownerLogin
    self.ownerAvatarURL = ownerAvatarURL
    self.htmlURL = htmlURL
    self.description = description
    self.isFork = isFork
    self.language = language
    self.stargazersCount = stars
    self.forksCount = forks
    self.watchersCount = watchers
    self.openIssuesCount = openIssues
    self.topics = topics
    self.licenseSPDXID = license
    self.isArchived = isArchived
    self.createdAt = createdAt
    self.updatedAt = updatedAt
    self.pushedAt = pushedAt
    self.defaultBranch = defaultBranch
    self.size = size
  }
}
