public import Foundation

/// A Swift type a record's stored property may have: one of the field types, or an optional of one.
///
/// | Swift | field type |
/// | --- | --- |
/// | `String`, `UUID` | `string` |
/// | `Int`, `Int64`, `Int32` | `integer` |
/// | `Double`, `Float` | `double` |
/// | `Bool` | `bool` |
/// | `Date`, `Timestamp` | `date` |
/// | `[String]` | `string_list` |
/// | `[Int]`, `[Int64]` | `integer_list` |
/// | `Optional` of any of these | the same type, optional |
public protocol FieldValueConvertible: Sendable {
  /// The field type that holds values of this Swift type.
  static var fieldType: FieldType { get }
  /// Whether the Swift type admits `nil` (an `Optional`).
  static var isOptionalField: Bool { get }
  /// The value as the engine stores it.
  var fieldValue: FieldValue { get }
}

extension FieldValueConvertible {
  public static var isOptionalField: Bool { false }
}

extension String: FieldValueConvertible {
  public static var fieldType: FieldType { .string }
  public var fieldValue: FieldValue { .string(self) }
}

extension UUID: FieldValueConvertible {
  public static var fieldType: FieldType { .string }
  public var fieldValue: FieldValue { .string(uuidString) }
}

extension Int: FieldValueConvertible {
  public static var fieldType: FieldType { .integer }
  public var fieldValue: FieldValue { .integer(Int64(self)) }
}

extension Int64: FieldValueConvertible {
  public static var fieldType: FieldType { .integer }
  public var fieldValue: FieldValue { .integer(self) }
}

extension Int32: FieldValueConvertible {
  public static var fieldType: FieldType { .integer }
  public var fieldValue: FieldValue { .integer(Int64(self)) }
}

extension Double: FieldValueConvertible {
  public static var fieldType: FieldType { .double }
  public var fieldValue: FieldValue { .double(self) }
}

extension Float: FieldValueConvertible {
  public static var fieldType: FieldType { .double }
  public var fieldValue: FieldValue { .double(Double(self)) }
}

extension Bool: FieldValueConvertible {
  public static var fieldType: FieldType { .bool }
  public var fieldValue: FieldValue { .bool(self) }
}

extension Date: FieldValueConvertible {
  public static var fieldType: FieldType { .date }
  public var fieldValue: FieldValue { .date(Timestamp(self)) }
}

extension Timestamp: FieldValueConvertible {
  public static var fieldType: FieldType { .date }
  public var fieldValue: FieldValue { .date(self) }
}

/// The element of a list field: `String` for string lists, `Int` and `Int64` for integer lists.
public protocol FieldListElement: Sendable {
  /// `.stringList` or `.integerList`.
  static var listType: FieldType { get }
  /// The list as the engine stores it.
  static func fieldValue(of list: [Self]) -> FieldValue
}

extension String: FieldListElement {
  public static var listType: FieldType { .stringList }
  public static func fieldValue(of list: [String]) -> FieldValue { .strings(list) }
}

extension Int: FieldListElement {
  public static var listType: FieldType { .integerList }
  public static func fieldValue(of list: [Int]) -> FieldValue { .integers(list.map(Int64.init)) }
}

extension Int64: FieldListElement {
  public static var listType: FieldType { .integerList }
  public static func fieldValue(of list: [Int64]) -> FieldValue { .integers(list) }
}

extension Array: FieldValueConvertible where Element: FieldListElement {
  public static var fieldType: FieldType { Element.listType }
  public var fieldValue: FieldValue { Element.fieldValue(of: self) }
}

extension Optional: FieldValueConvertible where Wrapped: FieldValueConvertible {
  public static var fieldType: FieldType { Wrapped.fieldType }
  public static var isOptionalField: Bool { true }
  public var fieldValue: FieldValue { self?.fieldValue ?? .null }
}
