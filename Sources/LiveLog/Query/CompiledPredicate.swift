/// A predicate prepared for checking many records: every string on the right-hand side is folded
/// once, not once per record. Means exactly what `PredicateEvaluator` means (the tests hold the
/// two against each other); this one is the engine's, that one the definition.
struct CompiledPredicate: Sendable {
  private indirect enum Node: Sendable {
    case constant(Bool)
    case not(Node)
    case and([Node])
    case or([Node])
    case comparison(Prepared)
    /// Checked by the definition, with the slots it reads (ascending) fetched in one pass.
    case relation(Relation, slots: [Int])
    /// Two integer fields compared (`forks_count > watchers_count`): read as integers, with no
    /// list of values made; a null on either side goes to the definition (`relation`).
    case integerFields(left: Int, right: Int, ComparisonOperator, relation: Relation)
    /// A scalar integer field against integer constants (`stargazers_count > 10`, `BETWEEN`):
    /// in `lower ... upper` (or outside it, `excluded`, for `!=`), read with no other value
    /// made; a null goes to the definition (`comparison`).
    case integerRange(slot: Int, lower: Int64, upper: Int64, excluded: Bool, comparison: Comparison)
  }

  /// A comparison with its strings folded per its options.
  private struct Prepared: Sendable {
    var comparison: Comparison
    /// The folded right-hand string, for string operators and string equality.
    var folded: [UInt8]?
    /// The folded strings of an `IN` list (nil for non-strings).
    var foldedItems: [[UInt8]?]
  }

  private let root: Node

  init(_ predicate: Predicate) {
    root = CompiledPredicate.compile(predicate).node
  }

  /// The node and its rough relative cost per record, computed once per node: ranking the parts
  /// of a long AND must not re-walk them.
  private static func compile(_ predicate: Predicate) -> (node: Node, cost: Int) {
    switch predicate {
    case .constant(let value): return (.constant(value), 0)
    case .not(let inner):
      let (node, cost) = compile(inner)
      return (.not(node), cost)
    // Evaluation has no side effects, so parts may run cheapest first: a failed `language == …`
    // then spares the fold of a `CONTAINS[c]`.
    case .and(let parts):
      let compiled = parts.map(compile)
      return (.and(ranked(compiled)), compiled.reduce(0) { $0 + $1.cost })
    case .or(let parts):
      let compiled = parts.map(compile)
      return (.or(ranked(compiled)), compiled.reduce(0) { $0 + $1.cost })
    case .relation(let relation):
      if let (left, op, right) = relation.fieldComparison, left.type == .integer, right.type == .integer,
        relation.options.isEmpty
      {
        return (.integerFields(left: left.position, right: right.position, op, relation: relation), 2)
      }
      return (.relation(relation, slots: relation.fields.map(\.position).sorted()), 30)
    case .comparison(let c):
      if let range = integerRange(c) {
        return (
          .integerRange(
            slot: c.field.position, lower: range.lower, upper: range.upper, excluded: range.excluded,
            comparison: c),
          1
        )
      }
      var folded: [UInt8]?
      if case .string(let text) = c.value { folded = TextFolding.fold(text, c.options) }
      var items: [[UInt8]?] = []
      if case .list(let list) = c.value {
        items = list.map { item in
          if case .string(let text) = item { return TextFolding.fold(text, c.options) }
          return nil
        }
      }
      let cost: Int
      if c.operator.isStringOperator {
        cost = c.options.isEmpty ? 20 : 40
      } else if c.field.type.elementType == .string {
        cost = c.options.isEmpty ? 5 : 20
      } else {
        cost = 1
      }
      return (.comparison(Prepared(comparison: c, folded: folded, foldedItems: items)), cost)
    }
  }

  /// The integers a comparison of a scalar integer field with integer constants accepts, when
  /// it is one: an empty range (`lower > upper`) accepts none.
  private static func integerRange(_ c: Comparison) -> (lower: Int64, upper: Int64, excluded: Bool)? {
    guard c.field.type == .integer, c.quantifier == .single else { return nil }
    switch (c.operator, c.value) {
    case (.equal, .integer(let b)): return (b, b, false)
    case (.notEqual, .integer(let b)): return (b, b, true)
    case (.less, .integer(let b)): return b == .min ? (.max, .min, false) : (.min, b - 1, false)
    case (.lessOrEqual, .integer(let b)): return (.min, b, false)
    case (.greater, .integer(let b)): return b == .max ? (.max, .min, false) : (b + 1, .max, false)
    case (.greaterOrEqual, .integer(let b)): return (b, .max, false)
    case (.between, .list(let bounds)):
      guard bounds.count == 2, case .integer(let low) = bounds[0], case .integer(let high) = bounds[1] else {
        return nil
      }
      return (low, high, false)
    default: return nil
    }
  }

  /// The nodes cheapest first; equal costs keep their order.
  private static func ranked(_ parts: [(node: Node, cost: Int)]) -> [Node] {
    parts.enumerated().sorted { ($0.element.cost, $0.offset) < ($1.element.cost, $1.offset) }.map(
      \.element.node)
  }

  /// Whether the record whose fields `value(of:)` returns matches.
  func matches(_ value: (Field) -> FieldValue) -> Bool {
    CompiledPredicate.evaluate(root, value)
  }

  /// Whether a stored record matches. Strings are folded from the bytes in the map into one
  /// scratch buffer: no `String` and no allocation per record for ASCII text.
  func matches(_ record: RecordView) throws(StoreError) -> Bool {
    var scratch: [UInt8] = []
    scratch.reserveCapacity(256)
    return try matches(record, scratch: &scratch)
  }

  /// `matches(_:)` folding into the caller's `scratch`, so that checking many records allocates
  /// once.
  func matches(_ record: RecordView, scratch: inout [UInt8]) throws(StoreError) -> Bool {
    try CompiledPredicate.evaluate(root, record, &scratch)
  }

  private static func evaluate(_ node: Node, _ record: RecordView, _ scratch: inout [UInt8])
    throws(StoreError)
    -> Bool
  {
    switch node {
    case .constant(let result): return result
    case .not(let inner): return try !evaluate(inner, record, &scratch)
    case .and(let parts):
      for part in parts where try !evaluate(part, record, &scratch) { return false }
      return true
    case .or(let parts):
      for part in parts where try evaluate(part, record, &scratch) { return true }
      return false
    case .relation(let relation, let slots):
      let values = try record.values(atSlots: slots)
      return PredicateEvaluator.matches(relation) { field in
        // A relation reads a field or two: a look along them beats hashing.
        for index in slots.indices where slots[index] == field.position { return values[index] }
        return .null
      }
    case .integerFields(let left, let right, let op, let relation):
      let x = try record.value(atSlot: left)
      let y = try record.value(atSlot: right)
      guard case .integer(let a) = x, case .integer(let b) = y else {
        return PredicateEvaluator.matches(relation) {
          $0.position == left ? x : $0.position == right ? y : .null
        }
      }
      return op.orders(a, b)
    case .integerRange(let slot, let lower, let upper, let excluded, _):
      let value = try record.value(atSlot: slot)
      if case .integer(let number) = value { return (number >= lower && number <= upper) != excluded }
      // Bound here only: binding the comparison above would copy it for every record.
      guard case .integerRange(_, _, _, _, let c) = node else { return false }
      return PredicateEvaluator.matches(c, value)
    case .comparison(let prepared):
      let c = prepared.comparison
      guard c.field.type == .string, c.quantifier == .single,
        prepared.folded != nil || !prepared.foldedItems.isEmpty
      else {
        return matches(prepared, try record.value(c.field))
      }
      guard let raw = try record.utf8(c.field) else { return PredicateEvaluator.matches(c, .null) }
      return compare(raw, prepared, &scratch)
    }
  }

  /// A stored string against a prepared comparison, folding into `scratch`.
  private static func compare(_ raw: UnsafeRawBufferPointer, _ prepared: Prepared, _ scratch: inout [UInt8])
    -> Bool
  {
    let c = prepared.comparison
    if c.operator == .between {
      return PredicateEvaluator.matches(c, .string(String(decoding: raw, as: UTF8.self)))
    }
    if c.options.isEmpty {
      scratch.removeAll(keepingCapacity: true)
      scratch.append(contentsOf: raw)
    } else {
      TextFolding.fold(utf8: raw, c.options, into: &scratch)
    }
    let t = scratch
    switch c.operator {
    case .equal: return prepared.folded.map { t == $0 } ?? false
    case .notEqual: return prepared.folded.map { t != $0 } ?? true
    case .in: return prepared.foldedItems.contains { $0 == t }
    case .contains: return prepared.folded.map { TextMatching.contains(t, $0) } ?? false
    case .beginsWith: return prepared.folded.map { t.starts(with: $0) } ?? false
    case .endsWith:
      guard let p = prepared.folded else { return false }
      return t.count >= p.count && t[(t.count - p.count)...].elementsEqual(p)
    case .like: return prepared.folded.map { TextMatching.like(t, pattern: $0) } ?? false
    case .less, .lessOrEqual, .greater, .greaterOrEqual:
      guard let p = prepared.folded else { return false }
      let sign = TextMatching.compare(t, p)
      switch c.operator {
      case .less: return sign < 0
      case .lessOrEqual: return sign <= 0
      case .greater: return sign > 0
      default: return sign >= 0
      }
    case .between: return false
    }
  }

  private static func evaluate(_ node: Node, _ value: (Field) -> FieldValue) -> Bool {
    switch node {
    case .constant(let result): return result
    case .not(let inner): return !evaluate(inner, value)
    case .and(let parts): return parts.allSatisfy { evaluate($0, value) }
    case .or(let parts): return parts.contains { evaluate($0, value) }
    case .relation(let relation, _), .integerFields(_, _, _, let relation):
      return PredicateEvaluator.matches(relation, value)
    case .integerRange(_, _, _, _, let c): return PredicateEvaluator.matches(c, value(c.field))
    case .comparison(let prepared): return matches(prepared, value(prepared.comparison.field))
    }
  }

  /// A value of a comparison's field against the comparison, its strings compared folded.
  private static func matches(_ prepared: Prepared, _ fieldValue: FieldValue) -> Bool {
    let c = prepared.comparison
    // Only string comparisons gain from preparation; the rest is the definition itself.
    guard prepared.folded != nil || !prepared.foldedItems.isEmpty else {
      return PredicateEvaluator.matches(c, fieldValue)
    }
    var scratch: [UInt8] = []
    func compareText(_ text: String) -> Bool {
      var text = text
      return text.withUTF8 { compare(UnsafeRawBufferPointer($0), prepared, &scratch) }
    }
    if case .strings(let elements) = fieldValue, c.quantifier != .single {
      switch c.quantifier {
      case .any, .single: return elements.contains { compareText($0) }
      case .all: return elements.allSatisfy { compareText($0) }
      case .none: return !elements.contains { compareText($0) }
      }
    }
    if case .string(let text) = fieldValue { return compareText(text) }
    return PredicateEvaluator.matches(c, fieldValue)
  }
}
