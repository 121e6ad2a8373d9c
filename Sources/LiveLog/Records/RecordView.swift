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

  /// A reader positioned at the start of the field at `position`, or `nil` past the stored fields.
  private func reader(at position: Int) throws(StoreError) -> ByteReader? {
    var reader = ByteReader(bytes)
    do {
      let count = try RecordCodec.readHeader(&reader, schema: Repository.schema)
      guard position < count else { return nil }
      for _ in 0..<position { try RecordCodec.skipValue(&reader) }
    } catch {
      throw failure(error)
    }
    return reader
  }

  func value(_ field: Field) throws(StoreError) -> FieldValue {
    do {
      return try RecordCodec.value(at: field.position, in: bytes, schema: Repository.schema)
    } catch {
      throw failure(error)
    }
  }

  /// The UTF-8 bytes of a string field, or `nil` when it is nil (or not a string).
  func utf8(_ field: Field) throws(StoreError) -> UnsafeRawBufferPointer? {
    guard var reader = try reader(at: field.position) else { return nil }
    do {
      guard try reader.readByte() == RecordCodec.Tag.string.rawValue else { return nil }
      return try reader.readLengthPrefixed()
    } catch {
      throw failure(error)
    }
  }

  /// The record's id (its first field).
  func id() throws(StoreError) -> Int64 {
    guard var reader = try reader(at: 0) else { throw failure(MalformedBytes(offset: 0, reason: "no id")) }
    do {
      guard try reader.readByte() == RecordCodec.Tag.integer.rawValue else {
        throw failure(MalformedBytes(offset: reader.offset, reason: "the id is not an integer"))
      }
      return try reader.readSigned()
    } catch let error as MalformedBytes {
      throw failure(error)
    } catch let error as StoreError {
      throw error
    } catch {
      throw failure(MalformedBytes(offset: 0, reason: "\(error)"))
    }
  }
}
