import TestSupport
import Testing

@testable import LiveLog

/// A batch of events in one buffer lends back each event's bytes and LSN as they were added:
/// against the arrays they were copied from.
@Suite struct EventBatchTests {
  @Test func eachEventComesBackAsAdded() {
    var random = SplitMix64(seed: 59)
    for round in 0..<100 {
      // Some events empty, the first among them in some rounds; no room reserved in others.
      let events = (0..<Int(random.next() % 60)).map { _ in
        (0..<Int(random.next() % 5 == 0 ? 0 : random.next() % 400)).map { _ in
          UInt8(truncatingIfNeeded: random.next())
        }
      }
      let lsns = events.indices.map { UInt64($0) * 3 + random.next() % 3 + 1 }
      var batch = EventBatch(
        capacity: round % 2 == 0 ? events.count : 0, byteCapacity: round % 3 == 0 ? 100 : 0)
      for (lsn, event) in zip(lsns, events) { event.withUnsafeBytes { batch.append(lsn: lsn, $0) } }
      #expect(batch.count == events.count)
      #expect(batch.lsns == lsns)
      #expect(batch.byteCount == events.reduce(0) { $0 + $1.count })
      for index in events.indices {
        #expect(batch.withEvent(at: index) { Array($0) } == events[index], "round \(round), event \(index)")
      }
    }
  }
}
