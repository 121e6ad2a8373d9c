import TestSupport

@testable import LiveLog

extension Store {
  /// A store in `directory`'s child `store` that commits without fsync (`Durability.noSync`):
  /// what a test that writes much and crashes nothing opens, the directory going with the test.
  static func scratch(in directory: TemporaryDirectory) throws -> Store {
    var options = StoreOptions()
    options.durability = .noSync
    return try Store(directory: directory.child("store"), options: options)
  }
}
