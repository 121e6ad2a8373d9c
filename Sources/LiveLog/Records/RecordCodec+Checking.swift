extension RecordCodec {
  /// Accepts exactly the bytes `decode(_:schema:)` accepts, with the same error, without building
  /// the values: what a replay needs of every version it copies but does not keep, at a fraction
  /// of the cost (no string, list or array is made). `RecordCheckingTests` holds the two to agreeing
  /// on damaged records.
  static func check(_ bytes: UnsafeRawBufferPointer, schema: CollectionSchema) throws(MalformedBytes) {
    var reader = ByteReader(bytes)
    let count = try readHeader(&reader)
    for slot in 0..<count {
      let tag = try skipValue(&reader, checking: true)
      guard slot < schema.slotCount, let field = schema.field(atSlot: slot) else { continue }
      guard tag.fits(field.type) else {
        throw MalformedBytes(
          offset: reader.offset, reason: "field \(field.name) holds a value of the wrong type")
      }
    }
    guard reader.isAtEnd else {
      throw MalformedBytes(offset: reader.offset, reason: "\(reader.remaining) bytes after the last field")
    }
  }
}

extension RecordCodec.Tag {
  /// Whether a value of this tag may be stored in a field of `type`: `FieldValue.fits`, by tag.
  func fits(_ type: FieldType) -> Bool {
    switch (self, type) {
    case (.null, _), (.falseValue, .bool), (.trueValue, .bool), (.integer, .integer), (.double, .double),
      (.date, .date), (.dateNanoseconds, .date), (.string, .string), (.strings, .stringList),
      (.integers, .integerList):
      true
    default: false
    }
  }
}
