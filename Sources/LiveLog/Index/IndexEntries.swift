/// Everything the indexes file for one record.
struct IndexEntries: Equatable, Sendable {
  /// Trigram postings of the substring-indexed fields, `code << 32 | position`, ascending: the
  /// code is `IndexKeys.trigramCode` and the position the byte offset of the trigram in the
  /// field's `[cd]`-folded text, so that a pattern's trigrams found at consecutive offsets prove
  /// the pattern itself is there. A field whose `[c]` fold differs from its `[cd]` fold (text a
  /// `[d]` fold changes) also files `IndexKeys.unplainCode` at position 0.
  var trigrams: [UInt64] = []
  /// Equality prefixes, ascending bytewise, distinct.
  var terms: [[UInt8]] = []
  /// Ordered-index values, one per ordered field, with row 0 (the row is the caller's).
  var ordered: [OrderedEntry] = []

  init() {}

  /// The entries of a record whose values (by slot) are `values`, for every index of `schema`.
  init(_ values: [FieldValue], schema: CollectionSchema) {
    self.init(values, fields: schema.indexedFields)
  }

  /// The entries for the indexes of `fields` only.
  init(_ values: [FieldValue], fields: [IndexedField]) {
    struct Collector: IndexEntrySink {
      var trigrams: [UInt64] = []
      var terms: [[UInt8]] = []
      var ordered: [OrderedEntry] = []
      mutating func trigram(_ posting: UInt64) { trigrams.append(posting) }
      mutating func term(_ prefix: UnsafeRawBufferPointer) { terms.append(Array(prefix)) }
      mutating func ordered(_ entry: OrderedEntry) { ordered.append(entry) }
    }
    var collector = Collector()
    var scratch: [UInt8] = []
    Self.forEach(in: values, fields: fields, scratch: &scratch, into: &collector)
    var trigrams = collector.trigrams
    let (terms, ordered) = (collector.terms, collector.ordered)
    // Its arrays released, so that sorting the copies taken above does not copy them again.
    collector = Collector()
    trigrams.sort()
    self.trigrams = trigrams
    self.terms = Self.ascendingDistinct(terms)
    self.ordered = ordered
  }

  /// `terms` as `IndexEntries.terms` holds them: ascending bytewise, distinct.
  static func ascendingDistinct(_ terms: [[UInt8]]) -> [[UInt8]] {
    // Most records file one term per field, already in field order; lists may repeat a value.
    if terms.indices.dropFirst().allSatisfy({ TextMatching.compare(terms[$0 - 1], terms[$0]) < 0 }) {
      return terms
    }
    let sorted = terms.sorted { TextMatching.compare($0, $1) < 0 }
    return sorted.indices.compactMap { $0 > 0 && sorted[$0 - 1] == sorted[$0] ? nil : sorted[$0] }
  }

  /// Hands `sink` what the indexes of `fields` file for a record whose values (by slot) are
  /// `values`: trigram postings field by field, each field's in the order of its text; terms as
  /// `IndexKeys.forEachTerm` gives them (a list may give one twice), through `scratch`; one value
  /// per ordered field, with row 0. `IndexEntries` lists entries here, and the fingerprints a
  /// verification computes from record bytes (`StateContent.fingerprint`) through the per-field
  /// functions below.
  static func forEach(
    in values: [FieldValue], fields: [IndexedField], scratch: inout [UInt8],
    into sink: inout some IndexEntrySink
  ) {
    for field in fields {
      let value = field.position < values.count ? values[field.position] : .null
      forEach(of: value, field: field, scratch: &scratch, into: &sink)
    }
  }

  /// `forEach(in:fields:scratch:into:)` for the encoded record `bytes` under `schema`, read in
  /// place: text that is all ASCII (most of it) goes to `sink` from its stored bytes, without the
  /// `String`s decoding the record makes, and fields without an index are skipped. What it reads
  /// it checks as decoding does (tags, lengths, UTF-8, each value's type). Fields past the slots
  /// the record stores hold nil, which files entries too. A verification's fingerprints and a
  /// replay's segments read records this way.
  static func forEach(
    inRecord bytes: UnsafeRawBufferPointer, schema: CollectionSchema, scratch: inout [UInt8],
    into sink: inout some IndexEntrySink
  ) throws(MalformedBytes) {
    var reader = ByteReader(bytes)
    let stored = try RecordCodec.readHeader(&reader)
    for slot in 0..<stored {
      guard let field = schema.indexedField(atSlot: slot) else {
        _ = try RecordCodec.skipValue(&reader)
        continue
      }
      var text = reader
      if field.type == .string, try text.readByte() == RecordCodec.Tag.string.rawValue {
        let utf8 = try text.readLengthPrefixed()
        if String.isASCII(utf8: utf8) {
          forEach(ascii: utf8, field: field, scratch: &scratch, into: &sink)
          reader = text
          continue
        }
      }
      let value = try RecordCodec.readValue(&reader)
      guard value.fits(field.type) else {
        throw MalformedBytes(
          offset: reader.offset,
          reason: "field \(schema.field(atSlot: slot)?.name ?? "\(slot)") holds a value of the wrong type")
      }
      forEach(of: value, field: field, scratch: &scratch, into: &sink)
    }
    guard reader.isAtEnd else {
      throw MalformedBytes(offset: reader.offset, reason: "\(reader.remaining) bytes after the last field")
    }
    for field in schema.indexedFields where field.position >= stored {
      forEach(of: .null, field: field, scratch: &scratch, into: &sink)
    }
  }

  /// `forEach(in:fields:scratch:into:)` for one field whose value is `value`.
  @inline(__always)
  static func forEach(
    of value: FieldValue, field: IndexedField, scratch: inout [UInt8], into sink: inout some IndexEntrySink
  ) {
    if field.indexes.contains(.substring), case .string(let text) = value {
      TrigramPostings.append(text, field: field.position) { sink.trigram($0) }
    }
    if field.indexes.contains(.equality) {
      IndexKeys.forEachTerm(of: value, field: field.position, scratch: &scratch) { sink.term($0) }
    }
    if field.indexes.contains(.ordered) {
      sink.ordered(
        OrderedEntry(
          field: UInt8(field.position), key: OrderedKey(value, type: field.type), row: 0,
          width: OrderedKey.width(of: field.type)))
    }
  }

  /// `forEach(of:field:scratch:into:)` for a string field whose value's UTF-8 `bytes` are all
  /// ASCII (`String.isASCII(utf8:)`), read where they are stored rather than made into a
  /// `String`. A string field has no ordered index (`FieldType.allowedIndexes`).
  @inline(__always)
  static func forEach(
    ascii bytes: UnsafeRawBufferPointer, field: IndexedField, scratch: inout [UInt8],
    into sink: inout some IndexEntrySink
  ) {
    if field.indexes.contains(.substring) {
      TrigramPostings.append(ascii: bytes, field: field.position) { sink.trigram($0) }
    }
    if field.indexes.contains(.equality) {
      scratch.removeAll(keepingCapacity: true)
      IndexKeys.appendTermPrefix(field: field.position, ascii: bytes, to: &scratch)
      scratch.withUnsafeBytes { sink.term($0) }
    }
  }
}

/// The trigram postings of one field's text.
enum TrigramPostings {
  /// The offsets of the trigrams that cover a pattern of `count` bytes (3 or more): 0, 3, 6, …
  /// and the last. Every byte of the pattern lies in one of them, so finding each at its offset
  /// from one start finds the pattern.
  static func coveringOffsets(count: Int) -> [Int] {
    var offsets = Array(stride(from: 0, to: count - 2, by: 3))
    if offsets.last != count - 3 { offsets.append(count - 3) }
    return offsets
  }

  /// Calls `body` with `code << 32 | position` for every trigram of `text`'s `[cd]` fold, in
  /// position order, then with the unplain marker when the `[c]` fold differs.
  @inline(__always)
  static func append(_ text: String, field: Int, _ body: (UInt64) -> Void) {
    var handled = false
    // ASCII text (most of it): the `[cd]` fold is a lowercasing, and equals the `[c]` fold.
    text.utf8.withContiguousStorageIfAvailable { bytes in
      let bytes = UnsafeRawBufferPointer(bytes)
      guard String.isASCII(utf8: bytes) else { return }
      handled = true
      append(ascii: bytes, field: field, body)
    }
    if handled { return }
    let folded = TextFolding.fold(text, TextFolding.all)
    if folded.count >= 3 {
      for index in 0..<(folded.count - 2) {
        let code = IndexKeys.trigramCode(field: field, folded[index], folded[index + 1], folded[index + 2])
        body(UInt64(code) << 32 | UInt64(index))
      }
    }
    if TextFolding.fold(text, .caseInsensitive) != folded {
      body(UInt64(IndexKeys.unplainCode(field: field)) << 32)
    }
  }

  /// `append(_:field:_:)` of text whose UTF-8 `bytes` are all ASCII (`String.isASCII(utf8:)`):
  /// its folds are a lowercasing, so no unplain marker follows.
  @inline(__always)
  static func append(ascii bytes: UnsafeRawBufferPointer, field: Int, _ body: (UInt64) -> Void) {
    guard bytes.count >= 3 else { return }
    @inline(__always) func lower(_ byte: UInt8) -> UInt32 {
      UInt32(byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte)
    }
    let base = UInt32(field) << 24
    var a = lower(bytes[0])
    var b = lower(bytes[1])
    for index in 2..<bytes.count {
      let c = lower(bytes[index])
      body(UInt64(base | a << 16 | b << 8 | c) << 32 | UInt64(index - 2))
      a = b
      b = c
    }
  }
}
