import Foundation
import Testing

@testable import LiveLog

@Suite struct TimestampTests {
  @Test func parsesTheAPIFormsAndOffsets() {
    #expect(Timestamp(iso8601: "1970-01-01T00:00:00Z")?.secondsSince1970 == 0)
    #expect(Timestamp(iso8601: "2014-01-11T09:27:47Z")?.secondsSince1970 == 1_389_432_467)
    #expect(Timestamp(iso8601: "2014-01-11T10:27:47+01:00")?.secondsSince1970 == 1_389_432_467)
    #expect(Timestamp(iso8601: "2014-01-11T09:27:47.123Z")?.secondsSince1970 == 1_389_432_467)
    #expect(Timestamp(iso8601: "2014-01-11")?.secondsSince1970 == 1_389_398_400)
    for bad in [
      "", "2014-13-01T00:00:00Z", "2014-02-30T00:00:00Z", "2014-01-11T09:27:47", "yesterday",
      "2014-01-11T25:00:00Z",
    ] {
      #expect(Timestamp(iso8601: bad) == nil, "\(bad)")
    }
  }

  @Test func formattingAgreesWithFoundationAndRoundTrips() {
    var random = SplitMix64(seed: 42)
    let formatter = ISO8601DateFormatter()
    formatter.timeZone = TimeZone(identifier: "UTC")
    for _ in 0..<2_000 {
      let seconds = Int64.random(in: -2_000_000_000...4_000_000_000, using: &random)
      let timestamp = Timestamp(secondsSince1970: seconds)
      #expect(timestamp.iso8601 == formatter.string(from: Date(timeIntervalSince1970: TimeInterval(seconds))))
      #expect(Timestamp(iso8601: timestamp.iso8601) == timestamp)
    }
  }
}
