/// A list-of-strings field: `topics`. Comparisons apply to its elements, quantified.
///
/// ```swift
/// $0.topics.contains("swift")                 // ANY topics == 'swift'
/// $0.topics.any { $0.hasPrefix("sw") }        // ANY topics BEGINSWITH 'sw'
/// $0.topics.all { $0 != "deprecated" }        // ALL topics != 'deprecated'
/// $0.topics == nil                            // the list is absent
/// ```
public struct TypedStringListField: TypedField {
  /// The schema field.
  public let field: Field

  init(_ field: Field) { self.field = field }

  /// `ANY topics ==[options] element`, also written `'swift' IN topics`.
  public func contains(_ element: String, options: StringOptions = []) -> QueryCondition {
    quantified(.any, TypedListElement().equals(element, options: options))
  }

  /// `ANY`: at least one element meets the condition.
  public func any(_ element: (TypedListElement) -> ListElementCondition) -> QueryCondition {
    quantified(.any, element(TypedListElement()))
  }

  /// `ALL`: every element meets the condition (true for an empty list).
  public func all(_ element: (TypedListElement) -> ListElementCondition) -> QueryCondition {
    quantified(.all, element(TypedListElement()))
  }

  /// `NONE`: no element meets the condition.
  public func none(_ element: (TypedListElement) -> ListElementCondition) -> QueryCondition {
    quantified(.none, element(TypedListElement()))
  }

  /// `topics == nil`: the record has no list at all.
  public static func == (lhs: TypedStringListField, rhs: _OptionalNilComparisonType) -> QueryCondition {
    lhs.condition(.equal, .null)
  }

  /// `topics != nil`: the record has a list, possibly empty.
  public static func != (lhs: TypedStringListField, rhs: _OptionalNilComparisonType) -> QueryCondition {
    lhs.condition(.notEqual, .null)
  }

  private func quantified(_ quantifier: Quantifier, _ element: ListElementCondition) -> QueryCondition {
    QueryCondition(
      .comparison(
        Comparison(
          field: field, quantifier: quantifier, operator: element.comparisonOperator,
          options: element.options,
          value: element.value)))
  }
}

/// One element of a list field, inside `any`, `all` or `none`.
public struct TypedListElement: StringComparisons, Sendable {
  /// A comparison of the element; see `StringComparisons`.
  public func comparing(_ comparisonOperator: ComparisonOperator, _ value: QueryValue, options: StringOptions)
    -> ListElementCondition
  {
    ListElementCondition(comparisonOperator: comparisonOperator, options: options, value: value)
  }

  /// `==`. Elements are never `nil`; test the list with `topics == nil`.
  public static func == (lhs: TypedListElement, rhs: String) -> ListElementCondition {
    lhs.comparing(.equal, .string(rhs), options: [])
  }

  /// `!=`.
  public static func != (lhs: TypedListElement, rhs: String) -> ListElementCondition {
    lhs.comparing(.notEqual, .string(rhs), options: [])
  }

  /// `IN {…}`.
  public func `in`(_ values: [String], options: StringOptions = []) -> ListElementCondition {
    comparing(.in, values.queryValue, options: options)
  }
}

/// A comparison of a list's element, waiting for its quantifier (`any`, `all`, `none`).
public struct ListElementCondition: Hashable, Sendable {
  let comparisonOperator: ComparisonOperator
  let options: StringOptions
  let value: QueryValue
}
