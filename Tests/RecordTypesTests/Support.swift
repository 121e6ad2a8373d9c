import Changesets
import Foundation
import LiveLog

/// A directory under the temporary directory that removes itself.
final class TemporaryDirectory: Sendable {
  let path: String

  init() throws {
    path =
      FileManager.default.temporaryDirectory.appendingPathComponent("livelog-records-\(UUID().uuidString)")
      .path
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
  }

  deinit { try? FileManager.default.removeItem(atPath: path) }

  func child(_ name: String) -> String { (path as NSString).appendingPathComponent(name) }
}

/// The real data the repository ships, for a third collection beside the app's own.
enum Fixtures {
  static let github = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Fixtures/github")

  static func path(_ relative: String) -> String { github.appendingPathComponent(relative).path }
}

extension Changeset {
  /// The ids after applying the changeset to `old`, by its own definition (UIKit's order:
  /// deletions descending, then insertions ascending), independent of the engine.
  func applied<ID>(to old: [ID], new: [ID]) -> [ID] {
    var ids = old
    for index in deletions.sorted(by: >) { ids.remove(at: index) }
    for index in insertions.sorted() { ids.insert(new[index], at: index) }
    return ids
  }
}

func opened(_ path: String, options: StoreOptions = StoreOptions()) throws -> Store {
  var options = options
  options.durability = .noSync
  return try Store(directory: path, options: options)
}
