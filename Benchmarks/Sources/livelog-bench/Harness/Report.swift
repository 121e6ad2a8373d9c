import Foundation

/// One figure: a timed case of one engine.
struct Figure: Codable, Sendable {
  var engine: String
  var stats: Statistics
  /// Items processed per operation (records, ids, events), for throughput.
  var itemsPerOperation: Double

  var itemsPerSecond: Double { stats.median > 0 ? itemsPerOperation / stats.median : 0 }
}

/// LiveLog's figure for one case beside its peer's, measured in the same run on the same data.
struct Comparison: Codable, Sendable {
  var scenario: String
  var name: String
  /// Records in the data set the case ran on.
  var size: Int
  var ours: Figure
  var peer: Figure?
  /// Free-form facts worth keeping next to the timings (bytes per record, candidates, ...).
  var notes: [String: Double] = [:]

  /// How many times faster LiveLog is than the peer (> 1 means faster).
  var speedup: Double? {
    guard let peer, ours.stats.median > 0 else { return nil }
    return peer.stats.median / ours.stats.median
  }
}

/// Collects comparisons, prints them as they arrive and writes them as JSON at the end.
final class Report {
  private(set) var comparisons: [Comparison] = []
  private var printedHeader = false

  func add(_ comparison: Comparison) {
    comparisons.append(comparison)
    printRow(comparison)
  }

  private func printRow(_ c: Comparison) {
    if !printedHeader {
      printedHeader = true
      print(
        pad("scenario", 12) + pad("case", 44) + pad("size", 9, right: true)
          + pad("LiveLog p50", 13, right: true) + pad("p99", 11, right: true)
          + pad("peer p50", 13, right: true) + pad("ratio", 9, right: true) + "  peer")
    }
    var line =
      pad(c.scenario, 12) + pad(c.name, 44) + pad(String(c.size), 9, right: true)
      + pad(formatDuration(c.ours.stats.median), 13, right: true)
      + pad(formatDuration(c.ours.stats.p99), 11, right: true)
    if let peer = c.peer {
      line += pad(formatDuration(peer.stats.median), 13, right: true)
      line += pad(c.speedup.map { String(format: "%.2fx", $0) } ?? "-", 9, right: true)
      line += "  " + peer.engine
    }
    if !c.notes.isEmpty {
      line +=
        "  "
        + c.notes.sorted { $0.key < $1.key }.map { "\($0.key)=\(formatNumber($0.value))" }
        .joined(separator: " ")
    }
    print(line)
    fflush(nil)
  }

  /// Takes the comparisons of a scenario run in a process of its own, which printed them.
  func adopt(_ comparisons: [Comparison]) {
    self.comparisons.append(contentsOf: comparisons)
  }

  /// What `write(to:metadata:)` writes.
  struct Document: Codable {
    var metadata: [String: String]
    var comparisons: [Comparison]
  }

  func write(to path: String, metadata: [String: String]) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    let data = try encoder.encode(Document(metadata: metadata, comparisons: comparisons))
    // Whole or not at all: a run cut short leaves the last full results (`make bench`'s
    // results.json) rather than half a file.
    try data.write(to: URL(fileURLWithPath: path), options: .atomic)
  }
}

func formatDuration(_ seconds: Double) -> String {
  switch seconds {
  case ..<1e-6: return String(format: "%.0f ns", seconds * 1e9)
  case ..<1e-3: return String(format: "%.1f µs", seconds * 1e6)
  case ..<1: return String(format: "%.2f ms", seconds * 1e3)
  default: return String(format: "%.2f s", seconds)
  }
}

func formatNumber(_ value: Double) -> String {
  value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(format: "%.3g", value)
}

private func pad(_ text: String, _ width: Int, right: Bool = false) -> String {
  let count = text.count
  guard count < width else { return text + " " }
  let fill = String(repeating: " ", count: width - count)
  return right ? fill + text : text + fill
}
