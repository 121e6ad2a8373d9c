import Foundation
import LMDB

/// Counts and sizes of a store.
public struct StoreStatistics: Sendable, Hashable {
  /// Entries and bytes of one LMDB database of the store.
  public struct DatabaseSize: Sendable, Hashable {
    public var name: String
    public var entries: Int
    public var bytes: Int
  }

  /// The store's format version (the `LIVELOG` marker).
  public var format: Int
  /// The last committed LSN.
  public var version: UInt64
  /// Records stored now, in all collections.
  public var records: Int
  /// Each collection: its records and schema version.
  public var collections: [CollectionStatistics]
  /// Events in the log.
  public var events: Int
  /// Size of the memory map in bytes (address space, not disk).
  public var mapSize: Int
  /// Bytes of the map in use: the high-water mark of the data file's pages.
  public var mapUsed: Int
  /// Size of `data.mdb` on disk.
  public var fileSize: Int
  /// Reader slots used at some point since the lock file was created.
  public var readersUsed: Int
  /// Reader slots in the lock file.
  public var maxReaders: Int
  /// Reader slots held when the statistics were taken (open read transactions of any process,
  /// this one's own statistics read excluded).
  public var readersActive: Int
  /// Slots of dead processes that opening this store cleared (`mdb_reader_check`).
  public var staleReadersCleared: Int
  /// Every database of the store.
  public var databases: [DatabaseSize]
}

/// Counts and sizes of one collection.
public struct CollectionStatistics: Sendable, Hashable {
  public var name: String
  public var schemaVersion: Int
  public var records: Int
  /// Bytes of its databases: keys, row table, index segments, recent rows and ordered columns
  /// (`CollectionDatabases`).
  public var bytes: Int
}

extension Store {
  /// Counts and sizes of the store, from one read snapshot.
  public func statistics() throws -> StoreStatistics {
    let info = environment.info
    let readersActive = environment.activeReaders()
    let path = URL(fileURLWithPath: directory).appendingPathComponent("data.mdb").path
    let fileSize = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
    return try read { txn, state in
      let databases = try allDatabases(state).map { database in
        let stats = try txn.statistics(database)
        return StoreStatistics.DatabaseSize(name: database.name, entries: stats.entries, bytes: stats.bytes)
      }
      let collections = try state.all.map { collection in
        CollectionStatistics(
          name: collection.name, schemaVersion: collection.version, records: try collection.count(txn),
          bytes: try collection.databases.all.reduce(0) { $0 + (try txn.statistics($1).bytes) })
      }
      return StoreStatistics(
        format: format,
        version: try log.lastLSN(txn),
        records: collections.reduce(0) { $0 + $1.records },
        collections: collections,
        events: try txn.statistics(log.database).entries,
        mapSize: info.mapSize,
        mapUsed: info.usedBytes,
        fileSize: fileSize,
        readersUsed: info.readersInUse,
        maxReaders: info.maxReaders,
        readersActive: readersActive,
        staleReadersCleared: environment.staleReadersCleared,
        databases: databases
      )
    }
  }
}
