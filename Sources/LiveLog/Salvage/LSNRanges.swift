import Foundation

/// Runs of consecutive LSNs, for reports: "1–9,000, 9,050–10,200".
public struct LSNRanges: Sendable, Hashable, CustomStringConvertible {
  public private(set) var ranges: [ClosedRange<UInt64>] = []

  public init() {}

  /// The runs of `lsns`, which must ascend.
  init(ascending lsns: some Sequence<UInt64>) {
    for lsn in lsns { append(lsn) }
  }

  /// Adds `lsn`, which must be past every LSN added so far.
  mutating func append(_ lsn: UInt64) {
    if let last = ranges.last, last.upperBound &+ 1 == lsn {
      ranges[ranges.count - 1] = last.lowerBound...lsn
    } else {
      ranges.append(lsn...lsn)
    }
  }

  /// Adds a whole run past every LSN added so far.
  mutating func append(_ range: ClosedRange<UInt64>) {
    if let last = ranges.last, last.upperBound &+ 1 == range.lowerBound {
      ranges[ranges.count - 1] = last.lowerBound...range.upperBound
    } else {
      ranges.append(range)
    }
  }

  /// How many LSNs the runs hold.
  public var count: UInt64 { ranges.reduce(0) { $0 + ($1.upperBound - $1.lowerBound + 1) } }

  public var isEmpty: Bool { ranges.isEmpty }

  public var description: String {
    guard !ranges.isEmpty else { return "none" }
    func number(_ value: UInt64) -> String { value.formatted() }
    let runs = ranges.prefix(20).map {
      $0.lowerBound == $0.upperBound
        ? "LSN \(number($0.lowerBound))" : "LSN \(number($0.lowerBound))–\(number($0.upperBound))"
    }
    let more = ranges.count > 20 ? ", and \(ranges.count - 20) more runs" : ""
    return runs.joined(separator: ", ") + more + " (\(number(count)) events)"
  }
}
