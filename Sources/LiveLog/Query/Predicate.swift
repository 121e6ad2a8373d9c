/// A condition on a record: the parsed form of a query's `WHERE` part.
///
/// Both ways of writing a query build this value: the NSPredicate-style text
/// (`Query(parsing:)`, `Results.filter(_:_:)`) and the typed Swift form (`Results.where`).
public indirect enum Predicate: Hashable, Sendable {
  /// `TRUEPREDICATE` / `FALSEPREDICATE`.
  case constant(Bool)
  /// One comparison of a field with a value: the form the indexes serve.
  case comparison(Comparison)
  /// Any other comparison of two expressions: a field with a field, arithmetic, `@count`,
  /// subscripts, list literals with `ALL`/`NONE`. Checked per row.
  case relation(Relation)
  /// `NOT p`, `!p`.
  case not(Predicate)
  /// `p AND q AND …`, `&&`.
  case and([Predicate])
  /// `p OR q OR …`, `||`.
  case or([Predicate])
}

/// `field OPERATOR[options] value`, possibly quantified over a list field (`ANY topics == 'x'`).
public struct Comparison: Hashable, Sendable {
  public var field: Field
  /// How a list field's elements are combined; `.single` for scalar fields.
  public var quantifier: Quantifier
  public var `operator`: ComparisonOperator
  public var options: StringOptions
  /// The right-hand side: a single value, a list (`IN`), or two bounds (`BETWEEN`).
  public var value: QueryValue

  public init(
    field: Field, quantifier: Quantifier = .single, operator: ComparisonOperator,
    options: StringOptions = [], value: QueryValue
  ) {
    self.field = field
    self.quantifier = quantifier
    self.operator = `operator`
    self.options = options
    self.value = value
  }
}

/// How a comparison on a list field (`topics`) combines its elements.
public enum Quantifier: String, Hashable, Sendable {
  /// A scalar field.
  case single
  /// `ANY` / `SOME`: at least one element matches. The default for list fields.
  case any
  /// `ALL`: every element matches (true for an empty list).
  case all
  /// `NONE`: no element matches.
  case none
}

/// The operators of the query language.
public enum ComparisonOperator: String, Hashable, Sendable, CaseIterable {
  case equal = "=="
  case notEqual = "!="
  case less = "<"
  case lessOrEqual = "<="
  case greater = ">"
  case greaterOrEqual = ">="
  /// `BETWEEN {low, high}`: both bounds included.
  case between = "BETWEEN"
  /// `IN {a, b, …}`.
  case `in` = "IN"
  case contains = "CONTAINS"
  case beginsWith = "BEGINSWITH"
  case endsWith = "ENDSWITH"
  /// `LIKE` with `*` (any run of characters) and `?` (one character).
  case like = "LIKE"

  /// Whether the operator applies to strings only.
  public var isStringOperator: Bool {
    switch self {
    case .contains, .beginsWith, .endsWith, .like: true
    default: false
    }
  }

  /// `a OP b` for `==`, `!=`, `<`, `<=`, `>`, `>=` on two values that are not nil; false for the
  /// other operators.
  func orders<T: Comparable>(_ a: T, _ b: T) -> Bool {
    switch self {
    case .equal: a == b
    case .notEqual: a != b
    case .less: a < b
    case .lessOrEqual: a <= b
    case .greater: a > b
    case .greaterOrEqual: a >= b
    default: false
    }
  }
}

/// The `[c]`, `[d]` and `[cd]` modifiers of string comparisons.
public struct StringOptions: OptionSet, Hashable, Sendable {
  public let rawValue: UInt8
  public init(rawValue: UInt8) { self.rawValue = rawValue }

  /// `[c]`: letters compare without regard to case, by Unicode's case mappings.
  public static let caseInsensitive = StringOptions(rawValue: 1)
  /// `[d]`: letters compare without their diacritics (`é` matches `e`).
  public static let diacriticInsensitive = StringOptions(rawValue: 2)
}

/// A value on the right-hand side of a comparison.
public enum QueryValue: Hashable, Sendable {
  case null
  case bool(Bool)
  case integer(Int64)
  case double(Double)
  case string(String)
  case date(Timestamp)
  /// The braces of `IN {…}` and `BETWEEN {low, high}`.
  case list([QueryValue])
}

/// A field and a direction to sort by.
public struct SortDescriptor: Hashable, Sendable {
  public var field: Field
  public var ascending: Bool

  public init(field: Field, ascending: Bool = true) {
    self.field = field
    self.ascending = ascending
  }
}

/// A whole query: a predicate, then its `SORT`, `DISTINCT` and `LIMIT` clauses applied in the
/// order written, as Realm applies them (`LIMIT(5) SORT(stars DESC)` sorts the first five).
///
/// Results start in insertion order (the order in which each id was first inserted). A sort is
/// stable: ties keep the order the rows had before it, so the first sort breaks its ties by
/// insertion order.
public struct Query: Hashable, Sendable {
  public var predicate: Predicate
  /// The clauses in order. Consecutive sorts merge (`SORT(a) SORT(b)` is `SORT(b, a)`: the later
  /// sort decides, the earlier one breaks its ties) and consecutive limits keep the smaller, so
  /// that equivalent clause lists compare equal.
  public var clauses: [QueryClause] {
    didSet { clauses = QueryClause.normalized(clauses) }
  }

  public init(predicate: Predicate = .constant(true), clauses: [QueryClause]) {
    self.init(predicate: predicate, normalizedClauses: QueryClause.normalized(clauses))
  }

  /// A query of clauses already normalized (`QueryClause.normalized`), as a query's own are.
  init(predicate: Predicate, normalizedClauses clauses: [QueryClause]) {
    self.predicate = predicate
    self.clauses = clauses
  }

  /// A query sorted by `sort`, then limited to `limit` rows.
  public init(predicate: Predicate = .constant(true), sort: [SortDescriptor] = [], limit: Int? = nil) {
    var clauses: [QueryClause] = []
    if !sort.isEmpty { clauses.append(.sort(sort)) }
    if let limit { clauses.append(.limit(limit)) }
    self.init(predicate: predicate, clauses: clauses)
  }
}
