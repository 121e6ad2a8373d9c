/// The fields of `Repository.schema` as typed handles, the argument of `Query.where`.
///
/// Each handle offers only the operators its type allows, so `$0.stargazersCount.contains("x")`
/// and `$0.language > 5` do not compile. Names are the Swift property names of `Repository`;
/// the handles compare the API-named schema fields (`fullName` is `full_name`).
public struct RepositoryFields: Sendable {
  /// `id`.
  public let id: TypedIntegerField
  /// `node_id`.
  public let nodeID: TypedStringField
  /// `name`.
  public let name: TypedStringField
  /// `full_name`.
  public let fullName: TypedStringField
  /// `owner.login`.
  public let ownerLogin: TypedStringField
  /// `owner.avatar_url`.
  public let ownerAvatarURL: TypedStringField
  /// `html_url`.
  public let htmlURL: TypedStringField
  /// `description`.
  public let description: TypedStringField
  /// `fork`.
  public let isFork: TypedBoolField
  /// `language`.
  public let language: TypedStringField
  /// `stargazers_count`.
  public let stargazersCount: TypedIntegerField
  /// `forks_count`.
  public let forksCount: TypedIntegerField
  /// `watchers_count`.
  public let watchersCount: TypedIntegerField
  /// `open_issues_count`.
  public let openIssuesCount: TypedIntegerField
  /// `topics`.
  public let topics: TypedStringListField
  /// `license.spdx_id`.
  public let licenseSPDXID: TypedStringField
  /// `archived`.
  public let isArchived: TypedBoolField
  /// `created_at`.
  public let createdAt: TypedDateField
  /// `updated_at`.
  public let updatedAt: TypedDateField
  /// `pushed_at`.
  public let pushedAt: TypedDateField
  /// `default_branch`.
  public let defaultBranch: TypedStringField
  /// `size`.
  public let size: TypedIntegerField

  /// Built once: the handles are constants of the schema.
  static let shared = RepositoryFields()

  private init() {
    func field(_ name: String) -> Field {
      // The schema is a constant and a test checks that every handle finds its field by name and
      // type; the fallback only keeps this initializer total.
      Repository.schema.field(named: name) ?? Repository.schema.fields[0]
    }
    id = TypedIntegerField(field("id"))
    nodeID = TypedStringField(field("node_id"))
    name = TypedStringField(field("name"))
    fullName = TypedStringField(field("full_name"))
    ownerLogin = TypedStringField(field("owner.login"))
    ownerAvatarURL = TypedStringField(field("owner.avatar_url"))
    htmlURL = TypedStringField(field("html_url"))
    description = TypedStringField(field("description"))
    isFork = TypedBoolField(field("fork"))
    language = TypedStringField(field("language"))
    stargazersCount = TypedIntegerField(field("stargazers_count"))
    forksCount = TypedIntegerField(field("forks_count"))
    watchersCount = TypedIntegerField(field("watchers_count"))
    openIssuesCount = TypedIntegerField(field("open_issues_count"))
    topics = TypedStringListField(field("topics"))
    licenseSPDXID = TypedStringField(field("license.spdx_id"))
    isArchived = TypedBoolField(field("archived"))
    createdAt = TypedDateField(field("created_at"))
    updatedAt = TypedDateField(field("updated_at"))
    pushedAt = TypedDateField(field("pushed_at"))
    defaultBranch = TypedStringField(field("default_branch"))
    size = TypedIntegerField(field("size"))
  }
}
