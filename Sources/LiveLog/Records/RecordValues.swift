public import Foundation

/// A record of any collection as its field values: how code that does not know the Swift type
/// (the command line, logs, exports) reads and writes records.
///
/// ```swift
/// let results = try store.objects(in: "bookmarks").filter("stars > 10")
/// for record in results { print(record["title"], record.json) }
/// ```
public struct RecordValues: Sendable, Hashable {
  /// The schema the values follow: `values[field.position]` is the value of `field`.
  public let schema: CollectionSchema
  /// The values by slot; a free or retired slot holds `.null`.
  public let values: [FieldValue]

  /// Values by slot of `schema`; missing trailing slots are `.null`.
  public init(schema: CollectionSchema, values: [FieldValue]) {
    self.schema = schema
    if values.count < schema.slotCount {
      self.values = values + [FieldValue](repeating: .null, count: schema.slotCount - values.count)
    } else {
      self.values = values
    }
  }

  /// A record from values by field name; fields not named are `.null`, unknown names are ignored.
  public init(schema: CollectionSchema, named: [String: FieldValue]) {
    var values = [FieldValue](repeating: .null, count: schema.slotCount)
    for field in schema.fields { values[field.position] = named[field.name] ?? .null }
    self.init(schema: schema, values: values)
  }

  /// The value of the field called `name` (`.null` for a name the schema lacks).
  public subscript(name: String) -> FieldValue {
    schema.field(named: name).map { value(of: $0) } ?? .null
  }

  /// The value of `field`.
  public func value(of field: Field) -> FieldValue {
    field.position < values.count ? values[field.position] : .null
  }

  /// The primary key, or `nil` when the record lacks one (an input not yet checked).
  public var primaryKey: PrimaryKey? { PrimaryKey(value(of: schema.primaryKey)) }

  /// The first value that does not fit its field, or a required field that is absent, as
  /// `(field, problem)`; `nil` when every value fits.
  func firstMismatch() -> (field: Field, problem: String)? {
    // By index, reading each field's parts in place: a bulk write checks its records on every
    // core at once, and copying each field (and value) retained its name (and text).
    let fields = schema.fields
    for index in fields.indices {
      let position = fields[index].position
      if position >= values.count || values[position].isNull {
        if !fields[index].isOptional {
          return (fields[index], "missing: every record of \(schema.name) needs it")
        }
      } else if !values[position].fits(fields[index].type) {
        return (fields[index], "holds \(values[position].typeDescription), not a \(fields[index].type)")
      }
    }
    if case .string(let key) = value(of: schema.primaryKey) {
      if key.isEmpty { return (schema.primaryKey, "is the primary key and empty") }
      if key.utf8.count > PrimaryKey.maximumStringBytes {
        return (
          schema.primaryKey,
          "is a key of \(key.utf8.count) bytes, longer than the \(PrimaryKey.maximumStringBytes) a key may have"
        )
      }
    }
    return nil
  }
}

/// A record as read from an input, before it is checked against its schema: what
/// `Record.complete(_:)` may fill in.
public struct InputRecord: Sendable {
  /// The schema the record is read for.
  public let schema: CollectionSchema
  /// The values by slot, as read.
  var values: [FieldValue]
  /// Columns of a CSV input that name no field of the schema, by header name.
  public let otherColumns: [String: String]

  init(schema: CollectionSchema, values: [FieldValue], otherColumns: [String: String] = [:]) {
    self.schema = schema
    self.values = values
    self.otherColumns = otherColumns
  }

  /// The value of the field called `name`; setting a name the schema lacks does nothing.
  public subscript(name: String) -> FieldValue {
    get { schema.field(named: name).map { values[$0.position] } ?? .null }
    set {
      if let field = schema.field(named: name) { values[field.position] = newValue }
    }
  }
}

/// Why `Record.complete(_:)` refuses an input record; the reader adds the file, line and column.
public struct InputProblem: Error, Sendable, Hashable {
  /// The field at fault.
  public var field: String
  /// What is wrong.
  public var message: String

  public init(field: String, message: String) {
    self.field = field
    self.message = message
  }
}

extension RecordValues {
  /// A value that a migration or other code needed and the record lacks.
  public struct MissingValue: Error, Sendable, Hashable, CustomStringConvertible {
    public var collection: String
    public var field: String
    public var expected: String
    public var found: String
    public var description: String {
      "collection '\(collection)', field '\(field)': expected \(expected), found \(found)"
    }
  }

  private func required<T>(_ name: String, _ expected: String, _ read: (FieldValue) -> T?)
    throws(MissingValue) -> T
  {
    let value = self[name]
    guard let typed = read(value) else {
      throw MissingValue(
        collection: schema.name, field: name, expected: expected, found: value.typeDescription)
    }
    return typed
  }

  /// The string in field `name`; throws when it is absent or not a string.
  public func string(_ name: String) throws(MissingValue) -> String {
    try required(name, "a string") { $0.stringValue }
  }
  /// The integer in field `name`.
  public func integer(_ name: String) throws(MissingValue) -> Int64 {
    try required(name, "an integer") { $0.integerValue }
  }
  /// The number in field `name`, as a double.
  public func double(_ name: String) throws(MissingValue) -> Double {
    try required(name, "a number") { $0.doubleValue }
  }
  /// The flag in field `name`.
  public func bool(_ name: String) throws(MissingValue) -> Bool {
    try required(name, "a bool") { $0.boolValue }
  }
  /// The date in field `name`.
  public func date(_ name: String) throws(MissingValue) -> Timestamp {
    try required(name, "a date") { $0.dateValue }
  }
  /// The UUID in the string field `name`.
  public func uuid(_ name: String) throws(MissingValue) -> UUID {
    try required(name, "a UUID string") { $0.stringValue.flatMap(UUID.init(uuidString:)) }
  }
}
