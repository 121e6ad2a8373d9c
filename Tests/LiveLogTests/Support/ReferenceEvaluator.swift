import Foundation
import Synchronization

@testable import LiveLog

/// The differential tests' oracle: the query language's documented meaning (Docs/QueryLanguage.md),
/// written from that text alone. It shares no code with the engine (`PredicateEvaluator`,
/// `CompiledPredicate`, `TextFolding`, `SortOrder`, `LaterClauses`), so that a mistake in one is
/// not repeated in the other; it is slow and plain on purpose.
enum ReferenceEvaluator {
  /// The keys of the records of `records` (in insertion order) that `query` returns, in order.
  static func answer(_ query: Query, _ records: [[FieldValue]]) -> [Int] {
    var rows = records.indices.filter { matches(query.predicate, records[$0]) }
    for clause in query.clauses {
      switch clause {
      case .limit(let count): rows = Array(rows.prefix(count))
      case .sort(let keys):
        rows = mergeSorted(rows) { before(records[$0], records[$1], keys) }
      case .distinct(let fields):
        // The first row of each group of equal values: sorted by the values (stably, so each
        // group starts with its first row), then back in the order the rows had.
        let keys = fields.map { LiveLog.SortDescriptor(field: $0, ascending: true) }
        let grouped = mergeSorted(Array(rows.indices)) { before(records[rows[$0]], records[rows[$1]], keys) }
        var firsts: [Int] = []
        for (offset, position) in grouped.enumerated() {
          let row = rows[position]
          if offset > 0, !before(records[rows[grouped[offset - 1]]], records[row], keys) { continue }
          firsts.append(position)
        }
        rows = firsts.sorted().map { rows[$0] }
      }
    }
    return rows
  }

  /// A stable merge sort, written out so that it shares nothing with the standard library's sort.
  private static func mergeSorted(_ items: [Int], _ less: (Int, Int) -> Bool) -> [Int] {
    guard items.count > 1 else { return items }
    let left = mergeSorted(Array(items[..<(items.count / 2)]), less)
    let right = mergeSorted(Array(items[(items.count / 2)...]), less)
    var merged: [Int] = []
    merged.reserveCapacity(items.count)
    var i = 0
    var j = 0
    while i < left.count || j < right.count {
      // Ties take the left one: stable.
      if j == right.count || (i < left.count && !less(right[j], left[i])) {
        merged.append(left[i])
        i += 1
      } else {
        merged.append(right[j])
        j += 1
      }
    }
    return merged
  }

  private static func before(_ a: [FieldValue], _ b: [FieldValue], _ keys: [LiveLog.SortDescriptor]) -> Bool {
    for key in keys {
      let order = sortOrder(a[key.field.position], b[key.field.position])
      if order != 0 { return key.ascending ? order < 0 : order > 0 }
    }
    return false
  }

  /// SORT's order: nil first, NaN after every number, strings by Unicode scalar values.
  static func sortOrder(_ a: FieldValue, _ b: FieldValue) -> Int {
    switch (a, b) {
    case (.null, .null): return 0
    case (.null, _): return -1
    case (_, .null): return 1
    case (.double(let x), .double(let y)) where x.isNaN || y.isNaN:
      return x.isNaN && y.isNaN ? 0 : (x.isNaN ? 1 : -1)
    default:
      return compare(a, b, options: []) ?? 0
    }
  }

  // MARK: Predicates

  static func matches(_ predicate: LiveLog.Predicate, _ record: [FieldValue]) -> Bool {
    switch predicate {
    case .constant(let value): return value
    case .not(let inner): return !matches(inner, record)
    case .and(let parts):
      for part in parts where !matches(part, record) { return false }
      return true
    case .or(let parts):
      for part in parts where matches(part, record) { return true }
      return false
    case .comparison(let c): return matches(c, record)
    case .relation(let r): return matches(r, record)
    }
  }

  private static func elements(_ value: FieldValue) -> [FieldValue]? {
    switch value {
    case .strings(let list): return list.map { .string($0) }
    case .integers(let list): return list.map { .integer($0) }
    default: return nil
    }
  }

  private static func constant(_ value: QueryValue) -> FieldValue {
    switch value {
    case .null, .list: return .null
    case .bool(let b): return .bool(b)
    case .integer(let n): return .integer(n)
    case .double(let d): return .double(d)
    case .string(let s): return .string(s)
    case .date(let t): return .date(t)
    }
  }

  private static func matches(_ c: Comparison, _ record: [FieldValue]) -> Bool {
    let stored = record[c.field.position]
    if c.field.type.isList && c.quantifier != .single {
      let items = elements(stored) ?? []
      let test = { (item: FieldValue) in holdsConstant(item, c) }
      switch c.quantifier {
      case .all: return items.allSatisfy(test)
      case .none: return !items.contains(where: test)
      default: return items.contains(where: test)
      }
    }
    return holdsConstant(stored, c)
  }

  /// One value against a comparison's constant side.
  private static func holdsConstant(_ x: FieldValue, _ c: Comparison) -> Bool {
    switch (c.operator, c.value) {
    case (.in, .list(let items)):
      return items.contains { holds(x, .equal, c.options, constant($0)) }
    case (.between, .list(let bounds)):
      guard bounds.count == 2, !x.isNull else { return false }
      return holds(x, .greaterOrEqual, c.options, constant(bounds[0]))
        && holds(x, .lessOrEqual, c.options, constant(bounds[1]))
    default:
      return holds(x, c.operator, c.options, constant(c.value))
    }
  }

  private enum Values {
    case one(FieldValue)
    case many([FieldValue])
  }

  private static func matches(_ r: Relation, _ record: [FieldValue]) -> Bool {
    let left = values(r.left.expression, record)
    if r.operator == .between {
      guard case .value(.list(let bounds)) = r.right.expression, bounds.count == 2 else { return false }
      return quantified(r.left.quantifier, left) { x in
        !x.isNull && holds(x, .greaterOrEqual, r.options, constant(bounds[0]))
          && holds(x, .lessOrEqual, r.options, constant(bounds[1]))
      }
    }
    let right = values(r.right.expression, record)
    let op: ComparisonOperator = r.operator == .in ? .equal : r.operator
    return quantified(r.left.quantifier, left) { x in
      quantified(r.right.quantifier, right) { y in holds(x, op, r.options, y) }
    }
  }

  private static func quantified(_ q: Quantifier, _ values: Values, _ test: (FieldValue) -> Bool) -> Bool {
    guard case .many(let items) = values else {
      if case .one(let value) = values { return test(value) }
      return false
    }
    var hits = 0
    for item in items where test(item) { hits += 1 }
    switch q {
    case .all: return hits == items.count
    case .none: return hits == 0
    default: return hits > 0
    }
  }

  private static func values(_ e: QueryExpression, _ record: [FieldValue]) -> Values {
    switch e {
    case .field(let field) where field.type.isList:
      return .many(elements(record[field.position]) ?? [])
    case .value(.list(let items)):
      return .many(items.map(constant))
    default:
      return .one(scalar(e, record))
    }
  }

  private static func scalar(_ e: QueryExpression, _ record: [FieldValue]) -> FieldValue {
    switch e {
    case .field(let field): return record[field.position]
    case .value(let value): return constant(value)
    case .count(let field):
      let stored = record[field.position]
      if let items = elements(stored) { return .integer(Int64(items.count)) }
      if case .string(let text) = stored { return .integer(Int64(Array(text.utf8).count)) }
      return field.type.isList ? .integer(0) : .null
    case .element(let field, let index):
      let items = elements(record[field.position]) ?? []
      switch index {
      case .first: return items.isEmpty ? .null : items[0]
      case .last: return items.isEmpty ? .null : items[items.count - 1]
      case .position(let n): return n >= 0 && n < Int64(items.count) ? items[Int(n)] : .null
      }
    case .arithmetic(let op, let a, let b):
      let x = scalar(a, record)
      let y = scalar(b, record)
      if case .integer(let i) = x, case .integer(let j) = y, op != .divide {
        // Exact when the result fits: checked with wider arithmetic.
        let wide: Decimal =
          op == .add
          ? Decimal(i) + Decimal(j) : op == .subtract ? Decimal(i) - Decimal(j) : Decimal(i) * Decimal(j)
        if wide >= Decimal(Int64.min) && wide <= Decimal(Int64.max) {
          return .integer(op == .add ? i &+ j : op == .subtract ? i &- j : i &* j)
        }
      }
      guard let p = asDouble(x), let q = asDouble(y) else { return .null }
      switch op {
      case .add: return .double(p + q)
      case .subtract: return .double(p - q)
      case .multiply: return .double(p * q)
      case .divide: return q == 0 ? .null : .double(p / q)
      }
    }
  }

  private static func asDouble(_ value: FieldValue) -> Double? {
    if case .integer(let n) = value { return Double(n) }
    if case .double(let d) = value { return d }
    return nil
  }

  // MARK: One value against another

  /// `x OP y`, with the documented rules for nil.
  static func holds(_ x: FieldValue, _ op: ComparisonOperator, _ options: StringOptions, _ y: FieldValue)
    -> Bool
  {
    switch op {
    case .equal, .in: return equal(x, y, options)
    case .notEqual: return !equal(x, y, options)
    case .less, .lessOrEqual, .greater, .greaterOrEqual:
      if x.isNull && y.isNull { return op == .lessOrEqual || op == .greaterOrEqual }
      if x.isNull || y.isNull { return false }
      guard let order = compare(x, y, options: options) else { return false }
      switch op {
      case .less: return order < 0
      case .lessOrEqual: return order <= 0
      case .greater: return order > 0
      default: return order >= 0
      }
    case .contains, .beginsWith, .endsWith:
      if y.isNull { return true }
      guard case .string(let text) = x, case .string(let pattern) = y else { return false }
      let t = fold(text, options)
      let p = fold(pattern, options)
      switch op {
      case .beginsWith: return t.count >= p.count && t[0..<p.count].elementsEqual(p)
      case .endsWith: return t.count >= p.count && t[(t.count - p.count)...].elementsEqual(p)
      default:
        if p.isEmpty { return true }
        guard t.count >= p.count else { return false }
        for start in 0...(t.count - p.count) where t[start..<(start + p.count)].elementsEqual(p) {
          return true
        }
        return false
      }
    case .like:
      if x.isNull || y.isNull { return x.isNull && y.isNull }
      guard case .string(let text) = x, case .string(let pattern) = y else { return false }
      return like(
        Array(String(decoding: fold(text, options), as: UTF8.self).unicodeScalars),
        Array(String(decoding: fold(pattern, options), as: UTF8.self).unicodeScalars))
    case .between:
      return false
    }
  }

  private static func equal(_ x: FieldValue, _ y: FieldValue, _ options: StringOptions) -> Bool {
    if x.isNull || y.isNull { return x.isNull && y.isNull }
    if case .string(let a) = x, case .string(let b) = y {
      if options.isEmpty { return Array(a.unicodeScalars) == Array(b.unicodeScalars) }
      return fold(a, options) == fold(b, options)
    }
    return compare(x, y, options: options) == 0
  }

  /// The sign of `x - y` for values of one kind; nil when they cannot be ordered.
  static func compare(_ x: FieldValue, _ y: FieldValue, options: StringOptions) -> Int? {
    func sign<T: Comparable>(_ a: T, _ b: T) -> Int { a == b ? 0 : (a < b ? -1 : 1) }
    switch (x, y) {
    case (.integer(let a), .integer(let b)): return sign(a, b)
    case (.double(let a), .double(let b)): return a.isNaN || b.isNaN ? nil : sign(a, b)
    case (.integer(let a), .double(let b)): return mixed(a, b)
    case (.double(let a), .integer(let b)): return mixed(b, a).map { -$0 }
    case (.date(let a), .date(let b)):
      return a.secondsSince1970 != b.secondsSince1970
        ? sign(a.secondsSince1970, b.secondsSince1970) : sign(a.nanoseconds, b.nanoseconds)
    case (.bool(let a), .bool(let b)): return sign(a ? 1 : 0, b ? 1 : 0)
    case (.string(let a), .string(let b)) where options.isEmpty:
      // UTF-8 order is the order of Unicode scalar values.
      if a.utf8.elementsEqual(b.utf8) { return 0 }
      return a.utf8.lexicographicallyPrecedes(b.utf8) ? -1 : 1
    case (.string(let a), .string(let b)):
      let p = fold(a, options)
      let q = fold(b, options)
      if p == q { return 0 }
      return p.lexicographicallyPrecedes(q) ? -1 : 1
    default: return nil
    }
  }

  /// An integer against a double, exactly.
  private static func mixed(_ a: Int64, _ b: Double) -> Int? {
    if b.isNaN { return nil }
    if b >= 0x1p63 { return -1 }
    if b < -0x1p63 { return 1 }
    let whole = b.rounded(.towardZero)
    let integer = Int64(whole)
    if a != integer { return a < integer ? -1 : 1 }
    let fraction = b - whole
    return fraction == 0 ? 0 : (fraction > 0 ? -1 : 1)
  }

  // MARK: Text

  /// The documented folding, scalar by scalar: `[d]` keeps the canonical decomposition without
  /// its nonspacing marks, then `[c]` maps to lower case of upper case.
  ///
  /// Remembered per text and options: the differential tests fold the same tens of thousands of
  /// record texts for every one of thousands of queries, and folding was four fifths of their time.
  static func fold(_ text: String, _ options: StringOptions) -> [UInt8] {
    if options.isEmpty { return Array(text.utf8) }
    let key = FoldKey(bytes: Array(text.utf8), options: options.rawValue)
    if let known = folded.withLock({ $0[key] }) { return known }
    let bytes = foldScalars(text, options)
    folded.withLock { $0[key] = bytes }
    return bytes
  }

  /// By bytes, not by `String`: strings compare equal when canonically equivalent ("é" and
  /// "e" + U+0301), and those fold apart without `[d]`.
  private struct FoldKey: Hashable {
    let bytes: [UInt8]
    let options: UInt8
  }

  private static let folded = Mutex<[FoldKey: [UInt8]]>([:])

  private static func foldScalars(_ text: String, _ options: StringOptions) -> [UInt8] {
    var out = String.UnicodeScalarView()
    for scalar in text.unicodeScalars {
      var pieces: [Unicode.Scalar] = [scalar]
      if options.contains(.diacriticInsensitive) {
        pieces = String(scalar).decomposedStringWithCanonicalMapping.unicodeScalars.filter {
          $0.properties.generalCategory != .nonspacingMark
        }
      }
      if options.contains(.caseInsensitive) {
        var cased: [Unicode.Scalar] = []
        for piece in pieces {
          for upper in piece.properties.uppercaseMapping.unicodeScalars {
            cased.append(contentsOf: upper.properties.lowercaseMapping.unicodeScalars)
          }
        }
        pieces = cased
      }
      out.append(contentsOf: pieces)
    }
    return Array(String(out).utf8)
  }

  /// `*` any run of scalars, `?` one scalar; by dynamic programming over both.
  private static func like(_ text: [Unicode.Scalar], _ pattern: [Unicode.Scalar]) -> Bool {
    var row = [Bool](repeating: false, count: text.count + 1)
    row[0] = true
    for p in pattern {
      var next = [Bool](repeating: false, count: text.count + 1)
      if p == "*" {
        var any = false
        for i in 0...text.count {
          any = any || row[i]
          next[i] = any
        }
      } else {
        for i in 0..<text.count where row[i] && (p == "?" || text[i] == p) { next[i + 1] = true }
      }
      row = next
    }
    return row[text.count]
  }
}
