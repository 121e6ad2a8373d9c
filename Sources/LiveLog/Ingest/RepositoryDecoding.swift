/// Reads a `Repository` from a GitHub API repository object.
///
/// Tolerant of every era of the API: missing keys and `null` become `nil`, unknown keys are
/// ignored, dates may be ISO 8601 strings or (as some archived events have them) Unix seconds.
/// Strict about what it keeps: `id` and `full_name` are required, and a value of the wrong type
/// is an error naming the field, never silently dropped.
struct RepositoryDecoder {
  let locator: SourceLocator

  func decode(_ object: JSONObject, at offset: Int) throws(InputError) -> Repository {
    guard let idMember = object["id"], !isNull(idMember.value) else {
      throw locator.error(at: offset, field: "id", "missing: every repository needs an 'id'")
    }
    guard let fullNameMember = object["full_name"], !isNull(fullNameMember.value) else {
      throw locator.error(at: offset, field: "full_name", "missing: every repository needs a 'full_name'")
    }
    let id = try integer(idMember, "id")
    guard let fullName = try string(fullNameMember, "full_name"), !fullName.isEmpty else {
      throw locator.error(at: fullNameMember.offset, field: "full_name", "must not be empty")
    }
    var repository = Repository(id: id, fullName: fullName)
    repository.nodeID = try string(object["node_id"], "node_id")
    repository.name = try string(object["name"], "name")
    if let owner = try nestedObject(object["owner"], "owner") {
      repository.ownerLogin = try string(owner["login"], "owner.login")
      repository.ownerAvatarURL = try string(owner["avatar_url"], "owner.avatar_url")
    }
    repository.htmlURL = try string(object["html_url"], "html_url")
    repository.description = try string(object["description"], "description")
    repository.isFork = try bool(object["fork"], "fork")
    repository.language = try string(object["language"], "language")
    repository.stargazersCount = try optionalInteger(object["stargazers_count"], "stargazers_count")
    repository.forksCount = try optionalInteger(object["forks_count"], "forks_count")
    repository.watchersCount = try optionalInteger(object["watchers_count"], "watchers_count")
    repository.openIssuesCount = try optionalInteger(object["open_issues_count"], "open_issues_count")
    repository.topics = try strings(object["topics"], "topics")
    if let license = try nestedObject(object["license"], "license") {
      repository.licenseSPDXID = try string(license["spdx_id"], "license.spdx_id")
    }
    repository.isArchived = try bool(object["archived"], "archived")
    repository.createdAt = try date(object["created_at"], "created_at")
    repository.updatedAt = try date(object["updated_at"], "updated_at")
    repository.pushedAt = try date(object["pushed_at"], "pushed_at")
    repository.defaultBranch = try string(object["default_branch"], "default_branch")
    repository.size = try optionalInteger(object["size"], "size")
    return repository
  }

  private func isNull(_ value: JSONValue) -> Bool {
    if case .null = value { return true }
    return false
  }

  private func wrongType(_ member: JSONObject.Member, _ field: String, expected: String) -> InputError {
    locator.error(
      at: member.offset, field: field, "expected \(expected), found \(member.value.typeDescription)")
  }

  func integer(_ member: JSONObject.Member, _ field: String) throws(InputError) -> Int64 {
    guard case .number(let number) = member.value else {
      throw wrongType(member, field, expected: "a whole number")
    }
    guard let value = number.integer else {
      throw locator.error(
        at: member.offset, field: field,
        "expected a whole number between -2^63 and 2^63-1, found \(ControlEscaping.excerpt(number.literal))")
    }
    return value
  }

  private func optionalInteger(_ member: JSONObject.Member?, _ field: String) throws(InputError) -> Int64? {
    guard let member, !isNull(member.value) else { return nil }
    return try integer(member, field)
  }

  private func string(_ member: JSONObject.Member?, _ field: String) throws(InputError) -> String? {
    guard let member, !isNull(member.value) else { return nil }
    guard case .string(let text) = member.value else { throw wrongType(member, field, expected: "a string") }
    try checkLength(text, member, field)
    return text
  }

  private func checkLength(_ text: String, _ member: JSONObject.Member, _ field: String) throws(InputError) {
    if text.utf8.count > Repository.maximumTextBytes {
      throw locator.error(
        at: member.offset, field: field,
        "text of \(text.utf8.count) bytes is longer than the limit of \(Repository.maximumTextBytes)")
    }
  }

  private func bool(_ member: JSONObject.Member?, _ field: String) throws(InputError) -> Bool? {
    guard let member, !isNull(member.value) else { return nil }
    guard case .bool(let flag) = member.value else {
      throw wrongType(member, field, expected: "true or false")
    }
    return flag
  }

  private func nestedObject(_ member: JSONObject.Member?, _ field: String) throws(InputError) -> JSONObject? {
    guard let member, !isNull(member.value) else { return nil }
    guard case .object(let object) = member.value else {
      throw wrongType(member, field, expected: "an object")
    }
    return object
  }

  private func strings(_ member: JSONObject.Member?, _ field: String) throws(InputError) -> [String]? {
    guard let member, !isNull(member.value) else { return nil }
    guard case .array(let elements) = member.value else {
      throw wrongType(member, field, expected: "an array of strings")
    }
    guard elements.count <= Repository.maximumTopics else {
      throw locator.error(
        at: member.offset, field: field,
        "\(elements.count) entries are more than the limit of \(Repository.maximumTopics)")
    }
    var list: [String] = []
    list.reserveCapacity(elements.count)
    for element in elements {
      guard case .string(let text) = element.value else {
        throw locator.error(
          at: element.offset, field: field,
          "expected an array of strings, found \(element.value.typeDescription)")
      }
      try checkLength(
        text, JSONObject.Member(key: field, value: element.value, offset: element.offset), field)
      list.append(text)
    }
    return list
  }

  private func date(_ member: JSONObject.Member?, _ field: String) throws(InputError) -> Timestamp? {
    guard let member, !isNull(member.value) else { return nil }
    switch member.value {
    case .string(let text):
      guard let date = Timestamp(iso8601: text) else {
        throw locator.error(
          at: member.offset, field: field,
          "expected an ISO 8601 date such as 2014-01-11T09:27:47Z, found \"\(ControlEscaping.excerpt(text))\""
        )
      }
      return date
    case .number(let number):
      guard let seconds = number.integer, Timestamp.range.contains(seconds) else {
        throw locator.error(
          at: member.offset, field: field,
          "expected Unix seconds in years 1 to 9999, found \(ControlEscaping.excerpt(number.literal))")
      }
      return Timestamp(secondsSince1970: seconds)
    default:
      throw wrongType(member, field, expected: "a date string or Unix seconds")
    }
  }
}
