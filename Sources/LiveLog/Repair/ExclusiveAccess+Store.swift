import LMDB

extension ExclusiveAccess {
  /// Takes the store in `directory` exclusively (`ExclusiveAccess`), for maintenance no other
  /// process may see half done: `StoreError.inUse` naming the processes that have it open, or
  /// `StoreError.readOnly` when the lock file may not be written.
  static func store(at directory: String) throws -> ExclusiveAccess {
    do {
      return try ExclusiveAccess(path: directory)
    } catch {
      if error.isInUse { throw StoreError.inUse(path: directory, holders: error.message) }
      if error.isAccessDenied { throw StoreError.readOnly(path: directory) }
      throw error
    }
  }
}
