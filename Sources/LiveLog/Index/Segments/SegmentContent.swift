/// The index entries of a run of rows, gathered in row order and laid out as one segment's
/// pages: how a fold writes the rows it adds, and how a replay or a large commit writes theirs.
///
/// Trigram postings are kept as one group per (code, row) — the row and its positions — and
/// sorted once, by code then group number, with a radix sort; since groups are numbered in row
/// order, that is the order of the pages. Terms go to a dictionary of row lists, ordered entries
/// to one sorted array.
struct SegmentContent {
  /// `code << 32 | group`.
  private var trigramOrder: [UInt64] = []
  private var groupRows: [Row] = []
  /// `positions[groupBounds[g] ..< groupBounds[g + 1]]` are group `g`'s positions.
  private var groupBounds: [Int] = [0]
  private var positions: [UInt32] = []
  private var terms: [TermKey: [Row]] = [:]
  private var ordered: [OrderedEntry] = []
  private(set) var rowCount = 0

  init() {}

  var isEmpty: Bool { rowCount == 0 }

  /// Adds the entries of `row`, which must be past every row added before.
  mutating func add(row: Row, _ entries: IndexEntries) {
    rowCount += 1
    var index = 0
    let postings = entries.trigrams
    while index < postings.count {
      let code = postings[index] >> 32
      trigramOrder.append(code << 32 | UInt64(groupRows.count))
      groupRows.append(row)
      while index < postings.count && postings[index] >> 32 == code {
        positions.append(UInt32(truncatingIfNeeded: postings[index]))
        index += 1
      }
      groupBounds.append(positions.count)
    }
    for term in entries.terms { terms[TermKey(term), default: []].append(row) }
    for entry in entries.ordered { ordered.append(entry.with(row: row)) }
  }

  /// The segment's pages, in key order: trigram lists, then terms, then ordered entries.
  func pages(segment: Row) -> [(key: [UInt8], value: [UInt8])] {
    var pages: [(key: [UInt8], value: [UInt8])] = []
    var postings = PostingPageWriter(segment: segment, kind: .trigram)
    let order = PairSort.sorted(trigramOrder)
    var rows: [Row] = []
    var bounds: [Int] = [0]
    var flat: [UInt32] = []
    var index = 0
    while index < order.count {
      let code = order[index] >> 32
      rows.removeAll(keepingCapacity: true)
      bounds.removeAll(keepingCapacity: true)
      bounds.append(0)
      flat.removeAll(keepingCapacity: true)
      while index < order.count && order[index] >> 32 == code {
        let group = Int(truncatingIfNeeded: order[index] & 0xFFFF_FFFF)
        rows.append(groupRows[group])
        flat.append(contentsOf: positions[groupBounds[group]..<groupBounds[group + 1]])
        bounds.append(flat.count)
        index += 1
      }
      let key = IndexKeys.trigramPrefix(UInt32(truncatingIfNeeded: code))
      rows.withUnsafeBufferPointer { rowBuffer in
        bounds.withUnsafeBufferPointer { boundBuffer in
          flat.withUnsafeBufferPointer { positionBuffer in
            postings.add(
              key: key, PostingListSource(rows: rowBuffer, bounds: boundBuffer, positions: positionBuffer))
          }
        }
      }
      pages.append(contentsOf: postings.takePages())
    }
    postings.flush()
    pages.append(contentsOf: postings.takePages())

    var termPages = PostingPageWriter(segment: segment, kind: .term)
    for term in terms.keys.sorted(by: { TextMatching.compare($0.bytes, $1.bytes) < 0 }) {
      let list = terms[term] ?? []
      list.withUnsafeBufferPointer { termPages.add(key: term.bytes, PostingListSource(rows: $0)) }
      pages.append(contentsOf: termPages.takePages())
    }
    termPages.flush()
    pages.append(contentsOf: termPages.takePages())

    let sorted = ordered.sorted()
    var start = 0
    while start < sorted.count {
      let field = sorted[start].field
      var writer = OrderedPageWriter(segment: segment, field: field, width: Int(sorted[start].width))
      while start < sorted.count && sorted[start].field == field {
        writer.add(sorted[start].key, row: sorted[start].row)
        start += 1
      }
      writer.flush()
      pages.append(contentsOf: writer.takePages())
    }
    return pages
  }
}
