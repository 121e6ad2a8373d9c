public import Foundation

/// The fields of a record type as typed handles, the argument of `where`: each stored property
/// the schema declares, by its Swift name, offering only the operators its type allows.
///
/// ```swift
/// store.objects(Repository.self).where { $0.fullName.contains("anim", options: .caseInsensitive) }
/// store.objects(Bookmark.self).where { $0.stars > 10 && $0[\.owner?.login] == "apple" }
/// ```
/// A property reached through a nested type is named by its key path in the subscript
/// (`$0[\.owner?.login]`). A key path the schema does not declare builds a query that fails, when
/// it runs, with an unknown-field `QueryError`.
@dynamicMemberLookup
public struct RecordFields<R: Record>: Sendable {
  init() {}

  /// The declared field `keyPath` reads, or a field no collection holds (so that running the
  /// query reports it).
  static func field<V: FieldValueConvertible>(_ keyPath: KeyPath<R, V>) -> Field {
    R.schema.field(reading: keyPath) ?? RecordLayout.field(reading: keyPath)
      ?? Field(
        position: -1, name: "\(keyPath) (not declared in \(R.self).schema)", type: V.fieldType,
        isOptional: V.isOptionalField)
  }

  public subscript<V: StringFieldValue>(dynamicMember keyPath: KeyPath<R, V>) -> TypedStringField {
    TypedStringField(Self.field(keyPath))
  }
  public subscript<V: IntegerFieldValue>(dynamicMember keyPath: KeyPath<R, V>) -> TypedIntegerField {
    TypedIntegerField(Self.field(keyPath))
  }
  public subscript<V: DoubleFieldValue>(dynamicMember keyPath: KeyPath<R, V>) -> TypedDoubleField {
    TypedDoubleField(Self.field(keyPath))
  }
  public subscript<V: BoolFieldValue>(dynamicMember keyPath: KeyPath<R, V>) -> TypedBoolField {
    TypedBoolField(Self.field(keyPath))
  }
  public subscript<V: DateFieldValue>(dynamicMember keyPath: KeyPath<R, V>) -> TypedDateField {
    TypedDateField(Self.field(keyPath))
  }
  public subscript<V: StringListFieldValue>(dynamicMember keyPath: KeyPath<R, V>) -> TypedStringListField {
    TypedStringListField(Self.field(keyPath))
  }
  public subscript<V: IntegerListFieldValue>(dynamicMember keyPath: KeyPath<R, V>) -> TypedIntegerListField {
    TypedIntegerListField(Self.field(keyPath))
  }

  public subscript<V: StringFieldValue>(_ keyPath: KeyPath<R, V>) -> TypedStringField {
    TypedStringField(Self.field(keyPath))
  }
  public subscript<V: IntegerFieldValue>(_ keyPath: KeyPath<R, V>) -> TypedIntegerField {
    TypedIntegerField(Self.field(keyPath))
  }
  public subscript<V: DoubleFieldValue>(_ keyPath: KeyPath<R, V>) -> TypedDoubleField {
    TypedDoubleField(Self.field(keyPath))
  }
  public subscript<V: BoolFieldValue>(_ keyPath: KeyPath<R, V>) -> TypedBoolField {
    TypedBoolField(Self.field(keyPath))
  }
  public subscript<V: DateFieldValue>(_ keyPath: KeyPath<R, V>) -> TypedDateField {
    TypedDateField(Self.field(keyPath))
  }
  public subscript<V: StringListFieldValue>(_ keyPath: KeyPath<R, V>) -> TypedStringListField {
    TypedStringListField(Self.field(keyPath))
  }
  public subscript<V: IntegerListFieldValue>(_ keyPath: KeyPath<R, V>) -> TypedIntegerListField {
    TypedIntegerListField(Self.field(keyPath))
  }
}

/// Swift types of string fields: `String`, `UUID` and their optionals.
public protocol StringFieldValue: FieldValueConvertible {}
/// Swift types of integer fields: `Int`, `Int64`, `Int32` and their optionals.
public protocol IntegerFieldValue: FieldValueConvertible {}
/// Swift types of double fields: `Double`, `Float` and their optionals.
public protocol DoubleFieldValue: FieldValueConvertible {}
/// Swift types of bool fields: `Bool` and `Bool?`.
public protocol BoolFieldValue: FieldValueConvertible {}
/// Swift types of date fields: `Date`, `Timestamp` and their optionals.
public protocol DateFieldValue: FieldValueConvertible {}
/// Swift types of string-list fields: `[String]` and `[String]?`.
public protocol StringListFieldValue: FieldValueConvertible {}
/// Swift types of integer-list fields: `[Int]`, `[Int64]` and their optionals.
public protocol IntegerListFieldValue: FieldValueConvertible {}

extension String: StringFieldValue {}
extension UUID: StringFieldValue {}
extension Int: IntegerFieldValue {}
extension Int64: IntegerFieldValue {}
extension Int32: IntegerFieldValue {}
extension Double: DoubleFieldValue {}
extension Float: DoubleFieldValue {}
extension Bool: BoolFieldValue {}
extension Date: DateFieldValue {}
extension Timestamp: DateFieldValue {}
extension Array: StringListFieldValue where Element == String {}
extension Array: IntegerListFieldValue where Element: FieldListElement & BinaryInteger {}
extension Optional: StringFieldValue where Wrapped: StringFieldValue {}
extension Optional: IntegerFieldValue where Wrapped: IntegerFieldValue {}
extension Optional: DoubleFieldValue where Wrapped: DoubleFieldValue {}
extension Optional: BoolFieldValue where Wrapped: BoolFieldValue {}
extension Optional: DateFieldValue where Wrapped: DateFieldValue {}
extension Optional: StringListFieldValue where Wrapped: StringListFieldValue {}
extension Optional: IntegerListFieldValue where Wrapped: IntegerListFieldValue {}
