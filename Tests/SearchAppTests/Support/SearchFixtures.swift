import Foundation
import LiveLog

/// Paths the search app's tests use: the real GitHub data in Tests/Fixtures and the built tool.
enum SearchFixtures {
  static let github = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Fixtures/github")

  /// The shipped recordings of GitHub answers (see its README).
  static let recorded = github.appendingPathComponent("recorded").path

  /// The search response file whose name starts with `prefix` ("05" is tetris in 2014).
  static func searchResponse(_ prefix: String) throws -> String {
    let directory = github.appendingPathComponent("search-responses")
    let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
    guard let name = names.sorted().first(where: { $0.hasPrefix(prefix + "_") }) else {
      throw CocoaError(.fileNoSuchFile)
    }
    return directory.appendingPathComponent(name).path
  }

  /// The built `livelog`: `$LIVELOG_BINARY`, else beside the test runner.
  static let executable: String = {
    if let path = ProcessInfo.processInfo.environment["LIVELOG_BINARY"] { return path }
    let runner = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    return runner.appendingPathComponent("livelog").path
  }()
}

/// A directory under the temporary directory that removes itself.
final class ScratchDirectory: Sendable {
  let path: String

  init() throws {
    path =
      FileManager.default.temporaryDirectory
      .appendingPathComponent("livelog-search-tests-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
  }

  deinit { try? FileManager.default.removeItem(atPath: path) }

  func child(_ name: String) -> String { (path as NSString).appendingPathComponent(name) }
}

/// Runs `livelog` with pipes (no terminal) and returns its status and output.
func runTool(_ arguments: [String], environment: [String: String] = [:]) throws -> (
  status: Int32, stdout: String, stderr: String
) {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: SearchFixtures.executable)
  process.arguments = arguments
  var env = ProcessInfo.processInfo.environment
  for (key, value) in environment { env[key] = value }
  process.environment = env
  let output = Pipe()
  let errors = Pipe()
  process.standardOutput = output
  process.standardError = errors
  process.standardInput = FileHandle.nullDevice
  try process.run()
  // Standard error is small; standard output is read to its end first so the child never blocks.
  let stdout = output.fileHandleForReading.readDataToEndOfFile()
  let stderr = errors.fileHandleForReading.readDataToEndOfFile()
  process.waitUntilExit()
  return (
    process.terminationStatus, String(decoding: stdout, as: UTF8.self),
    String(decoding: stderr, as: UTF8.self)
  )
}
