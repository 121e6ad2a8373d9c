public import Foundation

/// The data the repository ships for its tests, in `Tests/Fixtures` (see each folder's README).
public enum FixtureFiles {
  /// `Tests/Fixtures`.
  public static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent()
    .appendingPathComponent("Fixtures")

  /// A file of `Tests/Fixtures/github`: real GitHub API data.
  public static func github(_ relative: String) -> String {
    root.appendingPathComponent("github").appendingPathComponent(relative).path
  }

  /// A file of `Tests/Fixtures/apps`: open-source iOS apps, a collection of an app's own type.
  public static func apps(_ name: String) -> String {
    root.appendingPathComponent("apps").appendingPathComponent(name).path
  }
}
