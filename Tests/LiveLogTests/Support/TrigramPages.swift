@testable import LiveLog

/// Trigram posting pages written by the store's own writer, for the tests of their reads.
enum TrigramPages {
  /// Writes `rows`, with the positions of row `i` at `positions[bounds[i]..<bounds[i + 1]]`, as
  /// one trigram list of `segment` and returns its pages' bytes.
  static func write(rows: [Row], bounds: [Int], positions: [UInt32], segment: Row) -> [[UInt8]] {
    var writer = PostingPageWriter(segment: segment, kind: .trigram)
    rows.withUnsafeBufferPointer { rowBuffer in
      bounds.withUnsafeBufferPointer { boundBuffer in
        positions.withUnsafeBufferPointer { positionBuffer in
          writer.add(
            key: [1, 2, 3, 4],
            PostingListSource(rows: rowBuffer, bounds: boundBuffer, positions: positionBuffer))
        }
      }
    }
    writer.flush()
    return writer.takePages().map(\.value)
  }
}
