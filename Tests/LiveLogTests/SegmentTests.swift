import Foundation
import LMDB
import Testing

@testable import LiveLog

/// The segment layer against a model: random posting lists (long enough to run over several
/// pages, in parts) and ordered entries written as segments, merged, and edited in place row by
/// row; every list and every ordered run must read back as the model holds it.
@Suite struct SegmentTests {
  /// The model: per (kind, key), rows with positions; ordered entries as a set.
  struct Model {
    var postings: [IndexKind: [[UInt8]: [Row: [UInt32]]]] = [:]
    var ordered: Set<OrderedEntry> = []
  }

  static func readBack(_ index: Database, segments: [Row], _ txn: some ReadableTransaction, keys: [(IndexKind, [UInt8])])
    throws -> [IndexKind: [[UInt8]: [Row: [UInt32]]]]
  {
    var result: [IndexKind: [[UInt8]: [Row: [UInt32]]]] = [:]
    try txn.withCursor(index) { cursor in
      for (kind, key) in keys {
        var rows: [Row: [UInt32]] = [:]
        var order: [Row] = []
        for segment in segments {
          try SegmentLookup.forEachPart(of: key, kind: kind, segment: segment, cursor: &cursor) { entry in
            for (row, positions) in try PostingPage.decode(entry, segment: segment, positional: kind == .trigram) {
              rows[row] = positions
              order.append(row)
            }
          }
        }
        #expect(order == order.sorted() && Set(order).count == order.count, "\(kind) \(key): rows out of order")
        if !rows.isEmpty { result[kind, default: [:]][key] = rows }
      }
    }
    return result
  }

  @Test(arguments: [UInt64(1), 2, 3])
  func segmentsMergedAndEditedReadAsTheModel(seed: UInt64) throws {
    let directory = try TemporaryDirectory()
    let store = try Store(directory: directory.child("store"))
    try store.write([.upsert(Repository(id: 1, fullName: "a/b"))])
    let index = try store.repositoriesCollection().databases.index
    var random = SplitMix64(seed: seed)
    var model = Model()
    // A few keys with long lists (several pages), many with short ones.
    let keys: [(IndexKind, [UInt8])] =
      (0..<40).map { (.trigram, IndexKeys.trigramPrefix(UInt32(0x0300_0000 + $0 * 7))) }
      + (0..<30).map { (.term, IndexKeys.termPrefix(field: 5, value: "value\($0)")) }
    func density(_ index: Int) -> Int { index % 9 == 0 ? 2 : 60 }
    let segmentRows: Row = 3_000
    var segments: [Row] = []
    for part in 0..<3 {
      let start = Row(part) * segmentRows + 1
      var content = SegmentContent()
      for row in start..<(start + segmentRows) {
        var entries = IndexEntries()
        for (index, (kind, key)) in keys.enumerated() where Int.random(in: 0..<density(index), using: &random) == 0 {
          if kind == .trigram {
            let code = key.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            var positions = Set<UInt32>()
            for _ in 0..<Int.random(in: 1...3, using: &random) { positions.insert(UInt32.random(in: 0..<300, using: &random)) }
            for position in positions.sorted() { entries.trigrams.append(UInt64(code) << 32 | UInt64(position)) }
            model.postings[kind, default: [:]][key, default: [:]][row] = positions.sorted()
          } else {
            entries.terms.append(key)
            model.postings[kind, default: [:]][key, default: [:]][row] = []
          }
        }
        entries.trigrams.sort()
        entries.terms.sort { TextMatching.compare($0, $1) < 0 }
        let stars = OrderedEntry(field: 12, key: .integer(Int64.random(in: 0..<50, using: &random)), row: row)
        entries.ordered = [stars.with(row: 0)]
        model.ordered.insert(stars)
        content.add(row: row, entries)
      }
      try store.environment.write { txn in
        for (key, value) in content.pages(segment: start) { try txn.put(index, key, value, flags: .append) }
      }
      segments.append(start)
    }
    // Merge the last two, as a fold does.
    try store.environment.write { txn in try SegmentMerger(index: index, txn: txn).merge(segments[1], segments[2]) }
    segments.removeLast()
    let merged = try store.environment.read { txn in try Self.readBack(index, segments: segments, txn, keys: keys) }
    #expect(merged == model.postings)
    // Edits: rows leave lists, join them, change positions; ordered entries move.
    for _ in 0..<6 {
      var postingEdits: [Int: [PostingEdit]] = [:]
      var orderedEdits: [Int: [OrderedEdit]] = [:]
      var touched = Set<String>()
      for _ in 0..<400 {
        let (kind, key) = keys[Int.random(in: 0..<keys.count, using: &random)]
        let row = Row.random(in: 1...(3 * segmentRows), using: &random)
        guard touched.insert("\(kind)\(key)\(row)").inserted else { continue }
        // After the merge: rows 1–3,000 in the first segment, the rest in the second.
        let segment = row > segmentRows ? 1 : 0
        let present = model.postings[kind]?[key]?[row] != nil
        if present && Bool.random(using: &random) {
          model.postings[kind]?[key]?[row] = nil
          if model.postings[kind]?[key]?.isEmpty == true { model.postings[kind]?[key] = nil }
          postingEdits[segment, default: []].append(PostingEdit(kind: kind, key: key, row: row, positions: nil))
        } else {
          let positions: [UInt32] = kind == .trigram ? [UInt32.random(in: 0..<50, using: &random)] : []
          model.postings[kind, default: [:]][key, default: [:]][row] = positions
          postingEdits[segment, default: []].append(PostingEdit(kind: kind, key: key, row: row, positions: positions))
        }
      }
      for entry in model.ordered.shuffled(using: &random).prefix(300) {
        model.ordered.remove(entry)
        let moved = OrderedEntry(field: 12, key: .integer(Int64.random(in: 0..<50, using: &random)), row: entry.row)
        model.ordered.insert(moved)
        let segment = entry.row > segmentRows ? 1 : 0
        if moved != entry {
          orderedEdits[segment, default: []].append(OrderedEdit(entry: entry, isInsertion: false))
          orderedEdits[segment, default: []].append(OrderedEdit(entry: moved, isInsertion: true))
        }
      }
      try store.environment.write { txn in
        for (segment, edits) in postingEdits {
          try SegmentEditor(index: index, segment: segments[segment], txn: txn).apply(edits.sorted())
        }
        for (segment, edits) in orderedEdits {
          try SegmentEditor(index: index, segment: segments[segment], txn: txn).apply(edits.sorted())
        }
      }
      try store.environment.read { txn in
        let postings = try Self.readBack(index, segments: segments, txn, keys: keys)
        #expect(postings == model.postings)
        var entries = Set<OrderedEntry>()
        try txn.withCursor(index) { cursor in
          for segment in segments {
            var previous: (OrderedKey, Row)?
            try SegmentLookup.forEachOrdered(
              field: 12, width: 9, segment: segment, from: OrderedKey(flag: 0, high: 0, low: 0), cursor: &cursor
            ) { key, row in
              if let previous { #expect(previous < (key, row), "ordered entries out of order") }
              previous = (key, row)
              entries.insert(OrderedEntry(field: 12, key: key, row: row))
              return true
            }
          }
        }
        #expect(entries == model.ordered)
      }
    }
  }
}
