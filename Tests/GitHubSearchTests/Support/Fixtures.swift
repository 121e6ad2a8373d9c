import Foundation

/// Paths of the real GitHub data shipped in Tests/Fixtures.
enum Fixtures {
  static let root = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Fixtures/github")

  /// The offline source's directory.
  static var recorded: URL { root.appendingPathComponent("recorded") }

  /// The bytes of the search response whose file name starts with `prefix` ("05", "11", ...).
  static func searchResponse(_ prefix: String) throws -> Data {
    let directory = root.appendingPathComponent("search-responses")
    let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
    guard let name = names.first(where: { $0.hasPrefix(prefix + "_") }) else {
      throw CocoaError(.fileReadNoSuchFile)
    }
    return try Data(contentsOf: directory.appendingPathComponent(name))
  }
}
