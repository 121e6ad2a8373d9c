import Foundation

@testable import LiveLog

/// Paths of the real GitHub data shipped in Tests/Fixtures.
enum Fixtures {
  static let root = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Fixtures/github")

  static func path(_ relative: String) -> String { root.appendingPathComponent(relative).path }

  /// A file of `Tests/Fixtures/apps`: open-source iOS apps, a collection of an app's own type.
  static func apps(_ name: String) -> String {
    root.deletingLastPathComponent().appendingPathComponent("apps").appendingPathComponent(name).path
  }

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

/// A directory under the temporary directory that removes itself.
final class TemporaryDirectory: Sendable {
  let path: String

  init() throws {
    path =
      FileManager.default.temporaryDirectory.appendingPathComponent("livelog-tests-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
  }

  deinit { try? FileManager.default.removeItem(atPath: path) }

  func child(_ name: String) -> String { (path as NSString).appendingPathComponent(name) }
}

/// Bytes of UTF-8 text.
func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }
