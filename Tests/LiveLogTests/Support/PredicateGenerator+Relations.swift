@testable import LiveLog

/// The generator's relations: every form that is not a field against a constant, written the
/// way the parser builds it (a form the parser turns into a `Comparison` is never generated as a
/// relation).
extension PredicateGenerator {
  func relation(using random: inout SplitMix64) -> Predicate {
    let options = StringOptions(rawValue: UInt8.random(in: 0...3, using: &random))
    switch Int.random(in: 0..<8, using: &random) {
    case 0: return fieldAgainstField(options, using: &random)
    case 1: return arithmetic(using: &random)
    case 2:
      let countable = schema.fields.filter { $0.type.isList || $0.type == .string }
      guard let field = countable.randomElement(using: &random) else { return .constant(true) }
      let op = orderings.randomElement(using: &random) ?? .equal
      return relate(.count(field), op, .value(.integer(Int64.random(in: 0...4, using: &random))))
    case 3: return element(options, using: &random)
    case 4, 5: return listLiteral(options, using: &random)
    case 6:
      let lists = schema.fields.filter { $0.type.isList }
      guard let field = lists.randomElement(using: &random) else { return .constant(true) }
      let items = (0..<Int.random(in: 0...3, using: &random)).map { _ in element(of: field, using: &random) }
      let quantifier: Quantifier = [.any, .all, .none].randomElement(using: &random) ?? .any
      return .relation(
        Relation(
          left: Operand(.value(.list(items)), quantifier: quantifier), operator: .in,
          options: field.type == .stringList ? options : [], right: Operand(.field(field))))
    default:
      let strings = schema.fields.filter { $0.type == .string }
      guard let field = strings.randomElement(using: &random) else { return .constant(true) }
      let op: ComparisonOperator =
        [.contains, .beginsWith, .endsWith, .like].randomElement(using: &random) ?? .contains
      let text = string(of: field, using: &random)
      return .relation(
        Relation(
          left: Operand(.value(.string(text))), operator: op, options: options, right: Operand(.field(field)))
      )
    }
  }

  private var orderings: [ComparisonOperator] {
    [.equal, .notEqual, .less, .lessOrEqual, .greater, .greaterOrEqual]
  }

  private func relate(
    _ left: QueryExpression, _ op: ComparisonOperator, _ right: QueryExpression, options: StringOptions = []
  )
    -> Predicate
  {
    .relation(Relation(left: Operand(left), operator: op, options: options, right: Operand(right)))
  }

  private func kind(_ type: FieldType) -> Int {
    switch type.elementType {
    case .string, .stringList: 0
    case .integer, .double, .integerList: 1
    case .date: 2
    case .bool: 3
    }
  }

  private func fieldAgainstField(_ options: StringOptions, using random: inout SplitMix64) -> Predicate {
    guard let left = schema.fields.randomElement(using: &random) else { return .constant(true) }
    let partners = schema.fields.filter { kind($0.type) == kind(left.type) && !$0.type.isList && $0 != left }
    guard let right = partners.randomElement(using: &random) ?? (left.type.isList ? nil : left) else {
      return .constant(true)
    }
    var ops = kind(left.type) == 3 ? [.equal, .notEqual] : orderings
    if kind(left.type) == 0 { ops += [.contains, .beginsWith, .endsWith, .like] }
    let op = ops.randomElement(using: &random) ?? .equal
    let quantifier: Quantifier =
      left.type.isList ? ([.any, .all, .none].randomElement(using: &random) ?? .any) : .single
    return .relation(
      Relation(
        left: Operand(.field(left), quantifier: quantifier), operator: op,
        options: kind(left.type) == 0 ? options : [], right: Operand(.field(right))))
  }

  /// A number from a record: a numeric field, a count, an integer element, or a small constant.
  /// With `constant` false, never a constant (a schema without counts or integer lists gets a
  /// numeric field instead), so that the relation it goes into has a side the parser cannot
  /// fold into `TRUEPREDICATE` or `FALSEPREDICATE`.
  private func numeric(using random: inout SplitMix64, constant: Bool) -> QueryExpression {
    let numbers = schema.fields.filter { $0.type == .integer || $0.type == .double }
    let field = numbers.randomElement(using: &random).map(QueryExpression.field) ?? .value(.integer(1))
    switch Int.random(in: 0..<(constant ? 5 : 4), using: &random) {
    case 0, 1: return field
    case 2:
      let countable = schema.fields.filter { $0.type.isList || $0.type == .string }
      return countable.randomElement(using: &random).map(QueryExpression.count) ?? field
    case 3:
      let lists = schema.fields.filter { $0.type == .integerList }
      return lists.randomElement(using: &random).map { QueryExpression.element($0, .last) } ?? field
    default:
      return Bool.random(using: &random)
        ? .value(.integer(Int64.random(in: -3...5, using: &random)))
        : .value(.double(Double(Int.random(in: -8...8, using: &random)) / 4))
    }
  }

  private func arithmetic(using random: inout SplitMix64) -> Predicate {
    func term(_ depth: Int) -> QueryExpression {
      if depth > 0 && Bool.random(using: &random) {
        let op = ArithmeticOperator.allCases.randomElement(using: &random) ?? .add
        return .arithmetic(op, term(depth - 1), term(depth - 1))
      }
      return numeric(using: &random, constant: true)
    }
    var left = QueryExpression.arithmetic(
      ArithmeticOperator.allCases.randomElement(using: &random) ?? .add,
      numeric(using: &random, constant: false),
      term(1))
    if Bool.random(using: &random) { left = .arithmetic(.multiply, term(0), left) }
    if left.isConstant { left = .arithmetic(.add, left, numeric(using: &random, constant: false)) }
    if Int.random(in: 0..<6, using: &random) == 0 {
      let low = Int64.random(in: -5...100, using: &random)
      return .relation(
        Relation(
          left: Operand(left), operator: .between,
          right: Operand(
            .value(.list([.integer(low), .integer(low + Int64.random(in: 0...200, using: &random))])))))
    }
    let right =
      Bool.random(using: &random)
      ? numeric(using: &random, constant: false)
      : .value(.integer(Int64.random(in: -10...300, using: &random)))
    return relate(left, orderings.randomElement(using: &random) ?? .greater, right)
  }

  private func element(_ options: StringOptions, using random: inout SplitMix64) -> Predicate {
    let lists = schema.fields.filter { $0.type.isList }
    guard let field = lists.randomElement(using: &random) else { return .constant(true) }
    let index: ElementIndex =
      [.first, .last, .position(Int64.random(in: 0...2, using: &random))].randomElement(using: &random)
      ?? .first
    if Int.random(in: 0..<8, using: &random) == 0 {
      return relate(.element(field, index), Bool.random(using: &random) ? .equal : .notEqual, .value(.null))
    }
    if field.type == .stringList {
      let op: ComparisonOperator =
        [.equal, .notEqual, .beginsWith, .contains, .less].randomElement(using: &random) ?? .equal
      return relate(.element(field, index), op, .value(element(of: field, using: &random)), options: options)
    }
    return relate(
      .element(field, index), orderings.randomElement(using: &random) ?? .equal,
      .value(element(of: field, using: &random)))
  }

  /// `field OP ANY|ALL|NONE {…}`, leaving out the combinations the parser turns into `IN`.
  private func listLiteral(_ options: StringOptions, using random: inout SplitMix64) -> Predicate {
    guard let field = schema.fields.randomElement(using: &random) else { return .constant(true) }
    var ops: [ComparisonOperator] = kind(field.type) == 3 ? [.equal, .notEqual, .in] : orderings + [.in]
    if kind(field.type) == 0 { ops += [.contains, .beginsWith, .endsWith, .like] }
    let leftQuantifier: Quantifier =
      field.type.isList ? ([.any, .all, .none].randomElement(using: &random) ?? .any) : .single
    for _ in 0..<8 {
      let op = ops.randomElement(using: &random) ?? .notEqual
      let quantifier: Quantifier = [.any, .all, .none].randomElement(using: &random) ?? .all
      let isEquality = op == .equal || op == .in
      if isEquality && quantifier == .any { continue }
      if !field.type.isList
        && ((isEquality && quantifier == .none) || (op == .notEqual && quantifier == .all))
      {
        continue
      }
      var items = (0..<Int.random(in: 0...3, using: &random)).map { _ in element(of: field, using: &random) }
      if !field.type.isList && Int.random(in: 0..<5, using: &random) == 0 { items.append(.null) }
      return .relation(
        Relation(
          left: Operand(.field(field), quantifier: leftQuantifier), operator: op,
          options: kind(field.type) == 0 ? options : [],
          right: Operand(.value(.list(items)), quantifier: quantifier)))
    }
    return .constant(false)
  }

  /// A value of the field's (or its elements') type, as the parser converts literals for it.
  func element(of field: Field, using random: inout SplitMix64) -> QueryValue {
    let own = sample(using: &random)[field.position]
    switch field.type.elementType {
    case .string, .stringList: return .string(string(of: field, using: &random))
    case .integerList:
      if case .integers(let list) = own, let first = list.randomElement(using: &random) {
        return .integer(first)
      }
      return .integer(Int64.random(in: 0...9, using: &random))
    case .integer:
      if case .integer(let n) = own { return .integer(n + Int64.random(in: -2...2, using: &random)) }
      return .integer(Int64.random(in: 0...100, using: &random))
    case .double:
      if case .double(let d) = own, Bool.random(using: &random) { return .double(d) }
      return .double(Double(Int.random(in: -8...80, using: &random)) / 4)
    case .date:
      if case .date(let d) = own, Bool.random(using: &random) { return .date(d) }
      return .date(Timestamp(secondsSince1970: 1_500_000_000 + Int64.random(in: 0...400, using: &random)))
    case .bool: return .bool(Bool.random(using: &random))
    }
  }

  private func string(of field: Field, using random: inout SplitMix64) -> String {
    let own = sample(using: &random)[field.position]
    let text: String
    switch own {
    case .string(let s): text = s
    case .strings(let list) where !list.isEmpty: text = list.randomElement(using: &random) ?? "x"
    default: text = words.randomElement(using: &random) ?? "x"
    }
    return Bool.random(using: &random) ? text : pattern(from: text, using: &random)
  }
}
