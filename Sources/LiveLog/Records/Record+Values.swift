extension Record {
  /// The values of the record's declared fields, in the order of `Self.schema.declaration`.
  public var fieldValues: [FieldValue] { Self.schema.values(of: self) }

  /// The record as values of its declaration.
  public var recordValues: RecordValues {
    RecordValues(schema: Self.schema.declaration, values: fieldValues)
  }

  /// The record whose fields are `values`, of any schema that holds the fields `Self` declares
  /// (by name). Throws `SchemaError` when the type is declared wrongly, and a decoding error
  /// naming the field when a value does not fit.
  public init(values: RecordValues) throws {
    let layout = try RecordLayout.of(Self.self)
    let decoder = try RecordDecoder(Self.self, layout: layout, schema: values.schema)
    self = try decoder.decode(Self.self, from: values.values)
  }

  /// Checks that the type's declaration reads its records back (see `RecordLayout`).
  static func checkLayout() throws {
    _ = try RecordLayout.of(Self.self)
  }

  /// Opens this type's collection in `store` (creating or evolving it as declared).
  static func open(in store: Store) throws {
    _ = try store.binding(for: Self.self, evolving: !store.options.readOnly)
  }
}
