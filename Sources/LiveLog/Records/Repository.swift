/// A GitHub repository: the item of the search API, reduced to the fields LiveLog stores.
///
/// The first record type, declared as any app's record type is: field names in queries and JSON
/// are the API's own snake_case keys (`stargazers_count`, `owner.login`). Every field but `id` and
/// `fullName` is optional, because older API responses lack keys that newer ones have (`node_id`,
/// `topics`, `license`, `archived`).
public struct Repository: Record, Hashable {
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

  /// The collection `repositories`: the fields in the order they are stored.
  public static let schema = Schema<Repository>(
    "repositories", primaryKeyIndexes: .ordered,
    fields: [
      .field("node_id", \.nodeID),
      .field("name", \.name, indexes: .substring),
      .field("full_name", \.fullName, indexes: .substring),
      .field("owner.login", \.ownerLogin, indexes: [.substring, .equality]),
      .field("owner.avatar_url", \.ownerAvatarURL),
      .field("html_url", \.htmlURL),
      .field("description", \.description, indexes: .substring),
      .field("fork", \.isFork, indexes: .equality),
      .field("language", \.language, indexes: .equality),
      .field("stargazers_count", \.stargazersCount, indexes: .ordered),
      .field("forks_count", \.forksCount, indexes: .ordered),
      .field("watchers_count", \.watchersCount, indexes: .ordered),
      .field("open_issues_count", \.openIssuesCount, indexes: .ordered),
      .field("topics", \.topics, indexes: .equality),
      .field("license.spdx_id", \.licenseSPDXID, indexes: .equality),
      .field("archived", \.isArchived, indexes: .equality),
      .field("created_at", \.createdAt, indexes: .ordered),
      .field("updated_at", \.updatedAt, indexes: .ordered),
      .field("pushed_at", \.pushedAt, indexes: .ordered),
      .field("default_branch", \.defaultBranch),
      .field("size", \.size, indexes: .ordered),
    ])

  /// GitHub data sets spell a repository in more than one way: the repos-2022 CSV has a `url`
  /// column (`/owner/name`) instead of `full_name`. The owner's login is the part of the full name
  /// before the slash when the input lacks it.
  public static func complete(_ input: inout InputRecord) throws(InputProblem) {
    if input["full_name"].isNull, let url = input.otherColumns["url"] {
      let path = url.split(separator: "/", omittingEmptySubsequences: true)
      if path.count >= 2 { input["full_name"] = .string(path.suffix(2).joined(separator: "/")) }
    }
    guard case .string(let fullName) = input["full_name"] else {
      throw InputProblem(
        field: "full_name",
        message: "missing: every repository needs a 'full_name' (or, in CSV, a 'url' of the form /owner/name)"
      )
    }
    guard !fullName.isEmpty else { throw InputProblem(field: "full_name", message: "must not be empty") }
    if input["owner.login"].isNull, let owner = fullName.split(separator: "/").first {
      input["owner.login"] = .string(String(owner))
    }
  }
}
