import Foundation

/// What every scenario gets: where to report, how hard to try, and where it may write stores.
struct BenchmarkContext {
  var report: Report
  var repetitions: Repetitions
  /// Data set sizes to run at, in records.
  var sizes: [Int]
  var quick: Bool
  /// A scratch directory, removed when the run ends (a crashed run's stays, but for a scenario's
  /// own process, whose parent removes it).
  var workDirectory: URL

  /// A fresh, empty directory under the scratch directory.
  func freshDirectory(_ name: String) throws -> URL {
    let url = workDirectory.appendingPathComponent(name)
    try? FileManager.default.removeItem(at: url)
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
  }
}

/// A named group of cases, each measuring LiveLog beside its peer.
struct Scenario: Sendable {
  var name: String
  var summary: String
  var run: @Sendable (BenchmarkContext) throws -> Void
}
