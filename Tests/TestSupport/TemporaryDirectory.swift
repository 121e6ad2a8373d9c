import Foundation

/// A directory under the temporary directory that removes itself when released.
public final class TemporaryDirectory: Sendable {
  public let path: String

  public init() throws {
    path =
      FileManager.default.temporaryDirectory.appendingPathComponent("livelog-tests-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
  }

  deinit { try? FileManager.default.removeItem(atPath: path) }

  /// The path of `name` inside the directory.
  public func child(_ name: String) -> String { (path as NSString).appendingPathComponent(name) }
}
