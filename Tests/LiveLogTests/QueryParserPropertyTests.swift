import Testing

@testable import LiveLog

@Suite struct QueryParserPropertyTests {
  static let seeds: [(String, [any QueryArgument])] = [
    ("full_name CONTAINS[c] %@ AND language = %@", ["anim", "Swift"]),
    ("(language IN {'Swift', \"Rust\", nil} OR ANY topics ==[cd] 'swift') AND NOT fork == true", []),
    ("stargazers_count BETWEEN {100, 5e3} && pushed_at > 2023-06-01@10:20:30 SORT(name DESC) LIMIT(20)", []),
    ("'swift' IN topics || ALL topics BEGINSWITH 'sw' || NONE topics LIKE[c] '*js?'", []),
    ("%K == %@ AND created_at BETWEEN {'2020-01-01', 2021-01-01T00:00:00+02:00}", ["name", "x"]),
    ("name == 'a\\'b\\u00e9\\n' OR description != nil OR size IN {1, -2, 3.5}", []),
    ("!(owner.login ==[c] 'apple' || license.spdx_id <> 'MIT') AND archived != false", []),
    ("TRUEPREDICATE AND (FALSEPREDICATE OR id >= -9223372036854775808) LIMIT(%@)", [5]),
    ("SORT(stargazers_count ASCENDING, created_at DESCENDING)", []),
    ("updated_at =< 1609459200 AND watchers_count => 1.5 AND html_url < 'é🇫🇷'", []),
  ]

  /// Characters the mutations insert: the language's punctuation, and the awkward cases of text.
  static let alphabet: [Character] =
    Array(
      "'\"\\(){}[],.%@K!=<>&|  abcnu0123456789-:@TZe+_\t\n") + ["é", "🇫🇷", "\u{301}", "\r\n", "\u{0}", "ß"]

  @Test func randomMutationsNeverCrash() {
    var random = SplitMix64(seed: 7)
    var parsed = 0
    for _ in 0..<5_000 {
      let (seed, arguments) = Self.seeds.randomElement(using: &random) ?? ("", [])
      var characters = Array(seed)
      for _ in 0..<Int.random(in: 1...4, using: &random) {
        let position = Int.random(in: 0...characters.count, using: &random)
        let inserted = Self.alphabet.randomElement(using: &random) ?? " "
        switch Int.random(in: 0..<3, using: &random) {
        case 0 where position < characters.count: characters.remove(at: position)
        case 1 where position < characters.count: characters[position] = inserted
        default: characters.insert(inserted, at: position)
        }
      }
      let text = String(characters)
      do {
        let query = try Query(parsing: text, arguments: arguments)
        parsed += 1
        // Whatever parses renders to text that parses back to the same query.
        #expect(try Query(parsing: query.text) == query, "\(text) → \(query.text)")
      } catch {
        #expect(error.query == text)
        let column = error.column ?? 0
        #expect(column >= 1 && column <= text.count + 1, "\(text): \(error)")
        #expect(!error.message.isEmpty)
      }
    }
    // Some mutations (inside strings, extra spaces) keep the query valid.
    #expect(parsed > 100)
  }

  @Test func textRoundTripsRandomQueries() throws {
    var generator = RandomQueryGenerator(random: SplitMix64(seed: 2_024))
    for _ in 0..<2_000 {
      let query = generator.query()
      let text = query.text
      do {
        let reparsed = try Query(parsing: text)
        #expect(reparsed == query, "\(text)")
      } catch {
        Issue.record("\(text) does not parse: \(error)")
      }
    }
  }
}

/// Random queries as the parser and the typed form build them: valid types, flattened chains.
struct RandomQueryGenerator {
  var random: SplitMix64

  mutating func query() -> Query {
    let sortable = Repository.schema.fields.filter { $0.type != .stringList }
    var sort: [SortDescriptor] = []
    for _ in 0..<Int.random(in: 0...2, using: &random) {
      if let field = sortable.randomElement(using: &random) {
        sort.append(SortDescriptor(field: field, ascending: Bool.random(using: &random)))
      }
    }
    let limit = Bool.random(using: &random) ? Int.random(in: 0...1_000, using: &random) : nil
    return Query(predicate: predicate(depth: 0, parent: nil), sort: sort, limit: limit)
  }

  private enum Shape { case and, or }

  /// A predicate whose AND/OR children are never of their parent's kind (the parser flattens those).
  private mutating func predicate(depth: Int, parent: Shape?) -> Predicate {
    let roll = depth >= 4 ? 0 : Int.random(in: 0..<10, using: &random)
    switch roll {
    case 6 where parent != .and: return .and(children(depth: depth, shape: .and))
    case 7 where parent != .or: return .or(children(depth: depth, shape: .or))
    case 8: return .not(predicate(depth: depth + 1, parent: nil))
    case 9: return .constant(Bool.random(using: &random))
    default: return .comparison(randomComparison())
    }
  }

  private mutating func children(depth: Int, shape: Shape) -> [Predicate] {
    (0..<Int.random(in: 2...4, using: &random)).map { _ in predicate(depth: depth + 1, parent: shape) }
  }

  private mutating func randomComparison() -> Comparison {
    let fields = Repository.schema.fields
    let field = fields[Int.random(in: 0..<fields.count, using: &random)]
    switch field.type {
    case .string:
      // BETWEEN is for numbers and dates only, as in Realm.
      let op = ComparisonOperator.allCases.filter { $0 != .between }.randomElement(using: &random) ?? .equal
      return Comparison(
        field: field, operator: op, options: options(), value: operand(op, nullable: true, Self.string))
    case .stringList:
      if Int.random(in: 0..<5, using: &random) == 0 {
        return Comparison(
          field: field, operator: Bool.random(using: &random) ? .equal : .notEqual, value: .null)
      }
      let op = ComparisonOperator.allCases.filter { $0 != .between }.randomElement(using: &random) ?? .equal
      let quantifier = [Quantifier.any, .all, .none].randomElement(using: &random) ?? .any
      return Comparison(
        field: field, quantifier: quantifier, operator: op, options: options(),
        value: operand(op, nullable: false, Self.string))
    case .integer, .date:
      let ops: [ComparisonOperator] = [
        .equal, .notEqual, .less, .lessOrEqual, .greater, .greaterOrEqual, .between, .in,
      ]
      let op = ops.randomElement(using: &random) ?? .equal
      let make = field.type == .integer ? Self.number : Self.date
      return Comparison(field: field, operator: op, value: operand(op, nullable: true, make))
    case .bool:
      let op = [ComparisonOperator.equal, .notEqual, .in].randomElement(using: &random) ?? .equal
      return Comparison(
        field: field, operator: op, value: operand(op, nullable: true) { .bool(Bool.random(using: &$0)) })
    case .double, .integerList:
      // Repository has neither; the generated record type's tests cover them.
      return Comparison(field: field, operator: .equal, value: .null)
    }
  }

  /// A right-hand side for `op`: a list for IN, two bounds for BETWEEN, one value otherwise.
  private mutating func operand(
    _ op: ComparisonOperator, nullable: Bool, _ make: (inout SplitMix64) -> QueryValue
  ) -> QueryValue {
    let canBeNull = nullable && Int.random(in: 0..<6, using: &random) == 0
    switch op {
    case .in:
      return .list(
        (0..<Int.random(in: 0...3, using: &random)).map { _ in
          nullable && Int.random(in: 0..<5, using: &random) == 0 ? .null : make(&random)
        })
    case .between: return .list([make(&random), make(&random)])
    // Realm compares nil with every other operator too.
    default: return canBeNull ? .null : make(&random)
    }
  }

  private mutating func options() -> StringOptions {
    StringOptions(rawValue: UInt8.random(in: 0...3, using: &random))
  }

  private static let pieces: [String] = [
    "a", "Z", " ", "'", "\"", "\\", "\n", "\r\n", "\t", "\u{0}", "\u{7F}", "é", "e\u{301}", "\u{301}", "🇫🇷",
    "ß", "*", "?", "%@", "{", "}", "AND", "1", "2021-01-01",
  ]

  private static func string(_ random: inout SplitMix64) -> QueryValue {
    let count = Int.random(in: 0...6, using: &random)
    return .string((0..<count).map { _ in Self.pieces.randomElement(using: &random) ?? "" }.joined())
  }

  private static func number(_ random: inout SplitMix64) -> QueryValue {
    switch Int.random(in: 0..<5, using: &random) {
    case 0: return .integer(Int64.random(in: .min ... .max, using: &random))
    case 1: return .integer(Int64.random(in: -1_000...1_000, using: &random))
    case 2: return .double(Double.random(in: -1e6...1e6, using: &random))
    case 3: return .double(Double(Int64.random(in: -100...100, using: &random)) * 1e300)
    default:
      return .double(
        [0.1, .leastNonzeroMagnitude, -0.0, 1e16, 123.0, .greatestFiniteMagnitude].randomElement(
          using: &random) ?? 0)
    }
  }

  private static func date(_ random: inout SplitMix64) -> QueryValue {
    let seconds =
      Bool.random(using: &random)
      ? Int64.random(in: Timestamp.range, using: &random) : Int64.random(in: .min ... .max, using: &random)
    return .date(Timestamp(secondsSince1970: seconds))
  }
}
