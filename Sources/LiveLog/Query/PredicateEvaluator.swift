#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Decides whether a record matches a predicate: the meaning of the query language.
///
/// Every query's final word: the planner narrows candidates with indexes, then each candidate
/// (or, without a usable index, each record) is checked here. NSPredicate's treatment of `nil`:
/// - `field == nil` and `field != nil` test for absence;
/// - `!=` is true when the field is absent (`language != 'Swift'` matches a nil language);
/// - every other comparison with an absent field is false (`stars < 5`, `name CONTAINS 'a'`);
/// - `IN` matches an absent field only when the list holds `nil`;
/// - with `nil` on the right, Realm's rules: `<` and `>` are false, `<=` and `>=` test for
///   absence, `CONTAINS`, `BEGINSWITH` and `ENDSWITH` are true, `LIKE` tests for absence.
enum PredicateEvaluator {
  /// Whether the record whose fields `value(of:)` returns matches `predicate`.
  static func matches(_ predicate: Predicate, _ value: (Field) -> FieldValue) -> Bool {
    switch predicate {
    case .constant(let result): return result
    case .not(let inner): return !matches(inner, value)
    case .and(let parts): return parts.allSatisfy { matches($0, value) }
    case .or(let parts): return parts.contains { matches($0, value) }
    case .comparison(let comparison): return matches(comparison, value(comparison.field))
    case .relation(let relation): return matches(relation, value)
    }
  }

  static func matches(_ comparison: Comparison, _ fieldValue: FieldValue) -> Bool {
    if comparison.quantifier != .single {
      let elements: [FieldValue]?
      switch fieldValue {
      case .strings(let list): elements = list.map(FieldValue.string)
      case .integers(let list): elements = list.map(FieldValue.integer)
      default: elements = nil
      }
      if let elements {
        switch comparison.quantifier {
        case .any, .single: return elements.contains { compare($0, comparison) }
        case .all: return elements.allSatisfy { compare($0, comparison) }
        case .none: return !elements.contains { compare($0, comparison) }
        }
      }
    }
    if case .null = fieldValue, comparison.quantifier == .all {
      return true
    }
    if case .null = fieldValue, comparison.quantifier == .none {
      return true
    }
    if case .null = fieldValue, comparison.quantifier == .any {
      return false
    }
    return compare(fieldValue, comparison)
  }

  /// One value (a scalar field, or one element of a list) against the comparison.
  private static func compare(_ fieldValue: FieldValue, _ c: Comparison) -> Bool {
    switch c.operator {
    case .equal: return equals(fieldValue, c.value, c.options)
    case .notEqual: return !equals(fieldValue, c.value, c.options)
    case .in:
      guard case .list(let items) = c.value else { return false }
      return items.contains { equals(fieldValue, $0, c.options) }
    case .between:
      guard case .list(let bounds) = c.value, bounds.count == 2 else { return false }
      guard let low = order(fieldValue, bounds[0], c.options),
        let high = order(fieldValue, bounds[1], c.options)
      else { return false }
      return low >= 0 && high <= 0
    case .less, .lessOrEqual, .greater, .greaterOrEqual:
      if case .null = c.value {
        return fieldValue.isNull && (c.operator == .lessOrEqual || c.operator == .greaterOrEqual)
      }
      guard let sign = order(fieldValue, c.value, c.options) else { return false }
      switch c.operator {
      case .less: return sign < 0
      case .lessOrEqual: return sign <= 0
      case .greater: return sign > 0
      default: return sign >= 0
      }
    case .contains, .beginsWith, .endsWith, .like:
      return matchesText(fieldValue, c.operator, c.options, c.value)
    }
  }

  /// The string operators, with Realm's nil rules.
  static func matchesText(
    _ fieldValue: FieldValue, _ op: ComparisonOperator, _ options: StringOptions, _ value: QueryValue
  ) -> Bool {
    if case .null = value { return op == .like ? fieldValue.isNull : true }
    guard case .string(let text) = fieldValue, case .string(let pattern) = value else { return false }
    let t = TextFolding.fold(text, options)
    let p = TextFolding.fold(pattern, options)
    switch op {
    case .contains: return TextMatching.contains(t, p)
    case .beginsWith: return t.starts(with: p)
    case .endsWith: return t.count >= p.count && t[(t.count - p.count)...].elementsEqual(p)
    default: return TextMatching.like(t, pattern: p)
    }
  }

  /// Equality with NSPredicate's nil rule: nil equals only nil.
  static func equals(_ fieldValue: FieldValue, _ value: QueryValue, _ options: StringOptions) -> Bool {
    switch (fieldValue, value) {
    case (.null, .null): return true
    case (.null, _), (_, .null): return false
    case (.string(let a), .string(let b)):
      return options.isEmpty
        ? a.unicodeScalars.elementsEqual(b.unicodeScalars)
        : TextFolding.fold(a, options) == TextFolding.fold(b, options)
    default: return order(fieldValue, value, options) == 0
    }
  }

  /// The sign of `fieldValue - value`, or `nil` when they cannot be ordered (nil, other types).
  static func order(_ fieldValue: FieldValue, _ value: QueryValue, _ options: StringOptions) -> Int? {
    switch (fieldValue, value) {
    case (.integer(let a), .integer(let b)): return a < b ? -1 : (a > b ? 1 : 0)
    case (.integer(let a), .double(let b)): return NumericOrder.compare(a, b)
    case (.double(let a), .double(let b)): return a.isNaN || b.isNaN ? nil : (a < b ? -1 : (a > b ? 1 : 0))
    case (.double(let a), .integer(let b)): return NumericOrder.compare(b, a).map { -$0 }
    case (.date(let a), .date(let b)): return a < b ? -1 : (a > b ? 1 : 0)
    case (.bool(let a), .bool(let b)): return a == b ? 0 : (a ? 1 : -1)
    case (.string(let a), .string(let b)):
      return TextMatching.compare(TextFolding.fold(a, options), TextFolding.fold(b, options))
    default: return nil
    }
  }
}

/// Exact comparison of whole numbers with fractional ones.
enum NumericOrder {
  static func compare(_ a: Int64, _ b: Double) -> Int? {
    if b.isNaN { return nil }
    if b >= 9_223_372_036_854_775_808.0 { return -1 }
    if b < -9_223_372_036_854_775_808.0 { return 1 }
    let whole = b.rounded(.down)
    let bInteger = Int64(whole)
    if a < bInteger { return -1 }
    if a > bInteger { return 1 }
    return whole == b ? 0 : -1
  }
}

/// Byte-level matching of folded UTF-8 text.
enum TextMatching {
  static func contains(_ text: [UInt8], _ pattern: [UInt8]) -> Bool {
    if pattern.isEmpty { return true }
    if pattern.count > text.count { return false }
    let first = pattern[0]
    let last = text.count - pattern.count
    var start = 0
    return text.withUnsafeBufferPointer { t in
      pattern.withUnsafeBufferPointer { p in
        while start <= last {
          // Jump to the next occurrence of the pattern's first byte, then compare the rest.
          guard let base = t.baseAddress, let needle = p.baseAddress,
            let hit = memchr(base + start, Int32(first), last - start + 1)
          else { return false }
          let offset = base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
          if memcmp(base + offset, needle, p.count) == 0 { return true }
          start = offset + 1
        }
        return false
      }
    }
  }

  /// Lexicographic order of byte strings: -1, 0 or 1.
  static func compare(_ a: [UInt8], _ b: [UInt8]) -> Int {
    let common = min(a.count, b.count)
    var c: Int32 = 0
    if common > 0 {
      c = a.withUnsafeBufferPointer { x in
        b.withUnsafeBufferPointer { y in
          guard let xb = x.baseAddress, let yb = y.baseAddress else { return 0 }
          return memcmp(xb, yb, common)
        }
      }
    }
    if c != 0 { return c < 0 ? -1 : 1 }
    return a.count == b.count ? 0 : (a.count < b.count ? -1 : 1)
  }

  /// `LIKE`: `*` matches any run of characters, `?` exactly one character (Unicode scalar);
  /// everything else matches itself. Linear in practice: the classic backtracking to the last `*`.
  static func like(_ text: [UInt8], pattern: [UInt8]) -> Bool {
    var t = 0
    var p = 0
    var starPattern = -1
    var starText = 0
    func scalarLength(_ lead: UInt8) -> Int {
      lead < 0x80 ? 1 : (lead < 0xE0 ? 2 : (lead < 0xF0 ? 3 : 4))
    }
    while t < text.count {
      if p < pattern.count && pattern[p] == UInt8(ascii: "*") {
        starPattern = p
        p += 1
        starText = t
      } else if p < pattern.count && pattern[p] == UInt8(ascii: "?") {
        t += scalarLength(text[t])
        p += 1
      } else if p < pattern.count && pattern[p] == text[t] {
        t += 1
        p += 1
      } else if starPattern >= 0 {
        // Give the last `*` one more character and try again from there.
        starText += scalarLength(text[starText])
        t = starText
        p = starPattern + 1
      } else {
        return false
      }
    }
    while p < pattern.count && pattern[p] == UInt8(ascii: "*") { p += 1 }
    return p == pattern.count && t == text.count
  }
}
