/// The index entries of a run of rows, gathered in row order straight from their field values
/// and laid out as one segment's pages: how a fold writes the rows it adds, and how a replay or a
/// large commit writes theirs.
///
/// Built for bulk: a trigram posting is two words in flat arrays (its code with its place, and
/// its row with its position), sorted once by code with a stable radix sort, so each code's
/// postings come out in row order; terms are interned in a hash table of their own over one
/// byte arena; ordered values are sorted per field. Nothing is allocated per record. A large run
/// is split between two builders that work at once (`build`), whose sorted parts are merged when
/// the pages are written, in lanes on every core (`pages`).
struct SegmentBuilder: Sendable {
  private let schema: CollectionSchema
  private let substring: [Int]
  /// The slots of the fields with equality terms (not the fields: copying one per row retained
  /// its name).
  private let equality: [Int]
  private let orderedFields: [(slot: UInt8, width: Int, type: FieldType)]
  /// The slot of the primary key when it is an integer: the ids covering pages carry.
  private let integerKeySlot: Int?
  /// Each slot's place in `orderedFields` (-1: none), for entries that name their field.
  private let orderedPlaces: [Int]

  /// Each trigram posting as `code << 32 | low`: packed, `low` is the row's offset from `base`
  /// (17 bits) and the position (15 bits), so that sorting the keys alone lays every posting out
  /// in order (rows ascending within a code, positions within a row); else (`postings` is not
  /// empty, for a run with a longer text or more rows) `low` is the posting's place in
  /// `postings`.
  private var trigramKeys: [UInt64] = []
  /// `row << 32 | position`, once a posting did not pack.
  private var postings: [UInt64] = []
  private var base: Row?
  private var isPacked = true
  private var terms = TermTable()
  /// Per ordered field (in `orderedFields` order): `(key, row, id)`.
  private var ordered: [[(OrderedKey, Row, Int64)]]
  private var scratch: [UInt8] = []
  private(set) var rowCount = 0

  /// An empty builder for `schema`'s entries; its trigram keys fill a buffer `buffers` hands
  /// it, when given (`SegmentBuffers`).
  init(schema: CollectionSchema, buffers: SegmentBuffers? = nil) {
    trigramKeys = buffers?.take() ?? []
    trigramKeys.removeAll(keepingCapacity: true)
    self.schema = schema
    substring = schema.indexedFields.filter { $0.indexes.contains(.substring) }.map(\.position)
    equality = schema.indexedFields.filter { $0.indexes.contains(.equality) }.map(\.position)
    orderedFields = OrderedColumns.orderedFields(of: schema).map {
      (UInt8(truncatingIfNeeded: $0.position), OrderedKey.width(of: $0.type), $0.type)
    }
    ordered = Array(repeating: [], count: orderedFields.count)
    integerKeySlot = schema.primaryKey.type == .integer ? schema.primaryKey.position : nil
    var places = [Int](repeating: -1, count: 256)
    for (place, field) in orderedFields.enumerated() { places[Int(field.slot)] = place }
    orderedPlaces = places
  }

  var isEmpty: Bool { rowCount == 0 }

  /// Adds the entries of `row`, whose values (by slot) are `values`; rows come in ascending order.
  mutating func add(row: Row, values: [FieldValue]) {
    rowCount += 1
    for slot in substring {
      guard slot < values.count, case .string(let text) = values[slot] else { continue }
      TrigramPostings.append(text, field: slot) { posting in addTrigram(posting, row: row) }
    }
    for slot in equality {
      let value = slot < values.count ? values[slot] : .null
      IndexKeys.forEachTerm(of: value, field: slot, scratch: &scratch) { term in
        terms.add(term, row: row)
      }
    }
    var id: Int64 = 0
    if let slot = integerKeySlot, slot < values.count, case .integer(let key) = values[slot] { id = key }
    for (index, field) in orderedFields.enumerated() {
      let value = Int(field.slot) < values.count ? values[Int(field.slot)] : .null
      ordered[index].append((OrderedKey(value, type: field.type), row, id))
    }
  }

  /// Adds the entries of `row`, whose stored record (under the builder's schema) is `bytes`, read
  /// in place (`IndexEntries.forEach(inRecord:schema:scratch:into:)`); rows come in ascending
  /// order. A replay's segment was built from decoded values before: decoding its records took
  /// about a fifth of its layout, and reading each one's ordered values for the columns again
  /// another twentieth (`columnChanges(of:)` takes them from the builders now).
  mutating func add(row: Row, record bytes: UnsafeRawBufferPointer) throws(MalformedBytes) {
    var id: Int64 = 0
    if let slot = integerKeySlot, case .integer(let key) = try RecordCodec.value(atSlot: slot, in: bytes) {
      id = key
    }
    rowCount += 1
    // Taken out, so that the sink's pointer to the builder is the only access to it meanwhile.
    var scratch: [UInt8] = []
    swap(&scratch, &self.scratch)
    defer { swap(&scratch, &self.scratch) }
    let schema = self.schema
    try withUnsafeMutablePointer(to: &self) { builder throws(MalformedBytes) in
      var sink = RecordSink(builder: builder, row: row, id: id)
      try IndexEntries.forEach(inRecord: bytes, schema: schema, scratch: &scratch, into: &sink)
    }
  }

  /// Files the entries `IndexEntries.forEach` lists for one row in its builder.
  private struct RecordSink: IndexEntrySink {
    let builder: UnsafeMutablePointer<SegmentBuilder>
    let row: Row
    let id: Int64

    mutating func trigram(_ posting: UInt64) { builder.pointee.addTrigram(posting, row: row) }

    mutating func term(_ prefix: UnsafeRawBufferPointer) { builder.pointee.terms.add(prefix, row: row) }

    mutating func ordered(_ entry: OrderedEntry) {
      let place = builder.pointee.orderedPlaces[Int(entry.field)]
      builder.pointee.ordered[place].append((entry.key, row, id))
    }
  }

  /// The ordered columns' changes of the rows of `parts` (as `build` returns them), in row order:
  /// each row has one value per ordered field, in the order of the schema's fields, as
  /// `OrderedColumns.change(row:values:fields:)` makes them.
  static func columnChanges(of parts: [SegmentBuilder]) -> [OrderedColumns.Change] {
    assert(
      parts.allSatisfy { part in part.ordered.allSatisfy { $0.count == part.rowCount } },
      "every row files one value per ordered field")
    var changes: [OrderedColumns.Change] = []
    changes.reserveCapacity(parts.reduce(0) { $0 + $1.rowCount })
    for part in parts {
      guard let first = part.ordered.first else { continue }
      for index in first.indices {
        changes.append(
          OrderedColumns.Change(
            row: first[index].1,
            keys: part.orderedFields.indices.map { (part.orderedFields[$0].slot, part.ordered[$0][index].0) })
        )
      }
    }
    return changes
  }

  /// Files one posting, `code << 32 | position`, of `row`.
  @inline(__always)
  private mutating func addTrigram(_ posting: UInt64, row: Row) {
    let start = base ?? row
    base = start
    let offset = UInt64(row - start)
    let position = posting & 0xFFFF_FFFF
    if isPacked && offset < 1 << 17 && position < 1 << 15 {
      trigramKeys.append(posting & 0xFFFF_FFFF_0000_0000 | offset << 15 | position)
      return
    }
    if isPacked {
      // Unpack what is filed so far: postings in their own array from now on.
      isPacked = false
      for index in trigramKeys.indices {
        let key = trigramKeys[index]
        let row = start + Row(truncatingIfNeeded: (key & 0xFFFF_FFFF) >> 15)
        postings.append(UInt64(row) << 32 | (key & 0x7FFF))
        trigramKeys[index] = key & 0xFFFF_FFFF_0000_0000 | UInt64(index)
      }
    }
    trigramKeys.append(posting & 0xFFFF_FFFF_0000_0000 | UInt64(postings.count))
    postings.append(UInt64(row) << 32 | position)
  }

  /// The row and position of a sorted trigram key.
  @inline(__always)
  fileprivate static func posting(
    _ key: UInt64, packed: Bool, base: Row, postings: UnsafeBufferPointer<UInt64>
  ) -> (row: Row, position: UInt32) {
    if packed {
      return (
        base + Row(truncatingIfNeeded: (key & 0xFFFF_FFFF) >> 15), UInt32(truncatingIfNeeded: key & 0x7FFF)
      )
    }
    let posting = postings[Int(truncatingIfNeeded: key & 0xFFFF_FFFF)]
    return (Row(truncatingIfNeeded: posting >> 32), UInt32(truncatingIfNeeded: posting))
  }

  /// Builds the entries of `rows` (ascending) on up to two cores at once; `values(i)` gives the
  /// values of `rows[i]`. The builders cover consecutive runs of the rows, in order.
  /// `buffers`, when given, lends the builders their large buffers (`SegmentBuffers`); give them
  /// back with `giveBack(to:)` once the pages are laid out.
  static func build(
    schema: CollectionSchema, rows: [Row], buffers: SegmentBuffers? = nil,
    values: @Sendable (Int) throws -> [FieldValue]
  ) throws -> [SegmentBuilder] {
    try build(schema: schema, rows: rows, buffers: buffers) { builder, index in
      builder.add(row: rows[index], values: try values(index))
    }
  }

  /// `build(schema:rows:buffers:values:)` of stored records: `records(i)` gives the bytes of
  /// `rows[i]`'s record (`add(row:record:)`); a record that does not decode under `schema` is a
  /// corrupt state, named with its row.
  static func build(
    schema: CollectionSchema, rows: [Row], buffers: SegmentBuffers? = nil,
    records: @Sendable (Int) throws -> UnsafeRawBufferPointer
  ) throws -> [SegmentBuilder] {
    try build(schema: schema, rows: rows, buffers: buffers) { builder, index in
      let bytes = try records(index)
      do {
        try builder.add(row: rows[index], record: bytes)
      } catch {
        throw StoreError.undecodable(recordAt: rows[index], in: schema.name, error)
      }
    }
  }

  private static func build(
    schema: CollectionSchema, rows: [Row], buffers: SegmentBuffers?,
    adding add: @Sendable (inout SegmentBuilder, Int) throws -> Void
  ) throws -> [SegmentBuilder] {
    let halves = rows.count >= 4_096 ? 2 : 1
    return try ParallelMap.map(halves, minimumPerWorker: 1) { half in
      var builder = SegmentBuilder(schema: schema, buffers: buffers)
      for index in (rows.count * half / halves)..<(rows.count * (half + 1) / halves) {
        try add(&builder, index)
      }
      builder.sortTrigrams(buffers: buffers)
      return builder
    }
  }

  /// Gives the builder's trigram buffers back to `buffers` for the next build, leaving it empty
  /// of trigrams: once its pages are laid out.
  mutating func giveBack(to buffers: SegmentBuffers) {
    buffers.giveBack(&trigramKeys)
    buffers.giveBack(&postings)
  }

  /// Sorts the trigram keys by code, keeping each code's postings in the order they came (rows
  /// ascending): a least-significant-digit radix sort over the code's 32 bits in three digits of
  /// 11, 11 and 10 bits. One read of the keys counts every digit; then each digit on which the
  /// keys differ moves them once. The passes run over raw buffers: a replay sorts tens of
  /// millions of keys, and the arrays' bounds and uniqueness checks cost as much as the moves.
  /// The sort's second buffer comes from `buffers`, when given, and goes back to it.
  mutating func sortTrigrams(buffers: SegmentBuffers? = nil) {
    var spare = buffers?.take() ?? []
    Self.sortByCode(&trigramKeys, spare: &spare)
    buffers?.giveBack(&spare)
  }

  /// `sortTrigrams` on its own: `keys` stably sorted by their high 32 bits. `spare`, a buffer of
  /// any length, is the sort's second buffer when it has the room; it holds the other one after.
  static func sortByCode(_ keys: inout [UInt64], spare: inout [UInt64]) {
    let count = keys.count
    guard count > 1 else { return }
    // Taken out, so that the passes write the buffers in place rather than copying them.
    var source: [UInt64] = []
    swap(&source, &keys)
    // Every element is written by the first pass before any is read: a new buffer is left
    // uninitialized, and a spare one keeps what it holds, cut or lengthened to `count` (a spare
    // from an earlier sort of about as many keys is written over, hardly lengthened).
    var target: [UInt64] = []
    swap(&target, &spare)
    if target.capacity < count {
      target = [UInt64](unsafeUninitializedCapacity: count) { _, initialized in initialized = count }
    } else if target.count > count {
      target.removeLast(target.count - count)
    } else {
      target.append(contentsOf: repeatElement(0, count: count - target.count))
    }
    let low: (shift: UInt64, mask: UInt64) = (32, 0x7FF)
    let middle: (shift: UInt64, mask: UInt64) = (43, 0x7FF)
    let high: (shift: UInt64, mask: UInt64) = (54, 0x3FF)
    let digits = [low, middle, high]
    var counts = [Int](repeating: 0, count: digits.count * 2048)
    counts.withUnsafeMutableBufferPointer { counts in
      // The three digits spelled out rather than looped over: this read sees every key.
      source.withUnsafeBufferPointer { stored in
        for key in stored {
          counts[Int(truncatingIfNeeded: (key >> low.shift) & low.mask)] += 1
          counts[2048 + Int(truncatingIfNeeded: (key >> middle.shift) & middle.mask)] += 1
          counts[4096 + Int(truncatingIfNeeded: (key >> high.shift) & high.mask)] += 1
        }
      }
      for (digit, (shift, mask)) in digits.enumerated() {
        let base = digit * 2048
        // A digit every key shares orders nothing.
        if counts[base + Int(truncatingIfNeeded: (source[0] >> shift) & mask)] == count { continue }
        // Each bucket's first place.
        var place = 0
        for bucket in base..<(base + 2048) {
          let size = counts[bucket]
          counts[bucket] = place
          place += size
        }
        source.withUnsafeBufferPointer { stored in
          target.withUnsafeMutableBufferPointer { moved in
            for key in stored {
              let bucket = base + Int(truncatingIfNeeded: (key >> shift) & mask)
              moved[counts[bucket]] = key
              counts[bucket] += 1
            }
          }
        }
        swap(&source, &target)
      }
    }
    swap(&source, &keys)
    swap(&target, &spare)
  }

  /// The pages of one segment holding the entries of `parts` (consecutive runs of rows, in
  /// order, each with its trigrams sorted), in key order: trigram lists, terms, ordered values.
  /// They are laid out in lanes on every core, as a merge's are (`SegmentMerger`): the trigram
  /// lists, the larger share, cut by code into `trigramPieces` (by default one per core, and
  /// one per `postingsPerPiece` postings at most), then the terms and each ordered field. With
  /// the trigrams in one lane and the rest in another, one core laid out the last third of a
  /// replay's segment alone. `coversKeys`: the ordered pages carry each row's key (the
  /// collection's `SegmentDirectory.coversKeys`).
  static func pages(
    _ parts: [SegmentBuilder], segment: Row, coversKeys: Bool, trigramPieces: Int? = nil
  ) -> [(key: [UInt8], value: [UInt8])] {
    let postings = parts.first?.trigramKeys.count ?? 0
    let pieces = trigramPieces ?? max(1, min(ParallelMap.cores, postings / postingsPerPiece))
    let lanes = Self.lanes(parts, trigramPieces: pieces)
    // The closure throws nothing, so `try?` loses nothing.
    let laidOut: [[(key: [UInt8], value: [UInt8])]] =
      (try? ParallelMap.map(lanes.count, minimumPerWorker: 1) { index in
        var pages: [(key: [UInt8], value: [UInt8])] = []
        switch lanes[index] {
        case .trigrams(let codes): writeTrigrams(parts, segment: segment, codes: codes, into: &pages)
        case .terms: writeTerms(parts, segment: segment, into: &pages)
        case .ordered(let field):
          writeOrdered(parts, field: field, segment: segment, coversKeys: coversKeys, into: &pages)
        }
        return pages
      }) ?? []
    // Lanes follow one another in key order, and so do their pages.
    return laidOut.flatMap { $0 }
  }

  /// The fewest postings (of the first part) a lane of trigram lists is cut for by default: a
  /// small fold's lists are laid out at once, in less time than handing them out would take.
  static let postingsPerPiece = 65_536

  /// A share of a segment's pages laid out on its own (`pages`).
  enum Lane: Sendable {
    /// The trigram lists whose codes lie in the range.
    case trigrams(Range<UInt64>)
    case terms
    /// One ordered field's entries, by its index in the builders' ordered fields.
    case ordered(Int)
  }

  /// The lanes of `parts`' pages, in the order of their keys: the trigram codes cut into up to
  /// `trigramPieces` ranges of about equal counts of postings (of the first part, whose codes
  /// spread as the other's do: both are runs of the same records), the terms, and each ordered
  /// field by slot, as its keys go.
  static func lanes(_ parts: [SegmentBuilder], trigramPieces: Int) -> [Lane] {
    let keys = parts.first?.trigramKeys ?? []
    var cuts: [UInt64] = []
    for piece in 1..<max(1, trigramPieces) where !keys.isEmpty {
      let code = keys[keys.count * piece / trigramPieces] >> 32
      // A code of many postings may hold several quantiles: one cut at most.
      if code > (cuts.last ?? 0) { cuts.append(code) }
    }
    let bounds = [0] + cuts + [1 << 32]
    var lanes = (0..<(bounds.count - 1)).map { Lane.trigrams(bounds[$0]..<bounds[$0 + 1]) }
    lanes.append(.terms)
    if let first = parts.first {
      lanes += first.orderedFields.indices.sorted {
        first.orderedFields[$0].slot < first.orderedFields[$1].slot
      }
      .map { .ordered($0) }
    }
    return lanes
  }

  /// The trigram lists of `parts` whose codes lie in `codes`.
  private static func writeTrigrams(
    _ parts: [SegmentBuilder], segment: Row, codes: Range<UInt64>,
    into pages: inout [(key: [UInt8], value: [UInt8])]
  ) {
    // `build` makes one or two parts: walk both at once, through their buffers (a loop over an
    // array of builders would copy each builder, and retain its arrays, for every code).
    precondition(parts.count <= 2, "a segment is built from at most two parts")
    let empty: [UInt64] = []
    let keysA = parts.first?.trigramKeys ?? empty
    let postingsA = parts.first?.postings ?? empty
    let keysB = parts.count > 1 ? parts[1].trigramKeys : empty
    let postingsB = parts.count > 1 ? parts[1].postings : empty
    let packedA = parts.first?.isPacked ?? true
    let packedB = parts.count > 1 ? parts[1].isPacked : true
    let baseA = parts.first?.base ?? 0
    let baseB = parts.count > 1 ? parts[1].base ?? 0 : 0
    var writer = PostingPageWriter(segment: segment, kind: .trigram)
    var list = TrigramList()
    keysA.withUnsafeBufferPointer { keysA in
      postingsA.withUnsafeBufferPointer { postingsA in
        keysB.withUnsafeBufferPointer { keysB in
          postingsB.withUnsafeBufferPointer { postingsB in
            let a = TrigramList.Run(keys: keysA, postings: postingsA, packed: packedA, base: baseA)
            let b = TrigramList.Run(keys: keysB, postings: postingsB, packed: packedB, base: baseB)
            var i = a.first(atOrAbove: codes.lowerBound)
            var j = b.first(atOrAbove: codes.lowerBound)
            let endA = a.first(atOrAbove: codes.upperBound)
            let endB = b.first(atOrAbove: codes.upperBound)
            while i < endA || j < endB {
              let code = min(i < endA ? keysA[i] >> 32 : .max, j < endB ? keysB[j] >> 32 : .max)
              list.clear()
              i = list.take(a, from: i, code: code)
              j = list.take(b, from: j, code: code)
              list.write(code: code, to: &writer)
              if writer.hasPages { pages.append(contentsOf: writer.takePages()) }
            }
          }
        }
      }
    }
    writer.flush()
    pages.append(contentsOf: writer.takePages())
  }

  /// One trigram's postings gathered from the sorted runs of the parts: its rows, and each
  /// row's positions. A value type of its own, so that gathering is checked for exclusive access
  /// when compiled rather than at every posting.
  private struct TrigramList {
    /// A part's sorted keys and how to read them.
    struct Run {
      let keys: UnsafeBufferPointer<UInt64>
      let postings: UnsafeBufferPointer<UInt64>
      let packed: Bool
      let base: Row

      /// Where the keys of codes `code` and above begin: the keys are sorted by code.
      func first(atOrAbove code: UInt64) -> Int {
        var low = 0
        var high = keys.count
        while low < high {
          let middle = (low + high) / 2
          if keys[middle] >> 32 < code { low = middle + 1 } else { high = middle }
        }
        return low
      }
    }

    private var rows: [Row] = []
    private var bounds: [Int] = [0]
    private var positions: [UInt32] = []

    mutating func clear() {
      rows.removeAll(keepingCapacity: true)
      bounds.removeAll(keepingCapacity: true)
      bounds.append(0)
      positions.removeAll(keepingCapacity: true)
    }

    /// Takes `run`'s postings of `code` from `start` on; returns where the next code begins.
    mutating func take(_ run: Run, from start: Int, code: UInt64) -> Int {
      var at = start
      while at < run.keys.count && run.keys[at] >> 32 == code {
        let (row, position) = SegmentBuilder.posting(
          run.keys[at], packed: run.packed, base: run.base, postings: run.postings)
        // A trigram at several positions of one row: one posting with them all.
        if rows.last != row {
          if !rows.isEmpty { bounds.append(positions.count) }
          rows.append(row)
        }
        positions.append(position)
        at += 1
      }
      return at
    }

    mutating func write(code: UInt64, to writer: inout PostingPageWriter) {
      bounds.append(positions.count)
      IndexKeys.withTrigramPrefix(UInt32(truncatingIfNeeded: code)) { key in
        rows.withUnsafeBufferPointer { r in
          bounds.withUnsafeBufferPointer { b in
            positions.withUnsafeBufferPointer { p in
              writer.add(key: key, PostingListSource(rows: r, bounds: b, positions: p))
            }
          }
        }
      }
    }
  }

  private static func writeTerms(
    _ parts: [SegmentBuilder], segment: Row, into pages: inout [(key: [UInt8], value: [UInt8])]
  ) {
    precondition(parts.count <= 2, "a segment is built from at most two parts")
    var writer = PostingPageWriter(segment: segment, kind: .term)
    // Both parts' tables held once, as `writeTrigrams` holds their keys: read through the array
    // of builders, a table was copied (and each of its arrays retained) at every step.
    let a = parts.first?.terms ?? TermTable()
    let b = parts.count > 1 ? parts[1].terms : TermTable()
    let orderA = a.sortedIDs()
    let orderB = b.sortedIDs()
    let rowsA = a.rowsByTerm()
    let rowsB = b.rowsByTerm()
    var i = 0
    var j = 0
    var rows: [Row] = []
    while i < orderA.count || j < orderB.count {
      // The smaller next term, or both parts' when they are one term: the first part's rows
      // come first, as its rows do.
      let order =
        i == orderA.count ? 1 : j == orderB.count ? -1 : TermTable.compare(a, orderA[i], b, orderB[j])
      rows.removeAll(keepingCapacity: true)
      if order <= 0 { rowsA.withRows(of: orderA[i]) { rows.append(contentsOf: $0) } }
      if order >= 0 { rowsB.withRows(of: orderB[j]) { rows.append(contentsOf: $0) } }
      rows.withUnsafeBufferPointer { rows in
        if order <= 0 {
          a.withBytes(of: orderA[i]) { writer.add(key: $0, PostingListSource(rows: rows)) }
        } else {
          b.withBytes(of: orderB[j]) { writer.add(key: $0, PostingListSource(rows: rows)) }
        }
      }
      if order <= 0 { i += 1 }
      if order >= 0 { j += 1 }
      if writer.hasPages { pages.append(contentsOf: writer.takePages()) }
    }
    writer.flush()
    pages.append(contentsOf: writer.takePages())
  }

  /// The ordered pages of the field at `field` in the builders' ordered fields.
  private static func writeOrdered(
    _ parts: [SegmentBuilder], field: Int, segment: Row, coversKeys: Bool,
    into pages: inout [(key: [UInt8], value: [UInt8])]
  ) {
    guard let first = parts.first else { return }
    // The parts hold consecutive runs of rows, in order: their entries come in row order.
    let entries = sortedByKey(parts.flatMap { $0.ordered[field] })
    guard !entries.isEmpty else { return }
    let (slot, width, _) = first.orderedFields[field]
    var writer = OrderedPageWriter(segment: segment, field: slot, width: width, coversKeys: coversKeys)
    for (key, row, id) in entries { writer.add(key, row: row, id: id) }
    writer.flush()
    pages.append(contentsOf: writer.takePages())
  }
}
