extension RecordCodec {
  /// Accepts exactly the bytes `decode(_:schema:)` accepts, with the same error, without building
  /// the values: what a replay needs of every version it copies but does not keep, at a fraction
  /// of the cost (no string, list or array is made). `RecordCheckingTests` holds the two to agreeing
  /// on damaged records.
  static func check(_ bytes: UnsafeRawBufferPointer, schema: CollectionSchema) throws(MalformedBytes) {
    var reader = ByteReader(bytes)
    let count = try readHeader(&reader)
    let fields = schema.fields
    for slot in 0..<count {
      let tag = try skipValue(&reader, checking: true)
      // The field read in place, not copied: this runs for every event a verification checks.
      guard let index = schema.fieldIndex(atSlot: slot) else { continue }
      guard tag.fits(fields[index].type) else {
        throw MalformedBytes(
          offset: reader.offset, reason: "field \(fields[index].name) holds a value of the wrong type")
      }
    }
    guard reader.isAtEnd else {
      throw MalformedBytes(offset: reader.offset, reason: "\(reader.remaining) bytes after the last field")
    }
  }
}

extension RecordCodec.Tag {
  /// The type of the values this tag writes; nil for `null`, which fits every field.
  var fieldType: FieldType? {
    switch self {
    case .null: nil
    case .falseValue, .trueValue: .bool
    case .integer: .integer
    case .double: .double
    case .date, .dateNanoseconds: .date
    case .string: .string
    case .strings: .stringList
    case .integers: .integerList
    }
  }

  /// Whether a value of this tag may be stored in a field of `type`, as `FieldValue.fits` says of
  /// the value it decodes to.
  func fits(_ type: FieldType) -> Bool { fieldType.map { $0 == type } ?? true }
}
