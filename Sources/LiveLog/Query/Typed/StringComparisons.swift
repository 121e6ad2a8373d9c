/// The string operators, shared by string fields and by the elements of a list field.
///
/// A string field's comparisons build a `QueryCondition`; a list element's build a
/// `ListElementCondition`, which only `any`, `all` and `none` accept, so that a quantifier always
/// applies to exactly one comparison, as in the text form.
public protocol StringComparisons {
  /// What a comparison builds.
  associatedtype Condition

  /// The condition `self OPERATOR[options] value`; the named methods and operators call this.
  func comparing(_ comparisonOperator: ComparisonOperator, _ value: QueryValue, options: StringOptions)
    -> Condition
}

extension StringComparisons {
  /// `CONTAINS`: the value holds `text` somewhere.
  public func contains(_ text: String, options: StringOptions = []) -> Condition {
    comparing(.contains, .string(text), options: options)
  }

  /// `BEGINSWITH`.
  public func beginsWith(_ prefix: String, options: StringOptions = []) -> Condition {
    comparing(.beginsWith, .string(prefix), options: options)
  }

  /// `BEGINSWITH`, named as on `String`.
  public func hasPrefix(_ prefix: String, options: StringOptions = []) -> Condition {
    beginsWith(prefix, options: options)
  }

  /// `ENDSWITH`.
  public func endsWith(_ suffix: String, options: StringOptions = []) -> Condition {
    comparing(.endsWith, .string(suffix), options: options)
  }

  /// `ENDSWITH`, named as on `String`.
  public func hasSuffix(_ suffix: String, options: StringOptions = []) -> Condition {
    endsWith(suffix, options: options)
  }

  /// `LIKE`: `*` matches any run of characters, `?` exactly one.
  public func like(_ pattern: String, options: StringOptions = []) -> Condition {
    comparing(.like, .string(pattern), options: options)
  }

  /// `==[options]`; `==` itself is the form without options.
  public func equals(_ text: String, options: StringOptions = []) -> Condition {
    comparing(.equal, .string(text), options: options)
  }

  /// `!=[options]`.
  public func notEquals(_ text: String, options: StringOptions = []) -> Condition {
    comparing(.notEqual, .string(text), options: options)
  }

  /// `<`, in the order of Unicode scalar values.
  public static func < (lhs: Self, rhs: String) -> Condition {
    lhs.comparing(.less, .string(rhs), options: [])
  }

  /// `<=`.
  public static func <= (lhs: Self, rhs: String) -> Condition {
    lhs.comparing(.lessOrEqual, .string(rhs), options: [])
  }

  /// `>`.
  public static func > (lhs: Self, rhs: String) -> Condition {
    lhs.comparing(.greater, .string(rhs), options: [])
  }

  /// `>=`.
  public static func >= (lhs: Self, rhs: String) -> Condition {
    lhs.comparing(.greaterOrEqual, .string(rhs), options: [])
  }
}

/// A string field: `name`, `full_name`, `language`, …
public struct TypedStringField: SortableField, StringComparisons {
  /// The schema field.
  public let field: Field

  init(_ field: Field) { self.field = field }

  /// A comparison of this field; see `StringComparisons`.
  public func comparing(_ comparisonOperator: ComparisonOperator, _ value: QueryValue, options: StringOptions)
    -> QueryCondition
  {
    condition(comparisonOperator, value, options: options)
  }

  /// `==`; `nil` tests for an absent value.
  public static func == (lhs: TypedStringField, rhs: String?) -> QueryCondition {
    lhs.condition(.equal, rhs.queryValue)
  }

  /// `!=`; true for an absent value unless `rhs` is `nil`.
  public static func != (lhs: TypedStringField, rhs: String?) -> QueryCondition {
    lhs.condition(.notEqual, rhs.queryValue)
  }

  /// `IN {…}`; a `nil` in the list matches an absent value.
  public func `in`(_ values: [String?], options: StringOptions = []) -> QueryCondition {
    condition(.in, values.queryValue, options: options)
  }
}
