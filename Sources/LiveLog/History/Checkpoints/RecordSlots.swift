/// Which slots differ between two stored records (`RecordCodec`), compared by their encoded bytes.
///
/// Equal bytes mean equal values, so a slot reported unchanged holds the same value in both; the
/// converse need not hold (`0.0` and `-0.0`), which only makes a checkpoint list a row it could
/// have skipped. A slot past a record's stored ones reads as null, as it does in queries.
enum RecordSlots {
  static func changed(_ old: UnsafeRawBufferPointer, _ new: UnsafeRawBufferPointer) throws(MalformedBytes)
    -> [Int]
  {
    var a = ByteReader(old)
    var b = ByteReader(new)
    let countA = try RecordCodec.readHeader(&a)
    let countB = try RecordCodec.readHeader(&b)
    var changed: [Int] = []
    for slot in 0..<max(countA, countB) {
      let x = slot < countA ? try value(&a, in: old) : nil
      let y = slot < countB ? try value(&b, in: new) : nil
      if !same(x, y) { changed.append(slot) }
    }
    return changed
  }

  /// The bytes of the value at `reader`, which moves past it.
  private static func value(_ reader: inout ByteReader, in bytes: UnsafeRawBufferPointer)
    throws(MalformedBytes)
    -> UnsafeRawBufferPointer
  {
    let start = reader.offset
    try RecordCodec.skipValue(&reader)
    return UnsafeRawBufferPointer(rebasing: bytes[start..<reader.offset])
  }

  /// Whether two encoded values are the same; `nil` is a slot the record does not store: null.
  private static func same(_ x: UnsafeRawBufferPointer?, _ y: UnsafeRawBufferPointer?) -> Bool {
    let null = RecordCodec.Tag.null.rawValue
    switch (x, y) {
    case (nil, nil): return true
    case (let x?, nil): return x.count == 1 && x[0] == null
    case (nil, let y?): return y.count == 1 && y[0] == null
    case (let x?, let y?): return x.elementsEqual(y)
    }
  }
}
