/// The declaration of a record type's collection: its name, primary key and fields.
///
/// ```swift
/// static let schema = Schema<Issue>("issues", primaryKey: "node_id", fields: [
///   .field("title", \.title, indexes: .substring),
///   .field("state", \.state, indexes: .equality),
///   .field("comments", \.comments, indexes: .ordered),
/// ])
/// ```
/// The primary key is the record's `id` property, stored under the name `primaryKey`; the other
/// fields follow in the order given, which is the order they are stored in.
public struct Schema<R: Record>: Sendable {
  /// The declaration as the engine sees it, unchecked: `declaration.validated()` tells what is
  /// wrong with it, and opening the collection throws that.
  public let declaration: CollectionSchema
  /// Each declared field, in `declaration.fields` order.
  let declarations: [SchemaField<R>]
  /// A copy of each declared field's `load`, so that reading a record's values (every typed
  /// write) does not copy the field structs around them.
  private let loads: [FieldLoad]

  /// Declares the collection `collection` whose primary key is the record's `id`, stored under the
  /// name `primaryKey` with the indexes `primaryKeyIndexes`, and whose other fields are `fields`.
  public init(
    _ collection: String, primaryKey: String = "id", primaryKeyIndexes: IndexKinds = [],
    fields: [SchemaField<R>]
  ) {
    // `id` is a protocol requirement, which a key path reaches through its getter (no offset):
    // the getter is called on the record in place instead.
    var key = SchemaField<R>.field(primaryKey, \R.id, indexes: primaryKeyIndexes)
    key.load = .read { $0.assumingMemoryBound(to: R.self).pointee.id.fieldValue }
    declarations = [key] + fields
    loads = declarations.map(\.load)
    declaration = CollectionSchema(
      name: collection, primaryKey: primaryKey,
      fields: declarations.map {
        Field(position: 0, name: $0.name, type: $0.type, indexes: $0.indexes, isOptional: $0.isOptional)
      })
  }

  /// The declared fields, the primary key first, in declaration order.
  public var fields: [Field] { declaration.fields }

  /// The declared field called `name`, or `nil`.
  public func field(named name: String) -> Field? { declaration.field(named: name) }

  /// The values of `record`'s declared fields, in declaration order.
  func values(of record: R) -> [FieldValue] {
    withUnsafePointer(to: record) { record in
      [FieldValue](unsafeUninitializedCapacity: loads.count) { values, count in
        for load in loads {
          (values.baseAddress! + count).initialize(to: load.value(in: UnsafeRawPointer(record)))
          count += 1
        }
      }
    }
  }

  /// The declared field that `keyPath` reads, or `nil`.
  public func field(reading keyPath: AnyKeyPath) -> Field? {
    declarations.firstIndex { $0.keyPath == keyPath }.map { declaration.fields[$0] }
  }
}

/// One field of a `Schema`: a name, the stored property it reads, and its indexes.
public struct SchemaField<R>: Sendable {
  let name: String
  let type: FieldType
  let isOptional: Bool
  let indexes: IndexKinds
  let keyPath: any AnyKeyPath & Sendable
  /// Reads the field of a record in memory: at its offset where it has one (`FieldLoad`).
  fileprivate(set) var load: FieldLoad

  /// The field's value in `record`.
  func read(_ record: R) -> FieldValue {
    withUnsafePointer(to: record) { load.value(in: UnsafeRawPointer($0)) }
  }

  /// The field `name`, holding the property at `keyPath`, with `indexes`. Its type and whether
  /// it is optional follow from the property's type: `\.stars` of an `Int?` is an optional
  /// integer field. A property of a nested type is named with dots: `.field("owner.login",
  /// \.owner?.login)`.
  public static func field<V: FieldValueConvertible>(
    _ name: String, _ keyPath: any KeyPath<R, V> & Sendable, indexes: IndexKinds = []
  ) -> SchemaField<R> {
    SchemaField(
      name: name, type: V.fieldType, isOptional: V.isOptionalField, indexes: indexes, keyPath: keyPath,
      load: .of(keyPath))
  }
}
