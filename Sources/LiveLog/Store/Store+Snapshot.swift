import Foundation
import LMDB

// What a replication library needs to make a snapshot of a store and to restore one: an LMDB
// copy of the whole environment, and an empty directory made a store around a copied data file.

extension Store {
  /// Writes a compacted copy of the store's LMDB environment into `directory`, which must exist
  /// and be empty: the state of one read transaction, taken while writers go on
  /// (`mdb_env_copy2` with `MDB_CP_COMPACT`). The copy holds the log, the indexes and the
  /// `replication` database with the stream position, all as of the same commit.
  @_spi(Replication) public func writeEnvironmentCopy(into directory: String) throws {
    try environment.copy(to: directory, compacting: true)
  }

  /// The store's version and the stored checksum of its last event (0 for an empty log), read
  /// in one transaction.
  @_spi(Replication) public func lastEvent() throws -> (version: UInt64, checksum: UInt32) {
    try environment.read { txn in
      let version = try log.lastLSN(txn)
      return (version, try checksum(of: version, txn))
    }
  }

  /// Makes `directory` — absent, or an empty directory — a store around a data file that `fill`
  /// writes at the path it is given: the directory first, then the data file, then the format
  /// marker of the format that data file is of (`StoreDirectory.format(ofDataFile:)`): a data
  /// file an older LiveLog wrote is marked with its older format, so that the first writable
  /// open upgrades it (keeping its stream position) rather than reading it as an empty store.
  /// When `fill` throws, what this made is removed again, and the error is rethrown. Returns the
  /// data file's path.
  @discardableResult
  @_spi(Replication) public static func restore(
    into directory: String, dataFile fill: (String) throws -> Void
  )
    throws -> String
  {
    let manager = FileManager.default
    var isDirectory: ObjCBool = false
    let existed = manager.fileExists(atPath: directory, isDirectory: &isDirectory)
    if existed {
      guard isDirectory.boolValue else {
        throw StoreError.unusablePath(path: directory, reason: "it is a file; give an empty or new directory")
      }
      let contents = (try? manager.contentsOfDirectory(atPath: directory)) ?? []
      guard contents.isEmpty else {
        throw StoreError.unusablePath(
          path: directory,
          reason: "it holds \(contents.count) entries; a snapshot restores only into an empty "
            + "or new directory")
      }
    } else {
      try StorePath.createDirectory(directory)
    }
    let dataFile = URL(fileURLWithPath: directory).appendingPathComponent(InterruptedRepair.dataName).path
    do {
      try fill(dataFile)
      try StoreDirectory(path: directory).writeMarker(format: StoreDirectory.format(ofDataFile: dataFile))
    } catch {
      Store.removeRestored(directory, keepingDirectory: existed)
      throw error
    }
    return dataFile
  }

  /// Removes what `restore(into:dataFile:)` made (the directory itself only when it made it),
  /// once the restored store turned out unusable; the store must be closed.
  @_spi(Replication) public static func removeRestored(_ directory: String, keepingDirectory: Bool) {
    let manager = FileManager.default
    if keepingDirectory {
      for entry in (try? manager.contentsOfDirectory(atPath: directory)) ?? [] {
        try? manager.removeItem(atPath: URL(fileURLWithPath: directory).appendingPathComponent(entry).path)
      }
    } else {
      try? manager.removeItem(atPath: directory)
    }
  }
}

/// CRC-32C (the log's checksum) for the replication library's files.
@_spi(Replication) public enum Checksum {
  /// The CRC-32C of `bytes`, continuing from `crc` (0 to start).
  public static func crc32c(_ bytes: UnsafeRawBufferPointer, continuing crc: UInt32 = 0) -> UInt32 {
    CRC32C.checksum(bytes, continuing: crc)
  }
}
