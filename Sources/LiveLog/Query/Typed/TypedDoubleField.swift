/// A double field. Compares with `Double` and `Int` (exactly: `0.1` is not `1 / 10`).
public struct TypedDoubleField: SortableField {
  /// The schema field.
  public let field: Field

  init(_ field: Field) { self.field = field }

  /// `==`.
  public static func == (lhs: TypedDoubleField, rhs: Double) -> QueryCondition {
    lhs.condition(.equal, .double(rhs))
  }
  /// `==` with a whole number.
  public static func == (lhs: TypedDoubleField, rhs: Int) -> QueryCondition {
    lhs.condition(.equal, rhs.queryValue)
  }
  /// `==`; `nil` tests for an absent value.
  public static func == (lhs: TypedDoubleField, rhs: Double?) -> QueryCondition {
    lhs.condition(.equal, rhs.queryValue)
  }
  /// `!=`.
  public static func != (lhs: TypedDoubleField, rhs: Double) -> QueryCondition {
    lhs.condition(.notEqual, .double(rhs))
  }
  /// `!=`; `nil` tests for a present value.
  public static func != (lhs: TypedDoubleField, rhs: Double?) -> QueryCondition {
    lhs.condition(.notEqual, rhs.queryValue)
  }
  /// `<`.
  public static func < (lhs: TypedDoubleField, rhs: Double) -> QueryCondition {
    lhs.condition(.less, .double(rhs))
  }
  /// `<=`.
  public static func <= (lhs: TypedDoubleField, rhs: Double) -> QueryCondition {
    lhs.condition(.lessOrEqual, .double(rhs))
  }
  /// `>`.
  public static func > (lhs: TypedDoubleField, rhs: Double) -> QueryCondition {
    lhs.condition(.greater, .double(rhs))
  }
  /// `>=`.
  public static func >= (lhs: TypedDoubleField, rhs: Double) -> QueryCondition {
    lhs.condition(.greaterOrEqual, .double(rhs))
  }
  /// `BETWEEN {low, high}`, both bounds included.
  public func between(_ low: Double, _ high: Double) -> QueryCondition {
    condition(.between, .list([.double(low), .double(high)]))
  }
  /// `IN {…}`.
  public func `in`(_ values: [Double]) -> QueryCondition { condition(.in, values.queryValue) }
}
