@testable import LiveLog

/// Random queries over any collection's schema: every operator and modifier, nesting, nil,
/// non-ASCII, short and long patterns, values drawn from the data so that many queries match;
/// relations (field against field, arithmetic, `@count`, subscripts, quantified list literals,
/// constants on the left of string operators) and SORT / DISTINCT / LIMIT clauses in any order.
struct PredicateGenerator {
  let schema: CollectionSchema
  /// The records' values, by slot of `schema`.
  let records: [[FieldValue]]
  let words: [String]

  init(repositories: [Repository]) {
    self.init(schema: Repository.schema.declaration, records: repositories.map(\.fieldValues))
  }

  init(schema: CollectionSchema, records: [[FieldValue]]) {
    self.schema = schema
    self.records = records
    var words: Set<String> = []
    for values in records.prefix(5_000) {
      for field in schema.fields where field.type == .string {
        guard case .string(let text) = values[field.position] else { continue }
        for part in text.split(whereSeparator: { "/-_ .".contains($0) }).prefix(4) {
          words.insert(String(part))
        }
      }
    }
    self.words = words.isEmpty ? ["x"] : words.sorted()
  }

  mutating func query(using random: inout SplitMix64) -> Query {
    Query(predicate: predicate(depth: 0, using: &random), clauses: clauses(using: &random))
  }

  /// Zero to three clauses, in any order.
  func clauses(using random: inout SplitMix64) -> [QueryClause] {
    let single = schema.fields.filter { !$0.type.isList }
    var clauses: [QueryClause] = []
    for _ in 0..<[0, 0, 1, 1, 2, 3].randomElement(using: &random)! {
      switch Int.random(in: 0..<3, using: &random) {
      case 0:
        let keys = (0..<Int.random(in: 1...2, using: &random)).compactMap { _ in
          single.randomElement(using: &random).map {
            SortDescriptor(field: $0, ascending: Bool.random(using: &random))
          }
        }
        clauses.append(.sort(keys))
      case 1:
        clauses.append(
          .distinct(
            (0..<Int.random(in: 1...2, using: &random)).compactMap { _ in single.randomElement(using: &random)
            }))
      default:
        clauses.append(.limit(Int.random(in: 0...50, using: &random)))
      }
    }
    return clauses
  }

  private mutating func predicate(depth: Int, using random: inout SplitMix64) -> Predicate {
    let roll = Int.random(in: 0..<10, using: &random)
    if depth < 3 && roll < 3 {
      let parts = (0..<Int.random(in: 2...3, using: &random)).map { _ in
        predicate(depth: depth + 1, using: &random)
      }
      // Flat, as the parser builds chains of the same operator.
      return roll == 0 ? Predicate.disjunction(parts) : Predicate.conjunction(parts)
    }
    if depth < 3 && roll == 3 { return .not(predicate(depth: depth + 1, using: &random)) }
    if roll == 4 && depth > 0 && Int.random(in: 0..<10, using: &random) == 0 {
      return .constant(Bool.random(using: &random))
    }
    if roll >= 8 { return relation(using: &random) }
    return .comparison(comparison(using: &random))
  }

  func sample(using random: inout SplitMix64) -> [FieldValue] {
    records[Int.random(in: 0..<records.count, using: &random)]
  }

  func pattern(from text: String, using random: inout SplitMix64) -> String {
    let characters = Array(text)
    guard !characters.isEmpty else { return "" }
    let start = Int.random(in: 0..<characters.count, using: &random)
    let length = Int.random(in: 1...min(12, characters.count - start), using: &random)
    var piece = String(characters[start..<(start + length)])
    switch Int.random(in: 0..<6, using: &random) {
    case 0: piece = piece.uppercased()
    case 1: piece = piece.lowercased()
    case 2: piece = words.randomElement(using: &random) ?? piece
    default: break
    }
    return piece
  }

  private mutating func comparison(using random: inout SplitMix64) -> Comparison {
    let field = schema.fields.randomElement(using: &random) ?? schema.fields[0]
    let values = sample(using: &random)
    let own = values[field.position]
    let options = StringOptions(rawValue: UInt8.random(in: 0...3, using: &random))
    switch field.type {
    case .string:
      let text: String =
        if case .string(let s) = own { s } else { words.randomElement(using: &random) ?? "x" }
      let ops: [ComparisonOperator] = [
        .equal, .notEqual, .contains, .beginsWith, .endsWith, .like, .in, .less, .greaterOrEqual,
      ]
      let op = ops.randomElement(using: &random) ?? .equal
      // Realm's nil operands: `CONTAINS nil`, `LIKE nil`, `< nil`, `>= nil`.
      if op != .in && Int.random(in: 0..<12, using: &random) == 0 {
        return Comparison(field: field, operator: op, value: .null)
      }
      switch op {
      case .equal, .notEqual:
        if Int.random(in: 0..<8, using: &random) == 0 {
          return Comparison(field: field, operator: op, value: .null)
        }
        return Comparison(
          field: field, operator: op, options: options,
          value: .string(Bool.random(using: &random) ? text : pattern(from: text, using: &random)))
      case .in:
        var items: [QueryValue] = [.string(text), .string(pattern(from: text, using: &random))]
        if Bool.random(using: &random) { items.append(.null) }
        return Comparison(field: field, operator: .in, options: options, value: .list(items))
      case .like:
        var p = Array(pattern(from: text, using: &random))
        for _ in 0..<Int.random(in: 1...3, using: &random) {
          p.insert(Bool.random(using: &random) ? "*" : "?", at: Int.random(in: 0...p.count, using: &random))
        }
        return Comparison(field: field, operator: .like, options: options, value: .string(String(p)))
      default:
        return Comparison(
          field: field, operator: op, options: options, value: .string(pattern(from: text, using: &random)))
      }
    case .integer, .date, .double:
      func value() -> QueryValue {
        let base: Int64 =
          switch own {
          case .integer(let n): n
          case .date(let d): d.secondsSince1970
          case .double(let d) where d.isFinite && abs(d) < 1e15: Int64(d.rounded(.down))
          default: Int64.random(in: 0...1_000, using: &random)
          }
        let shifted = base + Int64.random(in: -3...3, using: &random)
        switch field.type {
        case .date:
          // Sometimes the very moment, nanoseconds and all.
          if case .date(let d) = own, Bool.random(using: &random) { return .date(d) }
          return .date(
            Timestamp(
              secondsSince1970: shifted, nanoseconds: Int32.random(in: 0...2, using: &random) * 500_000_000))
        case .double:
          if case .double(let d) = own, Bool.random(using: &random) { return .double(d) }
          // Whole numbers too, written as doubles: the parser reads `9` on a double field as 9.0.
          return Bool.random(using: &random) ? .double(Double(shifted)) : .double(Double(shifted) + 0.25)
        default:
          return Int.random(in: 0..<5, using: &random) == 0
            ? .double(Double(shifted) + 0.5) : .integer(shifted)
        }
      }
      let ops: [ComparisonOperator] = [
        .equal, .notEqual, .less, .lessOrEqual, .greater, .greaterOrEqual, .between, .in,
      ]
      let op = ops.randomElement(using: &random) ?? .equal
      switch op {
      case .between:
        let a = value()
        let b = value()
        return Comparison(field: field, operator: .between, value: .list([a, b]))
      case .in: return Comparison(field: field, operator: .in, value: .list([value(), value(), .null]))
      default:
        if Int.random(in: 0..<6, using: &random) == 0 {
          return Comparison(field: field, operator: op, value: .null)
        }
        return Comparison(field: field, operator: op, value: value())
      }
    case .bool:
      let value: QueryValue =
        [QueryValue.bool(true), .bool(false), .null].randomElement(using: &random) ?? .null
      return Comparison(
        field: field, operator: Bool.random(using: &random) ? .equal : .notEqual, value: value)
    case .integerList:
      let element: Int64 =
        if case .integers(let list) = own, let first = list.randomElement(using: &random) { first } else {
          Int64.random(in: 0...20, using: &random)
        }
      if Int.random(in: 0..<8, using: &random) == 0 {
        return Comparison(
          field: field, operator: Bool.random(using: &random) ? .equal : .notEqual, value: .null)
      }
      let quantifier: Quantifier = [.any, .any, .all, .none].randomElement(using: &random) ?? .any
      let op: ComparisonOperator =
        [.equal, .notEqual, .less, .greaterOrEqual, .in].randomElement(using: &random) ?? .equal
      let near = element + Int64.random(in: -1...1, using: &random)
      let value: QueryValue =
        switch op {
        case .in: .list([.integer(element), .integer(near)])
        default: .integer(near)
        }
      return Comparison(field: field, quantifier: quantifier, operator: op, value: value)
    case .stringList:
      let element: String =
        if case .strings(let list) = own, let first = list.randomElement(using: &random) { first } else {
          words.randomElement(using: &random) ?? "swift"
        }
      if Int.random(in: 0..<8, using: &random) == 0 {
        return Comparison(
          field: field, operator: Bool.random(using: &random) ? .equal : .notEqual, value: .null)
      }
      let quantifier: Quantifier = [.any, .any, .all, .none].randomElement(using: &random) ?? .any
      let op: ComparisonOperator =
        [.equal, .contains, .beginsWith, .notEqual].randomElement(using: &random) ?? .equal
      return Comparison(
        field: field, quantifier: quantifier, operator: op, options: options,
        value: .string(op == .equal ? element : pattern(from: element, using: &random)))
    }
  }
}
