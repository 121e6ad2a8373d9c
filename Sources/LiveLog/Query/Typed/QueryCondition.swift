/// A condition built in Swift with typed fields: the typed form's counterpart of query text.
///
/// ```swift
/// Query.where { $0.fullName.contains(term, options: .caseInsensitive) && $0.language == "Swift" }
/// ```
/// `&&`, `||` and `!` combine conditions with the precedence of the text form's AND, OR and NOT,
/// and chains flatten the way the parser flattens them, so both forms build equal predicates.
public struct QueryCondition: Hashable, Sendable {
  /// The predicate the condition stands for.
  public let predicate: Predicate

  /// A condition from a predicate built by hand (or parsed).
  public init(_ predicate: Predicate) {
    self.predicate = predicate
  }

  /// Both conditions: `a AND b`.
  public static func && (lhs: QueryCondition, rhs: QueryCondition) -> QueryCondition {
    QueryCondition(Predicate.conjunction([lhs.predicate, rhs.predicate]))
  }

  /// Either condition: `a OR b`.
  public static func || (lhs: QueryCondition, rhs: QueryCondition) -> QueryCondition {
    QueryCondition(Predicate.disjunction([lhs.predicate, rhs.predicate]))
  }

  /// The opposite condition: `NOT a`.
  public static prefix func ! (condition: QueryCondition) -> QueryCondition {
    QueryCondition(.not(condition.predicate))
  }
}

/// A handle on one field of a record type, from `RecordFields`.
public protocol TypedField: Sendable {
  /// The schema field the handle compares.
  var field: Field { get }
}

/// A field with one value per record: one a query can sort by (every field but lists).
public protocol SortableField: TypedField {}

extension TypedField {
  /// `field OPERATOR value`, unquantified.
  func condition(
    _ comparisonOperator: ComparisonOperator, _ value: QueryValue, options: StringOptions = []
  ) -> QueryCondition {
    QueryCondition(
      .comparison(Comparison(field: field, operator: comparisonOperator, options: options, value: value)))
  }
}
