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
    appendHeader(flags: isNew ? 2 : 0, lsn: lsn, key: key, to: &bytes)
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
    private var spare: [UInt32] = []
    private var counts: [Int32] = []
    /// The terms' bytes one after another, each ending at its `termEnds`.
    private var termBytes: [UInt8] = []
    private var termEnds: [Int] = []
    private var ordered: [OrderedEntry] = []
    private var scratch: [UInt8] = []

    init() {}

    /// The part of an entry after its header: what the indexes file for a record whose values
    /// (by slot) are `values`, under `fields`. It depends on the record alone, so that it can be
    /// encoded before the commit knows the row's version (`RecentIndexJob`).
    mutating func indexes(values: [FieldValue], fields: [Field]) -> [UInt8] {
      codes.removeAll(keepingCapacity: true)
      termBytes.removeAll(keepingCapacity: true)
      termEnds.removeAll(keepingCapacity: true)
      ordered.removeAll(keepingCapacity: true)
      var scratch: [UInt8] = []
      swap(&scratch, &self.scratch)
      IndexEntries.forEach(in: values, fields: fields, scratch: &scratch, into: &self)
      swap(&scratch, &self.scratch)
      sortCodes()

      var bytes: [UInt8] = []
      bytes.reserveCapacity(16 + codes.count * 4 + termBytes.count + ordered.count * 14)
      appendCodes(to: &bytes)
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

    /// The distinct codes (sorted), each as four bytes.
    private func appendCodes(to bytes: inout [UInt8]) {
      var distinct = 0
      for index in codes.indices where index == 0 || codes[index - 1] != codes[index] { distinct += 1 }
      PageBytes.appendVarint(UInt64(distinct), to: &bytes)
      let start = bytes.count
      bytes.append(contentsOf: repeatElement(0, count: distinct * 4))
      bytes.withUnsafeMutableBytes { out in
        var offset = start
        for index in codes.indices where index == 0 || codes[index - 1] != codes[index] {
          out.storeBytes(of: codes[index].littleEndian, toByteOffset: offset, as: UInt32.self)
          offset += 4
        }
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

    /// Puts `codes` in ascending order. A code's top byte is its field, and fields come one after
    /// another (`IndexEntries.forEach`), so each field's codes are sorted on their own by the
    /// three bytes of their trigram; the runs are then in order unless a schema lists its fields
    /// out of slot order. (The standard library's sort took a fifth of a small commit's time.)
    private mutating func sortCodes() {
      if spare.count < codes.count {
        spare = [UInt32](repeating: 0, count: max(codes.count, 2 * spare.count))
      }
      if counts.isEmpty { counts = [Int32](repeating: 0, count: 3 * 256) }
      var (spare, counts): ([UInt32], [Int32]) = ([], [])
      swap(&spare, &self.spare)
      swap(&counts, &self.counts)
      codes.withUnsafeMutableBufferPointer { codes in
        spare.withUnsafeMutableBufferPointer { spare in
          counts.withUnsafeMutableBufferPointer { counts in
            var start = 0
            while start < codes.count {
              let field = codes[start] >> 24
              var end = start + 1
              while end < codes.count && codes[end] >> 24 == field { end += 1 }
              Self.sortTrigrams(
                UnsafeMutableBufferPointer(rebasing: codes[start..<end]),
                spare: UnsafeMutableBufferPointer(rebasing: spare[0..<(end - start)]), counts: counts)
              start = end
            }
          }
        }
        if !codes.indices.dropFirst().allSatisfy({ codes[$0 - 1] <= codes[$0] }) { codes.sort() }
      }
      swap(&spare, &self.spare)
      swap(&counts, &self.counts)
    }

    /// Sorts codes that share their top byte, through `spare` (as many places) and `counts`
    /// (3 × 256). They are put in buckets by the trigram's first byte and then sorted by
    /// insertion, which moves each only within its bucket; when a bucket holds many (text of few
    /// letters, or made to), by their three low bytes, least significant first, a pass a byte,
    /// whose time no input lengthens.
    static func sortTrigrams(
      _ codes: UnsafeMutableBufferPointer<UInt32>, spare: UnsafeMutableBufferPointer<UInt32>,
      counts: UnsafeMutableBufferPointer<Int32>
    ) {
      let count = codes.count
      if count <= 16 {
        insertionSort(codes, from: codes)
        return
      }
      // The counts are 32-bit: a field of two billion trigrams (text of 2 GiB) is sorted otherwise.
      guard count < Int(Int32.max) else {
        var whole = codes
        whole.sort()
        return
      }
      counts.update(repeating: 0)
      var (largest, lowest, highest): (Int32, Int, Int) = (0, 255, 0)
      for code in codes {
        let bucket = Int(code >> 16 & 0xFF)
        counts[512 + bucket] &+= 1
        largest = max(largest, counts[512 + bucket])
        lowest = min(lowest, bucket)
        highest = max(highest, bucket)
      }
      if largest <= 16 {
        // Text uses few first bytes (letters, digits, a space): only theirs are summed.
        startingPlaces(counts, (512 + lowest)...(512 + highest))
        for code in codes {
          let bucket = 512 + Int(code >> 16 & 0xFF)
          spare[Int(counts[bucket])] = code
          counts[bucket] &+= 1
        }
        insertionSort(codes, from: spare)
        return
      }
      for code in codes {
        counts[Int(code & 0xFF)] &+= 1
        counts[256 + Int(code >> 8 & 0xFF)] &+= 1
      }
      var source = codes
      var target = spare
      for digit in 0..<3 {
        let base = digit * 256
        let shift = UInt32(digit * 8)
        // A byte every code shares orders nothing.
        if counts[base + Int(source[0] >> shift & 0xFF)] == Int32(count) { continue }
        startingPlaces(counts, base...(base + 255))
        for code in source {
          let bucket = base + Int(code >> shift & 0xFF)
          target[Int(counts[bucket])] = code
          counts[bucket] &+= 1
        }
        swap(&source, &target)
      }
      if source.baseAddress != codes.baseAddress { _ = codes.update(fromContentsOf: source) }
    }

    /// Turns the counts of `buckets` into each bucket's first place: the codes of the buckets
    /// before it.
    @inline(__always)
    private static func startingPlaces(
      _ counts: UnsafeMutableBufferPointer<Int32>, _ buckets: ClosedRange<Int>
    ) {
      var place: Int32 = 0
      for bucket in buckets {
        let size = counts[bucket]
        counts[bucket] = place
        place &+= size
      }
    }

    /// Writes `source`'s codes into `codes`, ascending, each moved past the larger ones before
    /// it: time that grows with how far each is from its place, short when few are far.
    @inline(__always)
    private static func insertionSort(
      _ codes: UnsafeMutableBufferPointer<UInt32>, from source: UnsafeMutableBufferPointer<UInt32>
    ) {
      for index in 0..<codes.count {
        let code = source[index]
        var place = index
        while place > 0 && codes[place - 1] > code {
          codes[place] = codes[place - 1]
          place -= 1
        }
        codes[place] = code
      }
    }
  }
}
