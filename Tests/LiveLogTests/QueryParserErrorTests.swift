import Foundation
import Testing

@testable import LiveLog

/// The error `text` fails with; a test failure if it parses.
func queryParseError(_ text: String, _ arguments: any QueryArgument...) -> QueryError? {
  do {
    let query = try Query(parsing: text, arguments: arguments)
    Issue.record("\(text) parsed as \(query)")
    return nil
  } catch {
    #expect(error.query == text)
    return error
  }
}

@Suite struct QueryParserErrorTests {
  /// Each case: query, kind, column, and a fragment of the message.
  @Test func syntaxErrorsSayWhereAndWhat() {
    let cases: [(String, QueryError.Kind, Int, String)] = [
      ("name ==", .syntax, 8, "expected a value after '==' but the query ended"),
      ("name == 'x' AND", .syntax, 16, "expected a condition"),
      ("name == 'x' AND language", .syntax, 25, "expected an operator after 'language' but the query ended"),
      ("name CONTAINZ 'x'", .syntax, 6, "unknown operator 'CONTAINZ'"),
      ("name 5", .syntax, 6, "expected an operator after 'name', found '5'"),
      ("(name == 'x'", .syntax, 1, "unbalanced parenthesis: '(' at column 1 is never closed"),
      ("name == 'x')", .syntax, 12, "unbalanced parenthesis: ')' at column 12 has no matching '('"),
      ("(name == 'x' language == 'y')", .syntax, 14, "expected AND, OR or ')' to close the '(' at column 1"),
      (
        "name == 'x' language == 'y'", .syntax, 13,
        "expected AND, OR, SORT, DISTINCT, LIMIT or the end of the query"
      ),
      ("()", .syntax, 2, "expected a condition inside '( )'"),
      ("name == 'abc", .syntax, 9, "unterminated string: the quote at column 9 is never closed"),
      ("name == 'a\\qb'", .syntax, 11, "invalid escape '\\q'"),
      ("name == '\\u12'", .syntax, 10, "\\u needs four hexadecimal digits"),
      ("name == '\\uD800'", .syntax, 10, "surrogate"),
      ("name == %", .syntax, 9, "'%' must be followed by @"),
      ("name == %d", .syntax, 9, "unknown placeholder '%d'"),
      ("name == Swift", .syntax, 9, "found 'Swift' (text needs quotes: 'Swift')"),
      ("name == 'a' & x", .syntax, 13, "use && or AND"),
      ("name == 'a' | x", .syntax, 13, "use || or OR"),
      ("name # 'a'", .syntax, 6, "unexpected character '#'"),
      ("owner. == 'a'", .syntax, 6, "expected a field name after '.'"),
      ("size > 5abc", .syntax, 8, "invalid number '5abc'"),
      ("size > 1e999", .syntax, 8, "out of range"),
      ("created_at > 2021-13-01", .syntax, 14, "invalid date '2021-13-01'"),
      ("created_at > 2021-01-01T10:20", .syntax, 14, "invalid date"),
      ("name CONTAINS[x] 'a'", .syntax, 15, "unknown option '[x]'"),
      ("name CONTAINS[] 'a'", .syntax, 15, "expected c, d or cd"),
      ("name CONTAINS[c 'a'", .syntax, 17, "expected ']'"),
      ("name IN {'a', 'b'", .syntax, 9, "unbalanced brace: '{' at column 9 is never closed"),
      ("name IN {'a' 'b'}", .syntax, 14, "expected ',' or '}'"),
      ("name IN {{'a'}}", .syntax, 10, "lists cannot be nested"),
      ("name IN 'a'", .syntax, 9, "IN needs a list"),
      ("size BETWEEN {1}", .syntax, 14, "BETWEEN needs a list of two values"),
      ("size BETWEEN 1", .syntax, 14, "BETWEEN needs a list of two values"),
      ("name == ALL 'a'", .typeMismatch, 9, "ALL applies to lists"),
      ("name.@avg > 1", .syntax, 5, "unknown collection operator '.@avg'"),
      ("name[FIRST] == 'a'", .typeMismatch, 5, "apply to list fields"),
      ("topics[-1] == 'a'", .syntax, 8, "expected FIRST, LAST, SIZE or an index"),
      ("topics[FIRST == 'a'", .syntax, 14, "expected ']'"),
      ("size + 'a' > 1", .typeMismatch, 6, "+ needs numbers"),
      ("size + topics > 1", .typeMismatch, 6, "is a list"),
      ("name > size", .typeMismatch, 6, "both sides of > need the same type"),
      ("size CONTAINS forks_count", .typeMismatch, 6, "CONTAINS applies to strings"),
      ("(size + 1 > 2", .syntax, 1, "never closed"),
      ("size BETWEEN ANY {1, 2}", .syntax, 14, "BETWEEN takes {low, high} without ANY"),
      ("name IN name", .typeMismatch, 9, "IN needs a list on its right"),
      ("created_at > T5:1000000000", .syntax, 14, "nanoseconds below 10^9"),
      ("created_at > T5:-1", .syntax, 14, "the same sign"),
      ("name == B64\"!!\"", .syntax, 9, "base64"),
      ("size > 0x", .syntax, 8, "invalid number"),
      ("SORT(name", .syntax, 5, "unbalanced parenthesis"),
      ("SORT()", .syntax, 6, "expected a field name after '('"),
      ("SORT(name UP)", .syntax, 11, "expected ASC, DESC, ',' or ')'"),
      ("DISTINCT(topics)", .typeMismatch, 10, "DISTINCT needs a field with one value"),
      ("DISTINCT()", .syntax, 10, "expected a field name after '('"),
      ("LIMIT(-1)", .syntax, 7, "LIMIT needs a whole number of 0 or more"),
      ("LIMIT(1.5)", .syntax, 7, "expected a whole number"),
      ("LIMIT(99999999999999999999)", .syntax, 7, "does not fit"),
      ("LIMIT(1) name == 'x'", .syntax, 10, "expected SORT, DISTINCT, LIMIT or the end of the query"),
      ("AND name == 'x'", .syntax, 1, "expected a condition"),
      ("name == 'x' AND OR", .syntax, 17, "expected a condition"),
      ("NOT", .syntax, 4, "expected a condition"),
    ]
    for (text, kind, column, fragment) in cases {
      guard let error = queryParseError(text) else { continue }
      #expect(error.kind == kind, "\(text): \(error)")
      #expect(error.column == column, "\(text): \(error)")
      #expect(error.message.contains(fragment), "\(text): \(error.message)")
    }
  }

  @Test func descriptionDrawsACaret() {
    let query = "full_name CONTAINS[c] 'anim' AND language =="
    let error = queryParseError(query)
    let caret = String(repeating: " ", count: 44) + "^"
    #expect(
      error?.description
        == "expected a value after '==' but the query ended (column 45)\n  \(query)\n  \(caret)")
    // Tabs become spaces, so that the caret stays under its column.
    let unknown = queryParseError("name == 'x' AND\tstars > 5")
    #expect(
      unknown?.description.hasSuffix(
        "\n  name == 'x' AND stars > 5\n  " + String(repeating: " ", count: 16) + "^")
        == true)
    // Columns count Characters, not bytes or scalars.
    #expect(queryParseError("name == 'e\u{301}🇫🇷' AND x == 1")?.column == 18)
  }

  @Test func unknownFieldsListTheValidOnes() {
    let error = queryParseError("stars > 5")
    #expect(error?.kind == .unknownField)
    #expect(error?.column == 1)
    for field in Repository.schema.fields {
      #expect(error?.message.contains(field.name) == true)
    }
    #expect(queryParseError("fullName == 'a'")?.message.contains("did you mean 'full_name'?") == true)
    #expect(queryParseError("login == 'a'")?.message.contains("did you mean 'owner.login'?") == true)
    #expect(
      queryParseError("stargazer_count > 1")?.message.contains("did you mean 'stargazers_count'?") == true)
    #expect(queryParseError("name == 'a' OR %K == 1", "stars")?.column == 16)
    #expect(queryParseError("SORT(stars)")?.kind == .unknownField)
  }

  @Test func typeMismatchesNameFieldTypeAndOperator() {
    let cases: [(String, QueryError.Kind, Int, String)] = [
      (
        "stargazers_count CONTAINS 'x'", .typeMismatch, 18,
        "stargazers_count is an integer field; CONTAINS applies to string fields"
      ),
      ("stargazers_count == 'x'", .typeMismatch, 21, "stargazers_count is an integer field; 'x' is a string"),
      ("stargazers_count ==[c] 5", .typeMismatch, 20, "options such as [c] and [d] apply to string fields"),
      ("stargazers_count == true", .typeMismatch, 21, "is a bool"),
      ("stargazers_count BETWEEN {1, nil}", .typeMismatch, 30, "nil has no place in BETWEEN"),
      ("stargazers_count == 99999999999999999999", .typeMismatch, 21, "does not fit in a 64-bit integer"),
      ("name == 5", .typeMismatch, 9, "name is a string field; 5 is an integer"),
      ("name == 99999999999999999999", .typeMismatch, 9, "name is a string field"),
      (
        "name BETWEEN {'a', 'b'}", .typeMismatch, 6,
        "name is a string field; BETWEEN applies to number and date fields"
      ),
      ("ANY topics BETWEEN {'a', 'b'}", .typeMismatch, 12, "BETWEEN applies to number and date fields"),
      ("fork == 2", .typeMismatch, 9, "fork is a bool field; 2 is an integer"),
      ("fork < true", .typeMismatch, 6, "fork is a bool field; < applies to number, date and string fields"),
      ("fork == 'yes'", .typeMismatch, 9, "fork is a bool field"),
      ("archived LIKE 'x'", .typeMismatch, 10, "archived is a bool field; LIKE applies to string fields"),
      ("created_at == 'yesterday'", .typeMismatch, 15, "is not a date"),
      ("created_at > 1.5", .typeMismatch, 14, "created_at is a date field; 1.5 is a decimal number"),
      (
        "created_at BEGINSWITH '2021'", .typeMismatch, 12,
        "created_at is a date field; BEGINSWITH applies to string fields"
      ),
      ("id == 2021-01-01", .typeMismatch, 7, "id is an integer field; 2021-01-01 is a date"),
      (
        "ANY language == 'x'", .typeMismatch, 1,
        "ANY applies to list fields (string or integer lists); language is a string field"
      ),
      ("all size > 1", .typeMismatch, 1, "ALL applies to list fields"),
      ("topics == 5", .typeMismatch, 11, "the elements of topics are strings"),
      ("ANY topics == nil", .typeMismatch, 15, "never nil"),
      ("topics IN {'a', nil}", .typeMismatch, 17, "never nil"),
      ("topics > nil", .typeMismatch, 10, "nil can only be compared with == or !="),
      (
        "'x' IN language", .typeMismatch, 8,
        "needs a list field (a string or integer list); language is a string field"
      ),
      ("SORT(topics)", .typeMismatch, 6, "topics is a string list field; SORT needs a field with one value"),
    ]
    for (text, kind, column, fragment) in cases {
      guard let error = queryParseError(text) else { continue }
      #expect(error.kind == kind, "\(text): \(error)")
      #expect(error.column == column, "\(text): \(error)")
      #expect(error.message.contains(fragment), "\(text): \(error.message)")
    }
  }

  @Test func argumentsMustMatchPlaceholders() {
    let missing = queryParseError("name == %@ AND language == %@", "a")
    #expect(missing?.kind == .argument)
    #expect(missing?.column == 28)
    #expect(missing?.message.contains("the query has 2 placeholders but 1 argument was given") == true)
    let extra = queryParseError("name == %@", "a", "b")
    #expect(extra?.kind == .argument)
    #expect(extra?.column == 11)
    #expect(extra?.message.contains("the query has 1 placeholder but 2 arguments were given") == true)
    #expect(queryParseError("name == 'a'", 1)?.message.contains("0 placeholders but 1 argument") == true)
    #expect(queryParseError("%K == 1", 5)?.message.contains("%K needs a field name (a String)") == true)
    let wrongType = queryParseError("stargazers_count > %@", "many")
    #expect(wrongType?.kind == .argument)
    #expect(wrongType?.column == 20)
    #expect(wrongType?.message.contains("argument 1 ('many') is a string") == true)
    #expect(queryParseError("name IN %@", "a")?.kind == .argument)
    #expect(queryParseError("name == ANY %@", "a")?.kind == .typeMismatch)
    #expect(queryParseError("size > %@", Double.nan)?.kind == .argument)
    #expect(queryParseError("LIMIT(%@)", -1)?.kind == .argument)
    #expect(queryParseError("size IN %@", QueryValue.list([.list([])]))?.message.contains("nested") == true)
  }

  @Test func deepNestingIsAnErrorNotACrash() throws {
    let depth = QueryParser.maximumDepth
    let fine = String(repeating: "(", count: depth) + "name == 'a'" + String(repeating: ")", count: depth)
    #expect(try parsedPredicate(fine) == queryComparison("name", .equal, .string("a")))
    let nots = String(repeating: "NOT ", count: depth) + "name == 'a'"
    #expect(try Query(parsing: nots).predicate != .constant(true))
    let tooDeep =
      String(repeating: "(", count: depth + 1) + "name == 'a'" + String(repeating: ")", count: depth + 1)
    let error = queryParseError(tooDeep)
    #expect(error?.column == depth + 1)
    #expect(error?.message.contains("nests too deeply") == true)
    let manyNots = String(repeating: "!", count: 100_000) + "name == 'a'"
    #expect(queryParseError(manyNots)?.column == depth + 1)
    #expect(
      queryParseError(String(repeating: "(", count: 100_000))?.message.contains("nests too deeply") == true)
  }

  /// The limit is only useful if a query at the limit fits the stack of an ordinary thread:
  /// macOS gives secondary threads 512 KB. Parsing, rendering, comparing and evaluating at the
  /// limit run here on a 256 KB thread, in whatever build the tests run.
  @Test func theLimitFitsASmallThreadStack() async {
    let depth = QueryParser.maximumDepth
    let outcome = await withCheckedContinuation { (continuation: CheckedContinuation<[Bool], Never>) in
      let thread = Thread {
        let nested =
          String(repeating: "(NOT ", count: depth / 2) + "name == 'a' OR size > 1"
          + String(repeating: ")", count: depth / 2)
        let query = try? Query(parsing: nested)
        let again = try? Query(parsing: query?.text ?? "")
        let matches = query.map { PredicateEvaluator.matches($0.predicate) { _ in .null } }
        let tooDeep = String(repeating: "(", count: depth + 1) + "name == 'a'"
        let fails = (try? Query(parsing: tooDeep)) == nil
        continuation.resume(returning: [query != nil, query == again, matches == false, fails])
      }
      thread.stackSize = 256 * 1024
      thread.start()
    }
    #expect(outcome == [true, true, true, true])
  }

  @Test func hugeQueriesParse() throws {
    let terms = (0..<6_000).map { "name == 'n\($0)'" }
    let query = terms.joined(separator: " OR ")
    #expect(query.utf8.count > 100_000)
    guard case .or(let parts) = try parsedPredicate(query) else {
      Issue.record("not an OR")
      return
    }
    #expect(parts.count == 6_000)
    let longString = "name == '" + String(repeating: "x", count: 200_000) + "'"
    #expect(
      try parsedPredicate(longString)
        == queryComparison("name", .equal, .string(String(repeating: "x", count: 200_000))))
    let longList = "size IN {" + (0..<20_000).map(String.init).joined(separator: ", ") + "}"
    #expect(try Query(parsing: longList).predicate != .constant(true))
    let unterminated = queryParseError("name == '" + String(repeating: "y", count: 100_000))
    #expect(unterminated?.column == 9)
    #expect((unterminated?.message.count ?? 0) < 200)
    let longName = String(repeating: "z", count: 100_000) + " == 1"
    #expect((queryParseError(longName)?.message.count ?? .max) < 1_000)
  }

  @Test func typedHelpersReportUnknownFields() {
    #expect(throws: QueryError.self) { try Query().sorted(by: "stars") }
    #expect(throws: QueryError.self) { try Query().sorted(by: "topics") }
    #expect(throws: QueryError.self) { try Query().filter("name ==") }
  }
}
