import LMDB

extension Store {
  /// A write transaction of the environment, shared with other threads' commits when `grouped`
  /// (group commit: concurrent writers pay one fsync, each returning once its commit is durable).
  func write<R>(grouped: Bool, _ body: (WriteTransaction) throws -> R) throws -> R {
    grouped ? try environment.writeGrouped(body) : try environment.write(body)
  }
}
