import Testing

@testable import LiveLog

@Suite struct QueryParserTypedFormTests {
  @Test func theSeedQueryHasTwoEqualForms() throws {
    let term = "anim"
    let language = "Swift"
    let text = try Query(parsing: "full_name CONTAINS[c] %@ AND language = %@", term, language)
    let typed = Query.where {
      $0.fullName.contains(term, options: .caseInsensitive) && $0.language == language
    }
    #expect(text == typed)
  }

  @Test func textAndTypedFormsAgree() throws {
    let day = try #require(Timestamp(iso8601: "2021-01-01"))
    let later = try #require(Timestamp(iso8601: "2022-06-30T12:00:00Z"))
    let pairs: [(String, Query)] = [
      ("language == nil", .where { $0.language == nil }),
      ("language != nil", .where { $0.language != nil }),
      ("name == 'x'", .where { $0.name == "x" }),
      ("name != 'x'", .where { $0.name != "x" }),
      ("html_url < 'm'", .where { $0.htmlURL < "m" }),
      (
        "html_url <= 'm' OR html_url > 'q' OR html_url >= 'z'",
        .where { $0.htmlURL <= "m" || $0.htmlURL > "q" || $0.htmlURL >= "z" }
      ),
      (
        "owner.login ==[cd] 'Apple'",
        .where { $0.ownerLogin.equals("Apple", options: [.caseInsensitive, .diacriticInsensitive]) }
      ),
      ("owner.avatar_url !=[c] 'a'", .where { $0.ownerAvatarURL.notEquals("a", options: .caseInsensitive) }),
      (
        "name BEGINSWITH 'a' AND name ENDSWITH[d] 'z'",
        .where { $0.name.hasPrefix("a") && $0.name.endsWith("z", options: .diacriticInsensitive) }
      ),
      (
        "name BEGINSWITH[c] 'a' OR name ENDSWITH 'z'",
        .where { $0.name.beginsWith("a", options: .caseInsensitive) || $0.name.hasSuffix("z") }
      ),
      (
        "description LIKE[c] '*swift?ui*'",
        .where { $0.description.like("*swift?ui*", options: .caseInsensitive) }
      ),
      (
        "license.spdx_id IN[c] {'mit', nil}",
        .where { $0.licenseSPDXID.in(["mit", nil], options: .caseInsensitive) }
      ),
      ("node_id CONTAINS 'MDE'", .where { $0.nodeID.contains("MDE") }),
      ("default_branch != 'main'", .where { $0.defaultBranch != "main" }),
      ("stargazers_count > 100", .where { $0.stargazersCount > 100 }),
      (
        "stargazers_count >= 1.5 AND stargazers_count < 2000",
        .where { $0.stargazersCount >= 1.5 && $0.stargazersCount < 2000 }
      ),
      (
        "watchers_count <= 7 AND watchers_count == nil",
        .where { $0.watchersCount <= Int64(7) && $0.watchersCount == nil }
      ),
      ("id != 5 AND id == 6 AND id != nil", .where { $0.id != 5 && $0.id == Int64(6) && $0.id != nil }),
      ("forks_count BETWEEN {10, 20}", .where { $0.forksCount.between(10, 20) }),
      ("forks_count BETWEEN {1.5, 2.5}", .where { $0.forksCount.between(1.5, 2.5) }),
      ("size IN {1, 2, nil}", .where { $0.size.in([1, 2, nil]) }),
      ("open_issues_count IN {0}", .where { $0.openIssuesCount.in([0]) }),
      ("fork == false", .where { $0.isFork == false }),
      ("fork != true", .where { $0.isFork != true }),
      ("archived IN {true, nil}", .where { $0.isArchived.in([true, nil]) }),
      ("created_at > 2021-01-01", .where { $0.createdAt > day }),
      (
        "created_at >= '2021-01-01' AND created_at < 1656590400",
        .where { $0.createdAt >= day && $0.createdAt < later }
      ),
      (
        "pushed_at BETWEEN {2021-01-01@00:00:00, 2022-06-30T12:00:00Z}",
        .where { $0.pushedAt.between(day, later) }
      ),
      (
        "updated_at == nil OR updated_at != %@ OR updated_at <= %@",
        .where { $0.updatedAt == nil || $0.updatedAt != day || $0.updatedAt <= day }
      ),
      ("updated_at IN {2021-01-01, nil}", .where { $0.updatedAt.in([day, nil]) }),
      ("'swift' IN topics", .where { $0.topics.contains("swift") }),
      ("ANY topics ==[c] 'Swift'", .where { $0.topics.contains("Swift", options: .caseInsensitive) }),
      ("ANY topics BEGINSWITH 'sw'", .where { $0.topics.any { $0.hasPrefix("sw") } }),
      ("topics CONTAINS 'ui'", .where { $0.topics.any { $0.contains("ui") } }),
      ("ALL topics != 'x'", .where { $0.topics.all { $0 != "x" } }),
      ("NONE topics LIKE[c] '*js'", .where { $0.topics.none { $0.like("*js", options: .caseInsensitive) } }),
      (
        "NONE topics IN {'a', 'b'} AND ALL topics > 'a'",
        .where { $0.topics.none { $0.in(["a", "b"]) } && $0.topics.all { $0 > "a" } }
      ),
      ("topics == nil OR topics != nil", .where { $0.topics == nil || $0.topics != nil }),
      (
        "NOT (name BEGINSWITH 'a' OR name ENDSWITH 'z')",
        .where { !($0.name.hasPrefix("a") || $0.name.hasSuffix("z")) }
      ),
      (
        "name == 'a' AND (name == 'b' AND name == 'c')",
        .where { ($0.name == "a" && $0.name == "b") && $0.name == "c" }
      ),
      (
        "(name == 'a' OR name == 'b') OR name == 'c'",
        .where { $0.name == "a" || ($0.name == "b" || $0.name == "c") }
      ),
      ("NOT NOT fork == true", .where { !(!($0.isFork == true)) }),
    ]
    for (text, typed) in pairs {
      let arguments: [any QueryArgument] = text.contains("%@") ? [day, day] : []
      #expect(try Query(parsing: text, arguments: arguments) == typed, "\(text)")
      #expect(try Query(parsing: typed.text) == typed, "\(typed.text)")
    }
    #expect(pairs.count >= 20)
  }

  @Test func sortLimitWhereAndFilterCompose() throws {
    let text = try Query(
      parsing: "language == 'Swift' AND stargazers_count > 10 SORT(stargazers_count DESC, name ASC) LIMIT(10)"
    )
    let typed = Query.where { $0.language == "Swift" }
      .where { $0.stargazersCount > 10 }
      .sorted(by: \.stargazersCount, ascending: false)
      .sorted(by: \.name)
      .limit(10)
    #expect(text == typed)
    let stringly = try Query().filter("language == %@", "Swift").filter("stargazers_count > 10")
      .sorted(by: "stargazers_count", ascending: false).sorted(by: "name").filter("LIMIT(10)")
    #expect(stringly == text)
    // Clauses keep the order they are given in: a limit, then a sort, is another query.
    let limitedFirst = try Query().filter("stargazers_count > 10 LIMIT(10)").sorted(by: "name")
    #expect(limitedFirst == (try Query(parsing: "stargazers_count > 10 LIMIT(10) SORT(name)")))
    #expect(limitedFirst != (try Query(parsing: "stargazers_count > 10 SORT(name) LIMIT(10)")))
    // A filter of only SORT/LIMIT keeps the predicate; TRUEPREDICATE gives way to the first condition.
    #expect(try Query.where { $0.size > 1 }.filter("SORT(size)") == Query(parsing: "size > 1 SORT(size)"))
    #expect(Query().where { $0.size > 1 } == Query.where { $0.size > 1 })
    #expect(Query().limit(-5).limit == 0)
  }

  @Test func everyHandleIsBoundToItsSchemaField() {
    let fields = RecordFields<Repository>()
    let handles: [(any TypedField, String, FieldType)] = [
      (fields.id, "id", .integer), (fields.nodeID, "node_id", .string), (fields.name, "name", .string),
      (fields.fullName, "full_name", .string), (fields.ownerLogin, "owner.login", .string),
      (fields.ownerAvatarURL, "owner.avatar_url", .string), (fields.htmlURL, "html_url", .string),
      (fields.description, "description", .string), (fields.isFork, "fork", .bool),
      (fields.language, "language", .string), (fields.stargazersCount, "stargazers_count", .integer),
      (fields.forksCount, "forks_count", .integer), (fields.watchersCount, "watchers_count", .integer),
      (fields.openIssuesCount, "open_issues_count", .integer), (fields.topics, "topics", .stringList),
      (fields.licenseSPDXID, "license.spdx_id", .string), (fields.isArchived, "archived", .bool),
      (fields.createdAt, "created_at", .date), (fields.updatedAt, "updated_at", .date),
      (fields.pushedAt, "pushed_at", .date), (fields.defaultBranch, "default_branch", .string),
      (fields.size, "size", .integer),
    ]
    #expect(handles.count == Repository.schema.fields.count)
    for (handle, name, type) in handles {
      #expect(handle.field == Repository.schema.field(named: name), "\(name)")
      #expect(handle.field.type == type, "\(name)")
    }
  }

  @Test func textRendersReadably() throws {
    let query = try Query(
      parsing: """
        (language IN {"Swift", nil} || 'swift' IN[c] topics) && !(stargazers_count < 1e3) \
        && created_at > 2021-01-01@10:20:30 && name == 'it\\'s' sort(name desc) limit(5)
        """)
    #expect(
      query.text
        == "(language IN {'Swift', nil} OR ANY topics ==[c] 'swift') AND NOT stargazers_count < 1000.0 "
        + "AND created_at > 2021-01-01T10:20:30Z AND name == 'it\\'s' SORT(name DESC) LIMIT(5)")
    #expect(Query().text == "TRUEPREDICATE")
    #expect(Query(limit: 3).text == "LIMIT(3)")
    #expect(Predicate.and([]).text == "TRUEPREDICATE")
    #expect(Predicate.or([]).text == "FALSEPREDICATE")
    #expect(
      Predicate.not(.and([.constant(true), .or([.constant(false)])])).text
        == "NOT (TRUEPREDICATE AND FALSEPREDICATE)")
    let far = Query(
      predicate: try queryComparison("created_at", .less, .date(Timestamp(secondsSince1970: .min))))
    #expect(far.text == "created_at < -9223372036854775808")
    #expect(try Query(parsing: far.text) == far)
    #expect(QueryValue.string("a\u{7}\n").queryText == "'a\\u0007\\n'")
  }
}
