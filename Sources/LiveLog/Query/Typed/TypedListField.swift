/// A list field: `topics` (strings) or `scores` (integers). Comparisons apply to its elements,
/// quantified.
///
/// ```swift
/// $0.topics.contains("swift")                 // ANY topics == 'swift'
/// $0.topics.any { $0.hasPrefix("sw") }        // ANY topics BEGINSWITH 'sw'
/// $0.topics.all { $0 != "deprecated" }        // ALL topics != 'deprecated'
/// $0.scores.any { $0 > 90 }                   // ANY scores > 90
/// $0.topics == nil                            // the list is absent
/// ```
public struct TypedListField<Element: TypedListElementKind>: TypedField {
  /// The schema field.
  public let field: Field

  init(_ field: Field) { self.field = field }

  /// `ANY`: at least one element meets the condition.
  public func any(_ element: (Element) -> ListElementCondition) -> QueryCondition {
    quantified(.any, element(Element()))
  }

  /// `ALL`: every element meets the condition (true for an empty list).
  public func all(_ element: (Element) -> ListElementCondition) -> QueryCondition {
    quantified(.all, element(Element()))
  }

  /// `NONE`: no element meets the condition.
  public func none(_ element: (Element) -> ListElementCondition) -> QueryCondition {
    quantified(.none, element(Element()))
  }

  /// `field == nil`: the record has no list at all.
  public static func == (lhs: TypedListField, rhs: _OptionalNilComparisonType) -> QueryCondition {
    lhs.condition(.equal, .null)
  }

  /// `field != nil`: the record has a list, possibly empty.
  public static func != (lhs: TypedListField, rhs: _OptionalNilComparisonType) -> QueryCondition {
    lhs.condition(.notEqual, .null)
  }

  func quantified(_ quantifier: Quantifier, _ element: ListElementCondition) -> QueryCondition {
    QueryCondition(
      .comparison(
        Comparison(
          field: field, quantifier: quantifier, operator: element.comparisonOperator,
          options: element.options,
          value: element.value)))
  }
}

/// A list of strings: `topics`.
public typealias TypedStringListField = TypedListField<TypedListElement>
/// A list of integers: `scores`.
public typealias TypedIntegerListField = TypedListField<TypedIntegerElement>

extension TypedListField where Element == TypedListElement {
  /// `ANY topics ==[options] element`, also written `'swift' IN topics`.
  public func contains(_ element: String, options: StringOptions = []) -> QueryCondition {
    quantified(.any, TypedListElement().equals(element, options: options))
  }
}

extension TypedListField where Element == TypedIntegerElement {
  /// `ANY scores == element`, also written `7 IN scores`.
  public func contains(_ element: Int) -> QueryCondition {
    quantified(.any, TypedIntegerElement() == element)
  }
}

/// The element of a list field, as `any`, `all` and `none` hand it to their closures.
public protocol TypedListElementKind: Sendable {
  init()
}

/// One element of a list field, inside `any`, `all` or `none`.
public struct TypedListElement: StringComparisons, TypedListElementKind {
  public init() {}

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

/// One element of an integer list, inside `any`, `all` or `none`.
public struct TypedIntegerElement: TypedListElementKind {
  public init() {}

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
  /// `IN {…}`.
  public func `in`(_ values: [Int]) -> ListElementCondition { condition(.in, values.queryValue) }
}
