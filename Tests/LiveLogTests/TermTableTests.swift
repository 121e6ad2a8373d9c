import TestSupport
import Testing

@testable import LiveLog

/// A segment's equality terms, interned, and their rows.
@Suite struct TermTableTests {
  /// The terms come out in the order of their bytes, which the lookups' binary searches rely on:
  /// against the standard library's lexicographic order of the same bytes.
  @Test func termsComeOutInTheOrderOfTheirBytes() {
    var random = SplitMix64(seed: 31)
    for round in 0..<200 {
      var table = TermTable()
      var terms: [[UInt8]] = []
      // Short alphabets and shared stems, so that many terms agree on their first eight bytes,
      // end inside them, or differ only by trailing zeros.
      let stem = (0..<Int(random.next() % 12)).map { _ in UInt8(random.next() % 3) }
      for _ in 0..<Int(1 + random.next() % 300) {
        let tail = (0..<Int(random.next() % 14)).map { _ in UInt8(random.next() % 4) * 85 }
        let term = Array(stem.prefix(Int(random.next() % UInt64(stem.count + 1)))) + tail
        terms.append(term)
        term.withUnsafeBytes { table.add($0, row: Row(round)) }
      }
      let distinct = Array(Set(terms)).sorted { $0.lexicographicallyPrecedes($1) }
      let sorted = table.sortedIDs().map { id in table.withBytes(of: id) { Array($0) } }
      #expect(sorted == distinct, "round \(round)")
    }
  }

  /// Each term's rows come out in the order they were filed, each row once however often it
  /// files the term: against a dictionary of lists.
  @Test func eachTermKeepsItsRowsInOrderOnce() {
    var random = SplitMix64(seed: 47)
    for round in 0..<100 {
      var table = TermTable()
      var expected: [[UInt8]: [Row]] = [:]
      // Some rounds near the top of the rows' range, whose high bits must survive the packing.
      var row = round % 4 == 0 ? Row.max - 5_000 : Row(random.next() % 1_000)
      for _ in 0..<Int(random.next() % 2_000) {
        // Rows ascend, each filing a few terms of a small vocabulary, some more than once.
        row += Row(random.next() % 3)
        let term = (0..<Int(1 + random.next() % 3)).map { _ in UInt8(random.next() % 6) }
        term.withUnsafeBytes { table.add($0, row: row) }
        if expected[term]?.last != row { expected[term, default: []].append(row) }
      }
      let rows = table.rowsByTerm()
      #expect(table.count == expected.count, "round \(round)")
      for id in 0..<table.count {
        let term = table.withBytes(of: id) { Array($0) }
        #expect(rows.withRows(of: id) { Array($0) } == expected[term], "round \(round), term \(term)")
      }
    }
  }
}
