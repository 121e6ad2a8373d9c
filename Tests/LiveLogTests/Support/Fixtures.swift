import Foundation
@_exported import TestSupport

@testable import LiveLog

/// Paths of the real GitHub data shipped in Tests/Fixtures.
enum Fixtures {
  static let root = FixtureFiles.root.appendingPathComponent("github")

  static func path(_ relative: String) -> String { FixtureFiles.github(relative) }

  static func apps(_ name: String) -> String { FixtureFiles.apps(name) }

  static var apiRepoFiles: [String] {
    (0...4).map { path("api-repos/repos-0\($0).ndjson") }
  }

  static var searchResponseFiles: [String] {
    let directory = root.appendingPathComponent("search-responses").path
    let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
    return names.filter { $0.first?.isNumber == true && $0.hasSuffix(".json") }.sorted()
      .map { "\(directory)/\($0)" }
  }

  /// The search response file whose name starts with `prefix` ("05", "11", ...).
  static func searchResponse(_ prefix: String) -> String {
    searchResponseFiles.first { URL(fileURLWithPath: $0).lastPathComponent.hasPrefix(prefix + "_") }
      ?? "missing-\(prefix)"
  }
}

/// Bytes of UTF-8 text.
func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }
