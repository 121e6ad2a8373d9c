/// A number computed from a record in the typed form: a list's element count
/// (`$0.topics.count`), a string's length in UTF-8 bytes (`$0.name.length`), or two integer fields
/// combined (`$0.stargazersCount + $0.forksCount`). Compared with a number or another such
/// expression, it builds the same relation as the text form (`topics.@count > 2`).
///
/// ```swift
/// store.objects(Repository.self).where { $0.topics.count > 2 && $0.forksCount > $0.stargazersCount }
/// ```
public struct TypedNumberExpression: Sendable {
  /// The expression it stands for.
  public let expression: QueryExpression

  init(_ expression: QueryExpression) { self.expression = expression }

  private static func relation(
    _ lhs: TypedNumberExpression, _ op: ComparisonOperator, _ rhs: QueryExpression
  ) -> QueryCondition {
    QueryCondition(.relation(Relation(left: Operand(lhs.expression), operator: op, right: Operand(rhs))))
  }

  public static func == (lhs: TypedNumberExpression, rhs: Int) -> QueryCondition {
    relation(lhs, .equal, .value(rhs.queryValue))
  }
  public static func != (lhs: TypedNumberExpression, rhs: Int) -> QueryCondition {
    relation(lhs, .notEqual, .value(rhs.queryValue))
  }
  public static func < (lhs: TypedNumberExpression, rhs: Int) -> QueryCondition {
    relation(lhs, .less, .value(rhs.queryValue))
  }
  public static func <= (lhs: TypedNumberExpression, rhs: Int) -> QueryCondition {
    relation(lhs, .lessOrEqual, .value(rhs.queryValue))
  }
  public static func > (lhs: TypedNumberExpression, rhs: Int) -> QueryCondition {
    relation(lhs, .greater, .value(rhs.queryValue))
  }
  public static func >= (lhs: TypedNumberExpression, rhs: Int) -> QueryCondition {
    relation(lhs, .greaterOrEqual, .value(rhs.queryValue))
  }
  public static func == (lhs: TypedNumberExpression, rhs: TypedNumberExpression) -> QueryCondition {
    relation(lhs, .equal, rhs.expression)
  }
  public static func != (lhs: TypedNumberExpression, rhs: TypedNumberExpression) -> QueryCondition {
    relation(lhs, .notEqual, rhs.expression)
  }
  public static func < (lhs: TypedNumberExpression, rhs: TypedNumberExpression) -> QueryCondition {
    relation(lhs, .less, rhs.expression)
  }
  public static func <= (lhs: TypedNumberExpression, rhs: TypedNumberExpression) -> QueryCondition {
    relation(lhs, .lessOrEqual, rhs.expression)
  }
  public static func > (lhs: TypedNumberExpression, rhs: TypedNumberExpression) -> QueryCondition {
    relation(lhs, .greater, rhs.expression)
  }
  public static func >= (lhs: TypedNumberExpression, rhs: TypedNumberExpression) -> QueryCondition {
    relation(lhs, .greaterOrEqual, rhs.expression)
  }

  public static func + (lhs: TypedNumberExpression, rhs: TypedNumberExpression) -> TypedNumberExpression {
    TypedNumberExpression(.arithmetic(.add, lhs.expression, rhs.expression))
  }
  public static func - (lhs: TypedNumberExpression, rhs: TypedNumberExpression) -> TypedNumberExpression {
    TypedNumberExpression(.arithmetic(.subtract, lhs.expression, rhs.expression))
  }
  public static func * (lhs: TypedNumberExpression, rhs: TypedNumberExpression) -> TypedNumberExpression {
    TypedNumberExpression(.arithmetic(.multiply, lhs.expression, rhs.expression))
  }
  public static func / (lhs: TypedNumberExpression, rhs: TypedNumberExpression) -> TypedNumberExpression {
    TypedNumberExpression(.arithmetic(.divide, lhs.expression, rhs.expression))
  }
}

extension TypedIntegerField {
  /// The field as a number to compare with other fields or to compute with:
  /// `$0.forksCount.value > $0.stargazersCount.value`.
  public var value: TypedNumberExpression { TypedNumberExpression(.field(field)) }

  public static func > (lhs: TypedIntegerField, rhs: TypedIntegerField) -> QueryCondition {
    lhs.value > rhs.value
  }
  public static func >= (lhs: TypedIntegerField, rhs: TypedIntegerField) -> QueryCondition {
    lhs.value >= rhs.value
  }
  public static func < (lhs: TypedIntegerField, rhs: TypedIntegerField) -> QueryCondition {
    lhs.value < rhs.value
  }
  public static func <= (lhs: TypedIntegerField, rhs: TypedIntegerField) -> QueryCondition {
    lhs.value <= rhs.value
  }
  public static func == (lhs: TypedIntegerField, rhs: TypedIntegerField) -> QueryCondition {
    lhs.value == rhs.value
  }
  public static func != (lhs: TypedIntegerField, rhs: TypedIntegerField) -> QueryCondition {
    lhs.value != rhs.value
  }
  public static func + (lhs: TypedIntegerField, rhs: TypedIntegerField) -> TypedNumberExpression {
    lhs.value + rhs.value
  }
  public static func - (lhs: TypedIntegerField, rhs: TypedIntegerField) -> TypedNumberExpression {
    lhs.value - rhs.value
  }
}

extension TypedListField {
  /// The number of elements: `$0.topics.count > 2` (an absent list counts 0).
  public var count: TypedNumberExpression { TypedNumberExpression(.count(field)) }
}

extension TypedStringField {
  /// The length in UTF-8 bytes, as Realm counts it: `$0.name.length > 20` (nil for an absent
  /// string).
  public var length: TypedNumberExpression { TypedNumberExpression(.count(field)) }
}
