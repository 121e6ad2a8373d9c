extension Repository {
  /// The repository as a compact JSON object in the API's shape: snake_case keys, `owner` and
  /// `license` as nested objects, dates as ISO 8601 strings. Every stored field is written, `null`
  /// when unknown, so that ingesting the output again gives back an identical repository.
  public var jsonBytes: [UInt8] {
    var writer = JSONWriter()
    write(to: &writer)
    return writer.bytes
  }

  /// `jsonBytes` as a string.
  public var json: String { String(decoding: jsonBytes, as: UTF8.self) }

  func write(to writer: inout JSONWriter) {
    func optional(_ value: Int64?) {
      if let value { writer.integer(value) } else { writer.null() }
    }
    func optional(_ value: Bool?) {
      if let value { writer.bool(value) } else { writer.null() }
    }
    func optional(_ value: Timestamp?) {
      if let value { writer.string(value.iso8601) } else { writer.null() }
    }
    writer.beginObject()
    writer.key("id")
    writer.integer(id)
    writer.key("node_id")
    writer.optionalString(nodeID)
    writer.key("name")
    writer.optionalString(name)
    writer.key("full_name")
    writer.string(fullName)
    writer.key("owner")
    writer.beginObject()
    writer.key("login")
    writer.optionalString(ownerLogin)
    writer.key("avatar_url")
    writer.optionalString(ownerAvatarURL)
    writer.endObject()
    writer.key("html_url")
    writer.optionalString(htmlURL)
    writer.key("description")
    writer.optionalString(description)
    writer.key("fork")
    optional(isFork)
    writer.key("language")
    writer.optionalString(language)
    writer.key("stargazers_count")
    optional(stargazersCount)
    writer.key("forks_count")
    optional(forksCount)
    writer.key("watchers_count")
    optional(watchersCount)
    writer.key("open_issues_count")
    optional(openIssuesCount)
    writer.key("topics")
    if let topics {
      writer.beginArray()
      for topic in topics { writer.string(topic) }
      writer.endArray()
    } else {
      writer.null()
    }
    writer.key("license")
    if let licenseSPDXID {
      writer.beginObject()
      writer.key("spdx_id")
      writer.string(licenseSPDXID)
      writer.endObject()
    } else {
      writer.null()
    }
    writer.key("archived")
    optional(isArchived)
    writer.key("created_at")
    optional(createdAt)
    writer.key("updated_at")
    optional(updatedAt)
    writer.key("pushed_at")
    optional(pushedAt)
    writer.key("default_branch")
    writer.optionalString(defaultBranch)
    writer.key("size")
    optional(size)
    writer.endObject()
  }
}

extension Event {
  /// The event as one line of NDJSON (without the newline):
  /// `{"lsn":1,"time":"…","op":"upsert","id":…,"commit_end":true,"record":{…}}`; deletes have
  /// no `record`.
  public var jsonBytes: [UInt8] {
    var writer = JSONWriter()
    writer.beginObject()
    writer.key("lsn")
    writer.integer(lsn)
    writer.key("time")
    writer.string(time.iso8601)
    writer.key("op")
    switch mutation {
    case .upsert(let repository):
      writer.string("upsert")
      writer.key("id")
      writer.integer(repository.id)
      writer.key("commit_end")
      writer.bool(endsCommit)
      writer.key("record")
      repository.write(to: &writer)
    case .delete(let id):
      writer.string("delete")
      writer.key("id")
      writer.integer(id)
      writer.key("commit_end")
      writer.bool(endsCommit)
    }
    writer.endObject()
    return writer.bytes
  }
}
