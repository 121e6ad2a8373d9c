extension RecentEntry {
  /// The entry of a deleted row.
  static func encodeDeleted(lsn: UInt64, key: UnsafeRawBufferPointer) -> [UInt8] {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(16 + key.count)
    appendHeader(flags: 1, lsn: lsn, key: key, to: &bytes)
    return bytes
  }

  /// The entry of a row that is not deleted: its header, then `indexes` (`Encoder.indexes`).
  static func entry(isNew: Bool, lsn: UInt64, key: UnsafeRawBufferPointer, indexes: [UInt8]) -> [UInt8] {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(16 + key.count + indexes.count)
    appendHeader(flags: (isNew ? 2 : 0) | 4, lsn: lsn, key: key, to: &bytes)
    bytes.append(contentsOf: indexes)
    return bytes
  }

  fileprivate static func appendHeader(
    flags: UInt8, lsn: UInt64, key: UnsafeRawBufferPointer, to bytes: inout [UInt8]
  ) {
    bytes.append(flags)
    PageBytes.appendVarint(lsn, to: &bytes)
    PageBytes.appendVarint(UInt64(key.count), to: &bytes)
    bytes.append(contentsOf: key)
  }

  /// Writes what the indexes file for each record of rows that are not deleted (as
  /// `IndexEntries` lists it, the trigrams' positions left out): the part of an entry after its
  /// header (`RecentEntry.entry`). One encoder serves a thread's share of a commit's rows, so
  /// that its buffers are reused rather than made once a row: these parts are the largest part
  /// of a small commit's time.
  struct Encoder: IndexEntrySink {
    private var codes: [UInt32] = []
    /// The terms' bytes one after another, each ending at its `termEnds`.
    private var termBytes: [UInt8] = []
    private var termEnds: [Int] = []
    private var ordered: [OrderedEntry] = []
    private var scratch: [UInt8] = []

    init() {}

    /// The part of an entry after its header: what the indexes file for a record whose values
    /// (by slot) are `values`, under `fields`. It depends on the record alone, so that it can be
    /// encoded before the commit knows the row's version (`RecentIndexJob`).
    mutating func indexes(values: [FieldValue], fields: [IndexedField]) -> [UInt8] {
      codes.removeAll(keepingCapacity: true)
      termBytes.removeAll(keepingCapacity: true)
      termEnds.removeAll(keepingCapacity: true)
      ordered.removeAll(keepingCapacity: true)
      var scratch: [UInt8] = []
      swap(&scratch, &self.scratch)
      IndexEntries.forEach(in: values, fields: fields, scratch: &scratch, into: &self)
      swap(&scratch, &self.scratch)

      var bytes: [UInt8] = []
      let filterSize = TrigramFilter.byteCount(postings: codes.count)
      bytes.reserveCapacity(16 + filterSize + termBytes.count + ordered.count * 14)
      appendFilter(of: filterSize, to: &bytes)
      appendTerms(to: &bytes)
      PageBytes.appendVarint(UInt64(ordered.count), to: &bytes)
      for entry in ordered {
        bytes.append(entry.field)
        bytes.append(entry.key.flag)
        withUnsafeBytes(of: entry.key.high.littleEndian) { bytes.append(contentsOf: $0) }
        withUnsafeBytes(of: entry.key.low.littleEndian) { bytes.append(contentsOf: $0) }
      }
      return bytes
    }

    mutating func trigram(_ posting: UInt64) { codes.append(UInt32(truncatingIfNeeded: posting >> 32)) }

    mutating func term(_ prefix: UnsafeRawBufferPointer) {
      termBytes.append(contentsOf: prefix)
      termEnds.append(termBytes.count)
    }

    mutating func ordered(_ entry: OrderedEntry) { ordered.append(entry) }

    /// The codes' filter (`TrigramFilter`), `size` bytes, after its size.
    private func appendFilter(of size: Int, to bytes: inout [UInt8]) {
      PageBytes.appendVarint(UInt64(size), to: &bytes)
      let start = bytes.count
      bytes.append(contentsOf: repeatElement(0, count: size))
      bytes.withUnsafeMutableBytes { out in
        let filter = UnsafeMutableRawBufferPointer(rebasing: out[start..<(start + size)])
        for code in codes { TrigramFilter.insert(code, into: filter) }
      }
    }

    /// The terms, ascending and distinct: as filed when they already are (most records file one
    /// term a field, in field order), else put so through `IndexEntries.ascendingDistinct`.
    private mutating func appendTerms(to bytes: inout [UInt8]) {
      let ascending = termBytes.withUnsafeBytes { all in
        termEnds.indices.dropFirst().allSatisfy { index in
          let before = index > 1 ? termEnds[index - 2] : 0
          return ByteOrder.compare(
            UnsafeRawBufferPointer(rebasing: all[before..<termEnds[index - 1]]),
            UnsafeRawBufferPointer(rebasing: all[termEnds[index - 1]..<termEnds[index]])) < 0
        }
      }
      if !ascending {
        let terms = IndexEntries.ascendingDistinct(
          termEnds.indices.map { Array(termBytes[($0 > 0 ? termEnds[$0 - 1] : 0)..<termEnds[$0]]) })
        termBytes.removeAll(keepingCapacity: true)
        termEnds.removeAll(keepingCapacity: true)
        for term in terms { term.withUnsafeBytes { self.term($0) } }
      }
      PageBytes.appendVarint(UInt64(termEnds.count), to: &bytes)
      var start = 0
      for end in termEnds {
        PageBytes.appendVarint(UInt64(end - start), to: &bytes)
        bytes.append(contentsOf: termBytes[start..<end])
        start = end
      }
    }
  }
}
