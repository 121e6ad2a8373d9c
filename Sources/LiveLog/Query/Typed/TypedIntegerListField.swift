/// A list-of-integers field. Comparisons apply to its elements, quantified.
///
/// ```swift
/// $0.scores.contains(7)             // ANY scores == 7
/// $0.scores.any { $0 > 90 }         // ANY scores > 90
/// $0.scores.all { $0 >= 0 }         // ALL scores >= 0
/// ```
public struct TypedIntegerListField: TypedField {
  /// The schema field.
  public let field: Field

  init(_ field: Field) { self.field = field }

  /// `ANY field == element`, also written `7 IN scores`.
  public func contains(_ element: Int) -> QueryCondition {
    quantified(.any, TypedIntegerElement() == element)
  }

  /// `ANY`: at least one element meets the condition.
  public func any(_ element: (TypedIntegerElement) -> ListElementCondition) -> QueryCondition {
    quantified(.any, element(TypedIntegerElement()))
  }

  /// `ALL`: every element meets the condition (true for an empty list).
  public func all(_ element: (TypedIntegerElement) -> ListElementCondition) -> QueryCondition {
    quantified(.all, element(TypedIntegerElement()))
  }

  /// `NONE`: no element meets the condition.
  public func none(_ element: (TypedIntegerElement) -> ListElementCondition) -> QueryCondition {
    quantified(.none, element(TypedIntegerElement()))
  }

  /// `field == nil`: the record has no list at all.
  public static func == (lhs: TypedIntegerListField, rhs: _OptionalNilComparisonType) -> QueryCondition {
    lhs.condition(.equal, .null)
  }

  /// `field != nil`: the record has a list, possibly empty.
  public static func != (lhs: TypedIntegerListField, rhs: _OptionalNilComparisonType) -> QueryCondition {
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

/// One element of an integer list, inside `any`, `all` or `none`.
public struct TypedIntegerElement: Sendable {
  private func condition(_ op: ComparisonOperator, _ value: QueryValue) -> ListElementCondition {
    ListElementCondition(comparisonOperator: op, options: [], value: value)
  }

  public static func == (lhs: TypedIntegerElement, rhs: Int) -> ListElementCondition {
    lhs.condition(.equal, rhs.queryValue)
  }
  public static func != (lhs: TypedIntegerElement, rhs: Int) -> ListElementCondition {
    lhs.condition(.notEqual, rhs.queryValue)
  }
  public static func < (lhs: TypedIntegerElement, rhs: Int) -> ListElementCondition {
    lhs.condition(.less, rhs.queryValue)
  }
  public static func <= (lhs: TypedIntegerElement, rhs: Int) -> ListElementCondition {
    lhs.condition(.lessOrEqual, rhs.queryValue)
  }
  public static func > (lhs: TypedIntegerElement, rhs: Int) -> ListElementCondition {
    lhs.condition(.greater, rhs.queryValue)
  }
  public static func >= (lhs: TypedIntegerElement, rhs: Int) -> ListElementCondition {
    lhs.condition(.greaterOrEqual, rhs.queryValue)
  }
  /// `BETWEEN {low, high}`.
  public func between(_ low: Int, _ high: Int) -> ListElementCondition {
    condition(.between, .list([low.queryValue, high.queryValue]))
  }
  /// `IN {…}`.
  public func `in`(_ values: [Int]) -> ListElementCondition { condition(.in, values.queryValue) }
}
