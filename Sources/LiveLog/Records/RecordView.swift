/// One stored record read in place: fields are found and decoded only when asked for, and
/// strings can be read as the UTF-8 bytes in the memory map, without making a `String`.
///
/// The query engine checks candidates through views: most checks read one or two fields.
struct RecordView {
  let bytes: UnsafeRawBufferPointer
  let row: Row

  private func failure(_ error: MalformedBytes) -> StoreError {
    .corruptState(reason: "record at row \(row): \(error)")
  }

  func value(_ field: Field) throws(StoreError) -> FieldValue { try value(atSlot: field.position) }

  /// The value in `slot` (`.null` past the stored ones).
  func value(atSlot slot: Int) throws(StoreError) -> FieldValue {
    do {
      return try RecordCodec.value(atSlot: slot, in: bytes)
    } catch {
      throw failure(error)
    }
  }

  /// The values in `slots` (ascending, distinct), read in one pass over the record.
  func values(atSlots slots: [Int]) throws(StoreError) -> [FieldValue] {
    do {
      return try RecordCodec.values(atSlots: slots, in: bytes)
    } catch {
      throw failure(error)
    }
  }

  /// The UTF-8 bytes of a string field, or `nil` when it is nil (or not a string).
  func utf8(_ field: Field) throws(StoreError) -> UnsafeRawBufferPointer? {
    var reader = ByteReader(bytes)
    do {
      guard try RecordCodec.position(&reader, atSlot: field.position),
        try reader.readByte() == RecordCodec.Tag.string.rawValue
      else { return nil }
      return try reader.readLengthPrefixed()
    } catch {
      throw failure(error)
    }
  }

  /// The record's primary key, held in `field`.
  func key(_ field: Field) throws(StoreError) -> PrimaryKey {
    guard let key = PrimaryKey(try value(field)) else {
      throw failure(
        MalformedBytes(offset: 0, reason: "the primary key \(field.name) is absent or of another type"))
    }
    return key
  }
}
