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
    root = CompiledPredicate.compile(predicate)
  }

  private static func compile(_ predicate: Predicate) -> Node {
    switch predicate {
    case .constant(let value): return .constant(value)
    case .not(let inner): return .not(compile(inner))
    case .and(let parts): return .and(parts.map(compile))
    case .or(let parts): return .or(parts.map(compile))
    case .comparison(let c):
      var folded: [UInt8]?
      if case .string(let text) = c.value { folded = TextFolding.fold(text, c.options) }
      var items: [[UInt8]?] = []
      if case .list(let list) = c.value {
        items = list.map { item in
          if case .string(let text) = item { return TextFolding.fold(text, c.options) }
          return nil
        }
      }
      return .comparison(Prepared(comparison: c, folded: folded, foldedItems: items))
    }
  }

  /// Whether the record whose fields `value(of:)` returns matches.
  func matches(_ value: (Field) -> FieldValue) -> Bool {
    CompiledPredicate.evaluate(root, value)
  }

  private static func evaluate(_ node: Node, _ value: (Field) -> FieldValue) -> Bool {
    switch node {
    case .constant(let result): return result
    case .not(let inner): return !evaluate(inner, value)
    case .and(let parts): return parts.allSatisfy { evaluate($0, value) }
    case .or(let parts): return parts.contains { evaluate($0, value) }
    case .comparison(let prepared):
      let c = prepared.comparison
      // Only string comparisons gain from preparation; the rest is the definition itself.
      guard prepared.folded != nil || !prepared.foldedItems.isEmpty else {
        return PredicateEvaluator.matches(c, value(c.field))
      }
      let fieldValue = value(c.field)
      if case .strings(let elements) = fieldValue, c.quantifier != .single {
        switch c.quantifier {
        case .any, .single: return elements.contains { compare($0, prepared) }
        case .all: return elements.allSatisfy { compare($0, prepared) }
        case .none: return !elements.contains { compare($0, prepared) }
        }
      }
      if case .string(let text) = fieldValue { return compare(text, prepared) }
      return PredicateEvaluator.matches(c, fieldValue)
    }
  }

  /// One string (a field, or an element of a list) against a prepared comparison.
  private static func compare(_ text: String, _ prepared: Prepared) -> Bool {
    let c = prepared.comparison
    switch c.operator {
    case .equal, .notEqual:
      guard let folded = prepared.folded else { return PredicateEvaluator.matches(c, .string(text)) }
      let equal =
        c.options.isEmpty ? text.utf8.elementsEqual(folded) : TextFolding.fold(text, c.options) == folded
      return c.operator == .equal ? equal : !equal
    case .in:
      let t = c.options.isEmpty ? Array(text.utf8) : TextFolding.fold(text, c.options)
      return prepared.foldedItems.contains { $0 == t }
    case .contains, .beginsWith, .endsWith, .like:
      guard let p = prepared.folded else { return false }
      let t = TextFolding.fold(text, c.options)
      switch c.operator {
      case .contains: return TextMatching.contains(t, p)
      case .beginsWith: return t.starts(with: p)
      case .endsWith: return t.count >= p.count && t[(t.count - p.count)...].elementsEqual(p)
      default: return TextMatching.like(t, pattern: p)
      }
    case .less, .lessOrEqual, .greater, .greaterOrEqual:
      guard let p = prepared.folded else { return false }
      let sign = TextMatching.compare(TextFolding.fold(text, c.options), p)
      switch c.operator {
      case .less: return sign < 0
      case .lessOrEqual: return sign <= 0
      case .greater: return sign > 0
      default: return sign >= 0
      }
    case .between:
      return PredicateEvaluator.matches(c, .string(text))
    }
  }
}
