import Testing

@testable import LiveLog

/// `PostingPageWriter` cuts long lists into parts that fill their pages, and every part reads
/// back as the rows (and positions) that went in: checked against the lists themselves.
@Suite struct PostingPageWriterTests {
  @Test(arguments: [false, true], [1, 300, 30_000])
  func longListsFillTheirPagesAndReadBack(positional: Bool, rows count: Int) throws {
    var random = SplitMix64(seed: UInt64(count) << 1 | (positional ? 1 : 0))
    let segment: Row = 1 << 20
    var rows: [Row] = []
    var bounds: [Int] = [0]
    var positions: [UInt32] = []
    var row = segment
    for _ in 0..<count {
      // Steps of one byte and of two or three.
      row += Row(random.next() % 4 == 0 ? 1 + random.next() % 40_000 : 1 + random.next() % 100)
      rows.append(row)
      if random.next() % 64 == 0 {
        // Positions of six bytes each, the most a position takes: the writer's room must hold them.
        let first = UInt32.max - UInt32(random.next() % 1_000) - 1
        positions.append(contentsOf: random.next() % 2 == 0 ? [first] : [first, UInt32.max])
      } else {
        var position = UInt32(random.next() % 50)
        for _ in 0...(random.next() % 4) {
          positions.append(position)
          position += 1 + UInt32(random.next() % 300)
        }
      }
      bounds.append(positions.count)
    }
    var writer = PostingPageWriter(segment: segment, kind: positional ? .trigram : .term)
    let key: [UInt8] = [7, 1, 2, 3]
    rows.withUnsafeBufferPointer { rowBuffer in
      bounds.withUnsafeBufferPointer { boundBuffer in
        positions.withUnsafeBufferPointer { positionBuffer in
          writer.add(
            key: key,
            positional
              ? PostingListSource(rows: rowBuffer, bounds: boundBuffer, positions: positionBuffer)
              : PostingListSource(rows: rowBuffer))
        }
      }
    }
    writer.flush()
    let pages = writer.takePages()
    var readRows: [Row] = []
    var readPositions: [[UInt32]] = []
    for (index, page) in pages.enumerated() {
      #expect(page.value.count <= PostingPage.capacity)
      // A page is closed when the next row does not fit: no more room is left than a row takes.
      if index < pages.count - 1 { #expect(page.value.count >= PostingPage.capacity - 40, "page \(index)") }
      try page.value.withUnsafeBytes { bytes in
        let view = try PostingPage.View(bytes, positional: positional)
        for entry in 0..<view.count {
          let found = try view.entry(entry)
          #expect(Array(found.key) == key)
          for (row, rowPositions) in try PostingPage.decode(found, segment: segment, positional: positional) {
            readRows.append(row)
            readPositions.append(rowPositions)
          }
        }
      }
    }
    #expect(readRows == rows)
    if positional {
      #expect(readPositions == rows.indices.map { Array(positions[bounds[$0]..<bounds[$0 + 1]]) })
    }
    // About as few pages as the bytes need.
    let bytes = pages.reduce(0) { $0 + $1.value.count }
    #expect(pages.count <= bytes / (PostingPage.capacity - 40) + 1)
  }
}
