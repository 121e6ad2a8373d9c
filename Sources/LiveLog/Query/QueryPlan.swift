/// How a query finds its candidate rows: a tree of index lookups, combined with AND and OR, and
/// scans where no index helps.
indirect enum PlanNode {
  /// Every row: no index serves this part (`NOT`, `!=`, a short `CONTAINS`, an unindexed field).
  case scan(reason: String)
  /// No row can match (`FALSEPREDICATE`, an empty range).
  case nothing(reason: String)
  /// Every row, and every row matches (`TRUEPREDICATE`).
  case everything
  case lookup(IndexLookup)
  /// Every row but those matching `predicate`, whose rows the inner plan finds (checked per row
  /// when they are only candidates).
  case not(PlanNode, predicate: Predicate)
  case and([PlanNode])
  case or([PlanNode])
}

/// One use of one index.
struct IndexLookup {
  enum Access {
    /// Rows whose folded text holds every trigram, anywhere (a superset of the matches).
    case trigrams(field: Field, codes: [UInt32])
    /// Rows whose `[cd]`-folded text holds `pattern` (`[cd]`-folded, 3 bytes or more) — at its
    /// start when `anchored` — found by trigram positions; `check` says which of them must still
    /// be checked against the record.
    case substring(field: Field, pattern: [UInt8], anchored: Bool, check: SubstringCheck)
    /// The union of exact equality posting lists.
    case terms(field: Field, prefixes: [[UInt8]], values: [String])
    /// Every exact value filed under one folded group (`match` `.equal`), or under every group
    /// whose fold begins with `folded` (`.prefix`), that equals (begins with) `value` under
    /// `options`: decided from the values in the index's keys, so exact.
    case termGroup(field: Field, folded: [UInt8], value: String, options: StringOptions, match: TermMatch)
    /// Rows whose value lies in an inclusive range of ordered keys (nil values: both bounds
    /// `OrderedKey.null`); `range` is how the query wrote it, for `explain`.
    case ordered(field: Field, lower: OrderedKey, upper: OrderedKey, range: RangeText)
    /// Rows whose value of `left` stands in `relation` to their value of `right`, two fields of
    /// one type whose ordered keys compare as their values do (`OrderedColumns.compare(_:_:)`),
    /// read by row from the ordered columns.
    case columns(left: Field, relation: ComparisonOperator, right: Field)
  }

  var access: Access
  /// Whether the rows found match this part of the predicate exactly (no verification needed).
  var isExact: Bool

  /// Whether every row the lookup finds is checked against its record, however many it finds.
  var checksEveryRow: Bool {
    switch access {
    case .trigrams: true
    case .substring(_, _, _, let check): check == .all
    case .terms, .termGroup, .ordered, .columns: false
    }
  }
}

/// How a query wrote an ordered range, kept as it came and written out only when `explain` asks:
/// in a profile, writing the text while planning took a twentieth of a small range query's time
/// (a star range's top 20 at 100k records).
enum RangeText {
  /// `nil`: the rows without a value.
  case null
  case comparison(ComparisonOperator, QueryValue)
  /// The ranges an `AND` intersected, in the order written; `isCut` when more followed than
  /// `shownTerms`, which were left out.
  case intersection([RangeText], isCut: Bool)

  /// The most terms an intersection keeps: each after the first adds at least 8 characters
  /// (` AND ` and a term), so the text passes 120 well before they run out; a chain of thousands
  /// of terms is planned in linear time.
  static let shownTerms = 24

  /// The range as `explain` shows it: `BETWEEN {1000, 2000}`, `> 5 AND <= 9`; past about 120
  /// characters, the terms that follow are an ellipsis.
  var text: String {
    switch self {
    case .null: return "nil"
    case .comparison(let op, let value):
      return op == .between ? "BETWEEN \(value.queryText)" : "\(op.rawValue) \(value.queryText)"
    case .intersection(let parts, let isCut):
      var text = ""
      for part in parts {
        if text.isEmpty {
          text = part.text
        } else if text.count < 120 {
          text += " AND " + part.text
        } else {
          return text.hasSuffix(" …") ? text : text + " …"
        }
      }
      return isCut && !text.hasSuffix(" …") ? text + " …" : text
    }
  }

  /// This range's terms, then `other` as one term (an `AND` built by hand may nest one
  /// intersection in another: the inner one is written whole, as its own text).
  func and(_ other: RangeText) -> RangeText {
    guard case .intersection(let parts, let isCut) = self else {
      return .intersection([self, other], isCut: false)
    }
    guard !isCut, parts.count < Self.shownTerms else { return .intersection(parts, isCut: true) }
    return .intersection(parts + [other], isCut: false)
  }
}

/// Which rows a positional substring match leaves to the per-row check.
enum SubstringCheck {
  /// None: the options are `[cd]`, which the index folds by.
  case none
  /// Rows whose text a `[d]` fold changes: `[c]` with a pattern no `[d]` fold changes, which
  /// agrees with the index's `[cd]` fold on every other row.
  case unplainRows
  /// Every row: the options keep case or diacritics the index folded away.
  case all
}

/// Turns a predicate into a plan: which index serves which comparison.
enum QueryPlanner {
  static func plan(_ predicate: Predicate) -> PlanNode {
    switch predicate {
    case .constant(let value): return value ? .everything : .nothing(reason: "FALSEPREDICATE")
    case .not(let inner):
      switch plan(inner) {
      case .scan: return .scan(reason: "NOT of a part no index serves is answered by checking every row")
      case .everything: return .nothing(reason: "NOT TRUEPREDICATE")
      case .nothing: return .everything
      case let served: return .not(served, predicate: inner)
      }
    case .and(let parts):
      let plans = mergingRanges(parts.map(plan))
      if plans.contains(where: { if case .nothing = $0 { true } else { false } }) {
        return .nothing(reason: "one side of AND matches nothing")
      }
      return plans.count == 1 ? plans[0] : .and(plans)
    case .or(let parts):
      let plans = parts.map(plan)
      if let scan = plans.first(where: { if case .scan = $0 { true } else { false } }) { return scan }
      if plans.contains(where: { if case .everything = $0 { true } else { false } }) { return .everything }
      return .or(plans)
    case .comparison(let comparison): return plan(comparison)
    case .relation(let relation):
      guard let (left, op, right) = relation.fieldComparison, OrderedColumns.compare(left, right) else {
        return .scan(reason: relation.scanReason)
      }
      return .lookup(IndexLookup(access: .columns(left: left, relation: op, right: right), isExact: true))
    }
  }

  /// The parts of an AND with every exact range of one ordered field intersected into one range:
  /// `id > 1 AND id > 2 AND …` reads the index once, however many terms it has.
  private static func mergingRanges(_ plans: [PlanNode]) -> [PlanNode] {
    var merged: [PlanNode] = []
    var slotOfField: [Int: Int] = [:]
    for node in plans {
      guard case .lookup(let lookup) = node, lookup.isExact,
        case .ordered(let field, let lower, let upper, let range) = lookup.access
      else {
        merged.append(node)
        continue
      }
      guard let slot = slotOfField[field.position],
        case .lookup(let earlier) = merged[slot],
        case .ordered(_, let earlierLower, let earlierUpper, let earlierRange) = earlier.access
      else {
        slotOfField[field.position] = merged.count
        merged.append(node)
        continue
      }
      let bounds = OrderedBounds(lower: max(lower, earlierLower), upper: min(upper, earlierUpper))
      guard !bounds.isEmpty else { return [.nothing(reason: "empty range of \(field.name)")] }
      merged[slot] = .lookup(
        IndexLookup(
          access: .ordered(
            field: field, lower: bounds.lower, upper: bounds.upper, range: earlierRange.and(range)),
          isExact: true))
    }
    return merged
  }

  static func plan(_ c: Comparison) -> PlanNode {
    let field = c.field
    let elementwise = c.quantifier == .single || c.quantifier == .any
    guard elementwise else {
      return .scan(reason: "\(c.quantifier.rawValue.uppercased()) is answered by checking every row")
    }
    if case .null = c.value, c.operator != .equal, c.operator != .notEqual, c.operator != .in {
      // Realm's rules for nil: `<` and `>` match nothing, `<=`, `>=` and `LIKE` test for absence,
      // the other string operators match every row.
      switch c.operator {
      case .less, .greater: return .nothing(reason: "\(c.operator.rawValue) nil matches nothing")
      case .contains, .beginsWith, .endsWith: return .everything
      default: return plan(Comparison(field: field, operator: .equal, value: .null))
      }
    }
    switch c.operator {
    case .equal, .in:
      let values: [QueryValue] =
        if case .list(let items) = c.value, c.operator == .in { items } else { [c.value] }
      if field.indexes.contains(.equality) {
        return union(values.map { equalityLookup(field, $0, c.options, listField: c.quantifier == .any) })
      }
      if field.indexes.contains(.ordered) && c.options.isEmpty {
        return union(values.map { orderedPoint(field, $0) })
      }
      if field.indexes.contains(.substring) && c.operator == .equal, case .string(let text) = c.value {
        return trigramLookup(field, [TextFolding.fold(text, TextFolding.all)])
      }
      return .scan(reason: "\(field.name) has no index for ==")
    case .less, .lessOrEqual, .greater, .greaterOrEqual, .between:
      guard field.indexes.contains(.ordered) else {
        return .scan(reason: "\(field.name) has no ordered index")
      }
      return orderedRange(field, c.operator, c.value)
    case .contains, .beginsWith, .endsWith, .like:
      if let prefix = prefixLookup(c) { return prefix }
      guard field.indexes.contains(.substring), case .string(let pattern) = c.value else {
        return .scan(reason: "\(field.name) has no substring index")
      }
      let folded = TextFolding.fold(pattern, TextFolding.all)
      if folded.count >= 3 && (c.operator == .contains || c.operator == .beginsWith) && !field.type.isList {
        let check: SubstringCheck =
          c.options == TextFolding.all
          ? .none
          : c.options == .caseInsensitive && TextFolding.fold(pattern, .caseInsensitive) == folded
            ? .unplainRows : .all
        return .lookup(
          IndexLookup(
            access: .substring(
              field: field, pattern: folded, anchored: c.operator == .beginsWith, check: check),
            isExact: check == .none))
      }
      let runs: [[UInt8]] =
        c.operator == .like
        ? folded.split(whereSeparator: { $0 == UInt8(ascii: "*") || $0 == UInt8(ascii: "?") }).map(Array.init)
        : [folded]
      return trigramLookup(field, runs)
    case .notEqual:
      return .scan(reason: "!= is answered by checking every row")
    }
  }

  /// A `BEGINSWITH` of a string field with an equality index, read from it: the exact values
  /// whose fold begins with the prefix's fold are one range of its keys, each checked from the
  /// key itself, so the rows found are the matches, whatever the options and however short the
  /// prefix (the substring index needs three bytes and position checks).
  private static func prefixLookup(_ c: Comparison) -> PlanNode? {
    guard c.operator == .beginsWith, c.field.indexes.contains(.equality), c.field.type.elementType == .string,
      case .string(let prefix) = c.value
    else { return nil }
    let folded = TextFolding.fold(prefix, TextFolding.all)
    // An empty prefix begins every value: the other plans say so.
    guard !folded.isEmpty else { return nil }
    return .lookup(
      IndexLookup(
        access: .termGroup(field: c.field, folded: folded, value: prefix, options: c.options, match: .prefix),
        isExact: true))
  }

  private static func union(_ nodes: [PlanNode]) -> PlanNode {
    if let scan = nodes.first(where: { if case .scan = $0 { true } else { false } }) { return scan }
    let live = nodes.filter { if case .nothing = $0 { false } else { true } }
    if live.isEmpty { return .nothing(reason: "no value can match") }
    return live.count == 1 ? live[0] : .or(live)
  }

  private static func equalityLookup(
    _ field: Field, _ value: QueryValue, _ options: StringOptions, listField: Bool
  )
    -> PlanNode
  {
    switch value {
    case .null:
      // A list's elements are never nil; `ANY topics == nil` matches nothing.
      if listField { return .nothing(reason: "list elements are never nil") }
      return .lookup(
        IndexLookup(
          access: .terms(
            field: field, prefixes: [IndexKeys.nullTermPrefix(field: field.position)], values: ["nil"]),
          isExact: true))
    case .bool(let flag):
      let text = flag ? "true" : "false"
      return .lookup(
        IndexLookup(
          access: .terms(
            field: field, prefixes: [IndexKeys.termPrefix(field: field.position, value: text)], values: [text]
          ),
          isExact: true))
    case .string(let text):
      if options.isEmpty {
        return .lookup(
          IndexLookup(
            access: .terms(
              field: field, prefixes: [IndexKeys.termPrefix(field: field.position, value: text)],
              values: [text]),
            isExact: true))
      }
      return .lookup(
        IndexLookup(
          access: .termGroup(
            field: field, folded: TextFolding.fold(text, TextFolding.all), value: text, options: options,
            match: .equal),
          isExact: true))
    case .integer(let number) where field.type.elementType == .integer:
      return term(String(number))
    case .double(let number) where field.type.elementType == .integer:
      // A whole number written as a decimal; a fraction equals no integer.
      guard number.rounded() == number, let whole = Int64(exactly: number) else {
        return .nothing(reason: "\(field.name) holds whole numbers, never \(number)")
      }
      return term(String(whole))
    case .date(let date) where field.type == .date:
      return term(date.iso8601)
    default:
      return .nothing(reason: "\(field.name) never equals \(value)")
    }

    /// The equality index's exact term for a value filed as text.
    func term(_ text: String) -> PlanNode {
      .lookup(
        IndexLookup(
          access: .terms(
            field: field, prefixes: [IndexKeys.termPrefix(field: field.position, value: text)], values: [text]
          ),
          isExact: true))
    }
  }

  private static func orderedPoint(_ field: Field, _ value: QueryValue) -> PlanNode {
    if case .null = value {
      return .lookup(
        IndexLookup(
          access: .ordered(field: field, lower: .null, upper: .null, range: .null), isExact: true))
    }
    return orderedRange(field, .equal, value)
  }

  /// The inclusive range of ordered keys a comparison admits.
  private static func orderedRange(_ field: Field, _ op: ComparisonOperator, _ value: QueryValue) -> PlanNode
  {
    let bounds: OrderedBounds?
    if op == .between {
      guard case .list(let items) = value, items.count == 2 else { return .nothing(reason: "empty range") }
      guard let low = OrderedBounds(field, .greaterOrEqual, items[0]),
        let high = OrderedBounds(field, .lessOrEqual, items[1])
      else { return .scan(reason: "the bounds of \(field.name) have no exact place in its ordered index") }
      bounds = low.intersection(high)
    } else {
      guard let found = OrderedBounds(field, op, value) else {
        return .scan(reason: "\(value.queryText) has no exact place in the ordered index of \(field.name)")
      }
      bounds = found
    }
    guard let bounds, !bounds.isEmpty else {
      return .nothing(reason: "empty range of \(field.name)")
    }
    return .lookup(
      IndexLookup(
        access: .ordered(
          field: field, lower: bounds.lower, upper: bounds.upper, range: .comparison(op, value)),
        isExact: true))
  }

  /// Rows holding every trigram of every literal run: a superset of the matches.
  private static func trigramLookup(_ field: Field, _ runs: [[UInt8]]) -> PlanNode {
    var codes: [UInt32] = []
    for run in runs { IndexKeys.trigrams(of: run, field: field.position, into: &codes) }
    codes = Array(Set(codes)).sorted()
    guard !codes.isEmpty else {
      return .scan(reason: "patterns shorter than 3 bytes have no trigrams")
    }
    return .lookup(IndexLookup(access: .trigrams(field: field, codes: codes), isExact: false))
  }
}
