/// How a `Schema` reads one field of a record in memory, for every typed write.
///
/// A stored property of one of the common types is loaded at its offset and wrapped in its
/// `FieldValue` case, with nothing between: no closure called, no generic code, no metadata
/// looked up. A closure per field (its context retained and released around each call, its
/// conversion generic) took about 70% of a generated repository's `Mutation.upsert` (1.8 µs;
/// 0.53 µs this way, both measured in turns over the same records). Any other property (a
/// computed one, a nested type's, a type of the app's own that is `FieldValueConvertible`) is
/// read through its key path or getter. The conversions below are those of
/// `FieldValueConvertible`, written out per type; `SchemaValuesTests` keeps them in step.
enum FieldLoad: Sendable {
  /// A stored property of `kind`, at this byte offset in the record.
  case stored(StoredKind, offset: Int)
  /// A property read by calling this on the record in place.
  case read(@Sendable (UnsafeRawPointer) -> FieldValue)

  /// The Swift types loaded in place: those the engine's own record types and most apps' use.
  enum StoredKind: Sendable {
    case string, optionalString, int64, optionalInt64, int, optionalInt, bool, optionalBool
    case double, optionalDouble, timestamp, optionalTimestamp, strings, optionalStrings

    /// Each kind's Swift type, which a property's type is compared with.
    fileprivate static let types: [(type: Any.Type, kind: StoredKind)] = [
      (String.self, .string), (String?.self, .optionalString), (Int64.self, .int64),
      (Int64?.self, .optionalInt64), (Int.self, .int), (Int?.self, .optionalInt), (Bool.self, .bool),
      (Bool?.self, .optionalBool), (Double.self, .double), (Double?.self, .optionalDouble),
      (Timestamp.self, .timestamp), (Timestamp?.self, .optionalTimestamp), ([String].self, .strings),
      ([String]?.self, .optionalStrings),
    ]
  }

  /// How to read the property at `keyPath`: in place when it is stored inline in `R`
  /// (`MemoryLayout.offset(of:)`: a struct's stored property, nested or not), else through the
  /// key path, which copies the whole record for each field it reads.
  static func of<R, V: FieldValueConvertible>(_ keyPath: any KeyPath<R, V> & Sendable) -> FieldLoad {
    guard let offset = MemoryLayout<R>.offset(of: keyPath) else {
      return .read { $0.assumingMemoryBound(to: R.self).pointee[keyPath: keyPath].fieldValue }
    }
    guard let kind = StoredKind.types.first(where: { $0.type == V.self })?.kind else {
      return .read { $0.load(fromByteOffset: offset, as: V.self).fieldValue }
    }
    return .stored(kind, offset: offset)
  }

  /// The field's value in the record at `raw`.
  @inline(__always)
  func value(in raw: UnsafeRawPointer) -> FieldValue {
    let (kind, offset): (StoredKind, Int)
    switch self {
    case .read(let read): return read(raw)
    case .stored(let stored, let at): (kind, offset) = (stored, at)
    }
    switch kind {
    case .string: return .string(raw.load(fromByteOffset: offset, as: String.self))
    case .optionalString:
      return raw.load(fromByteOffset: offset, as: String?.self).map { .string($0) } ?? .null
    case .int64: return .integer(raw.load(fromByteOffset: offset, as: Int64.self))
    case .optionalInt64:
      return raw.load(fromByteOffset: offset, as: Int64?.self).map { .integer($0) } ?? .null
    case .int: return .integer(Int64(raw.load(fromByteOffset: offset, as: Int.self)))
    case .optionalInt:
      return raw.load(fromByteOffset: offset, as: Int?.self).map { .integer(Int64($0)) } ?? .null
    case .bool: return .bool(raw.load(fromByteOffset: offset, as: Bool.self))
    case .optionalBool: return raw.load(fromByteOffset: offset, as: Bool?.self).map { .bool($0) } ?? .null
    case .double: return .double(raw.load(fromByteOffset: offset, as: Double.self))
    case .optionalDouble:
      return raw.load(fromByteOffset: offset, as: Double?.self).map { .double($0) } ?? .null
    case .timestamp: return .date(raw.load(fromByteOffset: offset, as: Timestamp.self))
    case .optionalTimestamp:
      return raw.load(fromByteOffset: offset, as: Timestamp?.self).map { .date($0) } ?? .null
    case .strings: return .strings(raw.load(fromByteOffset: offset, as: [String].self))
    case .optionalStrings:
      return raw.load(fromByteOffset: offset, as: [String]?.self).map { .strings($0) } ?? .null
    }
  }
}
