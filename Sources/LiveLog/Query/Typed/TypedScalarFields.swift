public import Foundation

/// An integer field: `id`, `stargazers_count`, `forks_count`, `size`, …
///
/// Compares with `Int`, `Int64` and `Double`; an integer literal is an `Int`, as in the text form
/// `5` is an integer and `5.0` a decimal.
public struct TypedIntegerField: SortableField {
  /// The schema field.
  public let field: Field

  init(_ field: Field) { self.field = field }

  /// `==`.
  public static func == (lhs: TypedIntegerField, rhs: Int) -> QueryCondition {
    lhs.condition(.equal, rhs.queryValue)
  }
  /// `==`; `nil` tests for an absent value.
  public static func == (lhs: TypedIntegerField, rhs: Int64?) -> QueryCondition {
    lhs.condition(.equal, rhs.queryValue)
  }
  /// `==` with a decimal.
  public static func == (lhs: TypedIntegerField, rhs: Double) -> QueryCondition {
    lhs.condition(.equal, rhs.queryValue)
  }
  /// `!=`.
  public static func != (lhs: TypedIntegerField, rhs: Int) -> QueryCondition {
    lhs.condition(.notEqual, rhs.queryValue)
  }
  /// `!=`; `nil` tests for a present value.
  public static func != (lhs: TypedIntegerField, rhs: Int64?) -> QueryCondition {
    lhs.condition(.notEqual, rhs.queryValue)
  }
  /// `!=` with a decimal.
  public static func != (lhs: TypedIntegerField, rhs: Double) -> QueryCondition {
    lhs.condition(.notEqual, rhs.queryValue)
  }
  /// `<`.
  public static func < (lhs: TypedIntegerField, rhs: Int) -> QueryCondition {
    lhs.condition(.less, rhs.queryValue)
  }
  /// `<`.
  public static func < (lhs: TypedIntegerField, rhs: Int64) -> QueryCondition {
    lhs.condition(.less, rhs.queryValue)
  }
  /// `<`.
  public static func < (lhs: TypedIntegerField, rhs: Double) -> QueryCondition {
    lhs.condition(.less, rhs.queryValue)
  }
  /// `<=`.
  public static func <= (lhs: TypedIntegerField, rhs: Int) -> QueryCondition {
    lhs.condition(.lessOrEqual, rhs.queryValue)
  }
  /// `<=`.
  public static func <= (lhs: TypedIntegerField, rhs: Int64) -> QueryCondition {
    lhs.condition(.lessOrEqual, rhs.queryValue)
  }
  /// `<=`.
  public static func <= (lhs: TypedIntegerField, rhs: Double) -> QueryCondition {
    lhs.condition(.lessOrEqual, rhs.queryValue)
  }
  /// `>`.
  public static func > (lhs: TypedIntegerField, rhs: Int) -> QueryCondition {
    lhs.condition(.greater, rhs.queryValue)
  }
  /// `>`.
  public static func > (lhs: TypedIntegerField, rhs: Int64) -> QueryCondition {
    lhs.condition(.greater, rhs.queryValue)
  }
  /// `>`.
  public static func > (lhs: TypedIntegerField, rhs: Double) -> QueryCondition {
    lhs.condition(.greater, rhs.queryValue)
  }
  /// `>=`.
  public static func >= (lhs: TypedIntegerField, rhs: Int) -> QueryCondition {
    lhs.condition(.greaterOrEqual, rhs.queryValue)
  }
  /// `>=`.
  public static func >= (lhs: TypedIntegerField, rhs: Int64) -> QueryCondition {
    lhs.condition(.greaterOrEqual, rhs.queryValue)
  }
  /// `>=`.
  public static func >= (lhs: TypedIntegerField, rhs: Double) -> QueryCondition {
    lhs.condition(.greaterOrEqual, rhs.queryValue)
  }

  /// `BETWEEN {low, high}`, both bounds included.
  public func between(_ low: Int, _ high: Int) -> QueryCondition {
    condition(.between, .list([low.queryValue, high.queryValue]))
  }
  /// `BETWEEN {low, high}`.
  public func between(_ low: Int64, _ high: Int64) -> QueryCondition {
    condition(.between, .list([low.queryValue, high.queryValue]))
  }
  /// `BETWEEN {low, high}` with decimal bounds.
  public func between(_ low: Double, _ high: Double) -> QueryCondition {
    condition(.between, .list([low.queryValue, high.queryValue]))
  }

  /// `IN {…}`.
  public func `in`(_ values: [Int]) -> QueryCondition { condition(.in, values.queryValue) }
  /// `IN {…}`; a `nil` in the list matches an absent value.
  public func `in`(_ values: [Int64?]) -> QueryCondition { condition(.in, values.queryValue) }
}

/// A date field: `created_at`, `updated_at`, `pushed_at`.
public struct TypedDateField: SortableField {
  /// The schema field.
  public let field: Field

  init(_ field: Field) { self.field = field }

  /// `==`; `nil` tests for an absent value.
  public static func == (lhs: TypedDateField, rhs: Timestamp?) -> QueryCondition {
    lhs.condition(.equal, rhs.queryValue)
  }
  /// `!=`.
  public static func != (lhs: TypedDateField, rhs: Timestamp?) -> QueryCondition {
    lhs.condition(.notEqual, rhs.queryValue)
  }
  /// `<`: earlier than.
  public static func < (lhs: TypedDateField, rhs: Timestamp) -> QueryCondition {
    lhs.condition(.less, rhs.queryValue)
  }
  /// `<=`.
  public static func <= (lhs: TypedDateField, rhs: Timestamp) -> QueryCondition {
    lhs.condition(.lessOrEqual, rhs.queryValue)
  }
  /// `>`: later than.
  public static func > (lhs: TypedDateField, rhs: Timestamp) -> QueryCondition {
    lhs.condition(.greater, rhs.queryValue)
  }
  /// `>=`.
  public static func >= (lhs: TypedDateField, rhs: Timestamp) -> QueryCondition {
    lhs.condition(.greaterOrEqual, rhs.queryValue)
  }
  /// `BETWEEN {low, high}`, both bounds included.
  public func between(_ low: Timestamp, _ high: Timestamp) -> QueryCondition {
    condition(.between, .list([low.queryValue, high.queryValue]))
  }
  /// `IN {…}`.
  public func `in`(_ values: [Timestamp?]) -> QueryCondition { condition(.in, values.queryValue) }

  /// `==` with a Swift `Date` (to the nanosecond).
  public static func == (lhs: TypedDateField, rhs: Date) -> QueryCondition { lhs == Timestamp(rhs) }
  /// `!=`.
  public static func != (lhs: TypedDateField, rhs: Date) -> QueryCondition { lhs != Timestamp(rhs) }
  /// `<`: earlier than.
  public static func < (lhs: TypedDateField, rhs: Date) -> QueryCondition { lhs < Timestamp(rhs) }
  /// `<=`.
  public static func <= (lhs: TypedDateField, rhs: Date) -> QueryCondition { lhs <= Timestamp(rhs) }
  /// `>`: later than.
  public static func > (lhs: TypedDateField, rhs: Date) -> QueryCondition { lhs > Timestamp(rhs) }
  /// `>=`.
  public static func >= (lhs: TypedDateField, rhs: Date) -> QueryCondition { lhs >= Timestamp(rhs) }
  /// `BETWEEN {low, high}`, both bounds included.
  public func between(_ low: Date, _ high: Date) -> QueryCondition {
    between(Timestamp(low), Timestamp(high))
  }
}

/// A bool field: `fork`, `archived`.
public struct TypedBoolField: SortableField {
  /// The schema field.
  public let field: Field

  init(_ field: Field) { self.field = field }

  /// `==`; `nil` tests for an absent value.
  public static func == (lhs: TypedBoolField, rhs: Bool?) -> QueryCondition {
    lhs.condition(.equal, rhs.queryValue)
  }
  /// `!=`; `field != true` also matches an absent value.
  public static func != (lhs: TypedBoolField, rhs: Bool?) -> QueryCondition {
    lhs.condition(.notEqual, rhs.queryValue)
  }
  /// `IN {…}`.
  public func `in`(_ values: [Bool?]) -> QueryCondition { condition(.in, values.queryValue) }
}
