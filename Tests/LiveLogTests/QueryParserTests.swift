import Testing

@testable import LiveLog

/// The schema field called `name`.
func queryField(_ name: String) throws -> Field {
  try #require(Repository.schema.field(named: name), "no field \(name)")
}

/// A comparison predicate, for writing expected ASTs briefly.
func queryComparison(
  _ name: String, _ comparisonOperator: ComparisonOperator, _ value: QueryValue,
  quantifier: Quantifier = .single, options: StringOptions = []
) throws -> Predicate {
  .comparison(
    Comparison(
      field: try queryField(name), quantifier: quantifier, operator: comparisonOperator, options: options,
      value: value))
}

/// The predicate of a parsed query.
func parsedPredicate(_ text: String, _ arguments: any QueryArgument...) throws -> Predicate {
  try Query(parsing: text, arguments: arguments).predicate
}

func queryDate(_ text: String) throws -> QueryValue {
  .date(try #require(Timestamp(iso8601: text)))
}

@Suite struct QueryParserTests {
  @Test func everyOperatorOnAStringField() throws {
    let cases: [(String, ComparisonOperator)] = [
      ("==", .equal), ("=", .equal), ("!=", .notEqual), ("<>", .notEqual), ("<", .less), ("<=", .lessOrEqual),
      ("=<", .lessOrEqual), (">", .greater), (">=", .greaterOrEqual), ("=>", .greaterOrEqual),
      ("CONTAINS", .contains), ("contains", .contains), ("BeginsWith", .beginsWith), ("ENDSWITH", .endsWith),
      ("LIKE", .like),
    ]
    #expect(throws: QueryError.self) { try parsedPredicate("name BETWEEN {'a', 'b'}") }
    for (text, op) in cases {
      #expect(try parsedPredicate("name \(text) 'x'") == queryComparison("name", op, .string("x")), "\(text)")
    }
    #expect(
      try parsedPredicate("name IN {'a', 'b'}")
        == queryComparison("name", .in, .list([.string("a"), .string("b")])))
    #expect(throws: QueryError.self) { try parsedPredicate("name between {'a', 'm'}") }
  }

  @Test func stringOptions() throws {
    #expect(
      try parsedPredicate("name CONTAINS[c] 'x'")
        == queryComparison("name", .contains, .string("x"), options: .caseInsensitive))
    #expect(
      try parsedPredicate("name ==[d] 'x'")
        == queryComparison("name", .equal, .string("x"), options: .diacriticInsensitive))
    for spelling in ["[cd]", "[dc]", "[CD]", " [cd]"] {
      #expect(
        try parsedPredicate("name LIKE\(spelling) 'x*'")
          == queryComparison(
            "name", .like, .string("x*"), options: [.caseInsensitive, .diacriticInsensitive]))
    }
    #expect(
      try parsedPredicate("name IN[c] {'a'}")
        == queryComparison("name", .in, .list([.string("a")]), options: .caseInsensitive))
  }

  @Test func literals() throws {
    #expect(
      try parsedPredicate("name == \"double \\\"quoted\\\"\"")
        == queryComparison("name", .equal, .string("double \"quoted\"")))
    #expect(
      try parsedPredicate(#"name == 'a\'b\\c\nd\te\rf\u00e9\uD83D\uDE00'"#)
        == queryComparison("name", .equal, .string("a'b\\c\nd\te\rfé😀")))
    #expect(
      try parsedPredicate("stargazers_count == -42")
        == queryComparison("stargazers_count", .equal, .integer(-42)))
    #expect(
      try parsedPredicate("stargazers_count >= +7")
        == queryComparison("stargazers_count", .greaterOrEqual, .integer(7)))
    #expect(
      try parsedPredicate("stargazers_count < 2.5")
        == queryComparison("stargazers_count", .less, .double(2.5)))
    #expect(
      try parsedPredicate("stargazers_count < 1e3")
        == queryComparison("stargazers_count", .less, .double(1000)))
    #expect(
      try parsedPredicate("stargazers_count < 99999999999999999999.0")
        == queryComparison("stargazers_count", .less, .double(1e20)))
    #expect(
      try parsedPredicate("id == 9223372036854775807") == queryComparison("id", .equal, .integer(.max)))
    #expect(
      try parsedPredicate("id == -9223372036854775808") == queryComparison("id", .equal, .integer(.min)))
    for (word, value) in [("TRUE", true), ("yes", true), ("false", false), ("NO", false)] {
      #expect(try parsedPredicate("fork == \(word)") == queryComparison("fork", .equal, .bool(value)))
    }
    for word in ["nil", "NULL", "Nil"] {
      #expect(try parsedPredicate("language == \(word)") == queryComparison("language", .equal, .null))
    }
    #expect(try parsedPredicate("language IN {}") == queryComparison("language", .in, .list([])))
    #expect(
      try parsedPredicate("language IN {'Swift', nil}")
        == queryComparison("language", .in, .list([.string("Swift"), .null])))
    // A quote followed by a combining mark is one Character but still ends the string.
    #expect(try parsedPredicate("name == 'e\u{301}'") == queryComparison("name", .equal, .string("e\u{301}")))
    #expect(try parsedPredicate("name == '\u{301}x'") == queryComparison("name", .equal, .string("\u{301}x")))
  }

  @Test func dates() throws {
    let expected = try queryComparison("created_at", .greater, queryDate("2021-01-01T10:20:30Z"))
    // Fractions are kept to the nanosecond: Realm's `:N` counts nanoseconds, ISO's `.N` is a fraction.
    let realm = try queryComparison(
      "created_at", .greater, .date(Timestamp(secondsSince1970: 1_609_496_430, nanoseconds: 123_456_789)))
    #expect(try Query(parsing: "created_at > 2021-01-01@10:20:30:123456789").predicate == realm)
    #expect(
      try Query(parsing: "created_at > 2021-01-01@10:20:30:505").predicate.text.contains("30.000000505Z"))
    let half = try queryComparison(
      "created_at", .greater, .date(Timestamp(secondsSince1970: 1_609_496_430, nanoseconds: 500_000_000)))
    #expect(try Query(parsing: "created_at > 2021-01-01T10:20:30.5Z").predicate == half)
    for text in [
      "2021-01-01@10:20:30", "2021-01-01T10:20:30", "2021-01-01T10:20:30Z",
      "2021-01-01T12:20:30+02:00", "2021-01-01T05:20:30-0500",
      "'2021-01-01T10:20:30Z'",
      "\"2021-01-01T11:20:30+01:00\"", "1609496430", "%@",
    ] {
      let argument = try #require(Timestamp(iso8601: "2021-01-01T10:20:30Z"))
      let arguments: [any QueryArgument] = text == "%@" ? [argument] : []
      #expect(
        try Query(parsing: "created_at > \(text)", arguments: arguments).predicate == expected, "\(text)")
    }
    #expect(
      try parsedPredicate("pushed_at == 2021-01-01")
        == queryComparison("pushed_at", .equal, queryDate("2021-01-01")))
    #expect(
      try parsedPredicate("updated_at == %@", "2021-01-01")
        == queryComparison("updated_at", .equal, queryDate("2021-01-01")))
    #expect(
      try parsedPredicate("updated_at == %@", 0)
        == queryComparison("updated_at", .equal, .date(Timestamp(secondsSince1970: 0))))
    #expect(
      try parsedPredicate("created_at BETWEEN {2020-01-01, '2021-01-01'}")
        == queryComparison("created_at", .between, .list([queryDate("2020-01-01"), queryDate("2021-01-01")])))
    #expect(
      try parsedPredicate("created_at IN {2020-01-01, nil}")
        == queryComparison("created_at", .in, .list([queryDate("2020-01-01"), .null])))
    #expect(try parsedPredicate("created_at != nil") == queryComparison("created_at", .notEqual, .null))
  }

  @Test func listFieldsQuantifyTheirElements() throws {
    #expect(
      try parsedPredicate("topics == 'swift'")
        == queryComparison("topics", .equal, .string("swift"), quantifier: .any))
    #expect(
      try parsedPredicate("ANY topics == 'swift'")
        == queryComparison("topics", .equal, .string("swift"), quantifier: .any))
    #expect(
      try parsedPredicate("SOME topics == 'swift'")
        == queryComparison("topics", .equal, .string("swift"), quantifier: .any))
    #expect(
      try parsedPredicate("'swift' IN topics")
        == queryComparison("topics", .equal, .string("swift"), quantifier: .any))
    #expect(
      try parsedPredicate("%@ IN topics", "swift")
        == queryComparison("topics", .equal, .string("swift"), quantifier: .any))
    #expect(
      try parsedPredicate("'Swift' IN[c] topics")
        == queryComparison("topics", .equal, .string("Swift"), quantifier: .any, options: .caseInsensitive))
    #expect(
      try parsedPredicate("all topics beginswith[cd] 'sw'")
        == queryComparison(
          "topics", .beginsWith, .string("sw"), quantifier: .all,
          options: [.caseInsensitive, .diacriticInsensitive]))
    #expect(
      try parsedPredicate("NONE topics LIKE '*js'")
        == queryComparison("topics", .like, .string("*js"), quantifier: .none))
    #expect(
      try parsedPredicate("ANY topics IN {'a', 'b'}")
        == queryComparison("topics", .in, .list([.string("a"), .string("b")]), quantifier: .any))
    #expect(try parsedPredicate("topics == nil") == queryComparison("topics", .equal, .null))
    #expect(try parsedPredicate("topics != NULL") == queryComparison("topics", .notEqual, .null))
  }

  @Test func precedenceAndParentheses() throws {
    let a = try queryComparison("name", .equal, .string("a"))
    let b = try queryComparison("name", .equal, .string("b"))
    let c = try queryComparison("name", .equal, .string("c"))
    let d = try queryComparison("name", .equal, .string("d"))
    #expect(try parsedPredicate("name == 'a' OR name == 'b' AND name == 'c'") == .or([a, .and([b, c])]))
    #expect(try parsedPredicate("(name == 'a' OR name == 'b') AND name == 'c'") == .and([.or([a, b]), c]))
    #expect(try parsedPredicate("NOT name == 'a' AND name == 'b'") == .and([.not(a), b]))
    #expect(
      try parsedPredicate("!name == 'a' || !(name == 'b' && name == 'c')")
        == .or([.not(a), .not(.and([b, c]))]))
    #expect(try parsedPredicate("not not name == 'a'") == .not(.not(a)))
    // Chains flatten, whichever way they are parenthesized.
    for text in [
      "name == 'a' AND name == 'b' AND name == 'c' AND name == 'd'",
      "name == 'a' AND (name == 'b' AND (name == 'c' AND name == 'd'))",
      "((name == 'a' && name == 'b') and name == 'c') AnD name == 'd'",
    ] {
      #expect(try parsedPredicate(text) == .and([a, b, c, d]), "\(text)")
    }
    #expect(try parsedPredicate("name == 'a' OR (name == 'b' OR name == 'c')") == .or([a, b, c]))
    #expect(try parsedPredicate("(((name == 'a')))") == a)
    #expect(
      try parsedPredicate("TRUEPREDICATE AND falsepredicate") == .and([.constant(true), .constant(false)]))
  }

  @Test func emptyQueriesAndClauses() throws {
    #expect(try Query(parsing: "") == Query())
    #expect(try Query(parsing: "  \n\t ") == Query())
    let stars = try queryField("stargazers_count")
    let name = try queryField("name")
    let sorted = try Query(parsing: "SORT(stargazers_count DESC, name)")
    #expect(
      sorted == Query(sort: [SortDescriptor(field: stars, ascending: false), SortDescriptor(field: name)]))
    #expect(try Query(parsing: "LIMIT(0)") == Query(limit: 0))
    let full = try Query(
      parsing: "language == 'Swift' sort(stargazers_count descending, name ascending, id asc) limit(%@)", 25)
    #expect(full.predicate == (try queryComparison("language", .equal, .string("Swift"))))
    #expect(full.sort.map(\.field.name) == ["stargazers_count", "name", "id"])
    #expect(full.sort.map(\.ascending) == [false, true, true])
    #expect(full.limit == 25)
    // Clauses apply in the order written: the first three, then sorted.
    #expect(
      try Query(parsing: "LIMIT(3) SORT(%K)", "size")
        == Query(clauses: [.limit(3), .sort([SortDescriptor(field: queryField("size"))])]))
  }

  @Test func placeholders() throws {
    #expect(
      try parsedPredicate("%K == %@", "language", "Swift")
        == queryComparison("language", .equal, .string("Swift"))
    )
    #expect(
      try parsedPredicate("%K CONTAINS %@", Substring("owner.login"), Substring("app"))
        == queryComparison("owner.login", .contains, .string("app")))
    #expect(
      try parsedPredicate("stargazers_count > %@", Int32(5))
        == queryComparison("stargazers_count", .greater, .integer(5)))
    #expect(
      try parsedPredicate("stargazers_count > %@", UInt32(5))
        == queryComparison("stargazers_count", .greater, .integer(5)))
    #expect(
      try parsedPredicate("stargazers_count > %@", Int64(5))
        == queryComparison("stargazers_count", .greater, .integer(5)))
    #expect(
      try parsedPredicate("stargazers_count > %@", 5.5)
        == queryComparison("stargazers_count", .greater, .double(5.5)))
    #expect(try parsedPredicate("fork == %@", true) == queryComparison("fork", .equal, .bool(true)))
    #expect(try parsedPredicate("language == %@", String?.none) == queryComparison("language", .equal, .null))
    #expect(
      try parsedPredicate("language == %@", QueryValue.string("C"))
        == queryComparison("language", .equal, .string("C")))
    #expect(
      try parsedPredicate("language IN %@", ["Swift", "Rust"])
        == queryComparison("language", .in, .list([.string("Swift"), .string("Rust")])))
    #expect(
      try parsedPredicate("language IN %@", [String?.none, "C"])
        == queryComparison("language", .in, .list([.null, .string("C")])))
    #expect(
      try parsedPredicate("size BETWEEN %@", [1, 10])
        == queryComparison("size", .between, .list([.integer(1), .integer(10)])))
    #expect(
      try parsedPredicate("size IN {%@, 3}", 2)
        == queryComparison("size", .in, .list([.integer(2), .integer(3)])))
    // Placeholders fill in order, wherever they are.
    #expect(
      try parsedPredicate("%K == %@ OR %@ IN topics", "name", "x", "y")
        == .or([
          queryComparison("name", .equal, .string("x")),
          queryComparison("topics", .equal, .string("y"), quantifier: .any),
        ]))
  }

  @Test func keyPathsAndKeywordsAreCaseAware() throws {
    #expect(
      try parsedPredicate("owner.login == 'apple'")
        == queryComparison("owner.login", .equal, .string("apple")))
    #expect(
      try parsedPredicate("license.spdx_id == 'MIT'")
        == queryComparison("license.spdx_id", .equal, .string("MIT"))
    )
    // Keywords ignore case; field names do not.
    #expect(throws: QueryError.self) { try Query(parsing: "Name == 'x'") }
    #expect(try parsedPredicate("name cOnTaInS 'x'") == queryComparison("name", .contains, .string("x")))
  }

  @Test func representativeQueries() throws {
    let query = try Query(
      parsing: """
        (language IN {'Swift', 'Rust'} OR ANY topics ==[c] 'swift') AND stargazers_count BETWEEN {100, 5000}
        AND NOT fork == true AND pushed_at > 2023-06-01 AND description != nil
        SORT(stargazers_count DESC) LIMIT(20)
        """)
    #expect(
      query.predicate
        == .and([
          .or([
            try queryComparison("language", .in, .list([.string("Swift"), .string("Rust")])),
            try queryComparison(
              "topics", .equal, .string("swift"), quantifier: .any, options: .caseInsensitive),
          ]),
          try queryComparison("stargazers_count", .between, .list([.integer(100), .integer(5000)])),
          .not(try queryComparison("fork", .equal, .bool(true))),
          try queryComparison("pushed_at", .greater, queryDate("2023-06-01")),
          try queryComparison("description", .notEqual, .null),
        ]))
    #expect(query.sort == [SortDescriptor(field: try queryField("stargazers_count"), ascending: false)])
    #expect(query.limit == 20)
    #expect(
      try parsedPredicate("full_name CONTAINS[c] %@ AND language = %@", "anim", "Swift")
        == .and([
          queryComparison("full_name", .contains, .string("anim"), options: .caseInsensitive),
          queryComparison("language", .equal, .string("Swift")),
        ]))
  }
  /// Parsed values have the forms the evaluator compares (dates as `.date`, list comparisons
  /// quantified), so parsed queries select what they say.
  @Test func parsedQueriesSelectWhatTheySay() throws {
    var repository = Repository(id: 1, fullName: "apple/swift-algorithms")
    repository.language = "Swift"
    repository.stargazersCount = 5_000
    repository.topics = ["swift", "algorithms"]
    repository.createdAt = Timestamp(iso8601: "2020-10-07T12:00:00Z")
    repository.isFork = false
    let values = repository.fieldValues
    func matches(_ text: String) throws -> Bool {
      PredicateEvaluator.matches(try Query(parsing: text).predicate) { values[$0.position] }
    }
    for text in [
      "full_name CONTAINS[c] 'ALGO' AND language == 'Swift'", "'swift' IN topics",
      "ANY topics BEGINSWITH 'alg'",
      "ALL topics LIKE '*s*'", "NONE topics == 'rust'",
      "created_at > '2020-01-01' AND created_at < 2021-01-01",
      "created_at BETWEEN {1600000000, 1700000000}", "stargazers_count BETWEEN {4999.5, 5000}", "fork == NO",
      "description == nil AND license.spdx_id != 'MIT'", "topics != nil", "NOT archived == true",
    ] {
      #expect(try matches(text), "\(text)")
    }
    for text in [
      "language IN {'Rust', nil}", "ALL topics == 'swift'", "created_at < 2020-10-07@12:00:00",
      "topics == nil",
      "stargazers_count > 5000.5", "description CONTAINS ''",
    ] {
      #expect(try !matches(text), "\(text)")
    }
  }
}
