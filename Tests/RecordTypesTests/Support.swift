import Changesets
import Foundation
import LiveLog
@_exported import TestSupport

/// The real data the repository ships, for a third collection beside the app's own.
enum Fixtures {
  static func path(_ relative: String) -> String { FixtureFiles.github(relative) }
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
