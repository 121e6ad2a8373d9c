import Foundation
import Testing

@testable import LMDB

#if canImport(Glibc)
  import Glibc
#endif

/// What LMDB does not check before it maps a file, checked by `Environment` first: a file
/// shorter than its meta page says (LMDB would map it and die of SIGBUS at the first read past
/// the end), an empty file, a damaged meta page (named, with the other one's state).
@Suite struct DataFileHealthTests {
  /// An environment with a few hundred pages, closed; returns its directory.
  static func environment() throws -> String {
    let path = try temporaryDirectory()
    let env = try Environment.open(path: path)
    let db = try env.write { try env.openDatabase("log", flags: .integerKey, create: true, in: $0) }
    for batch in 0..<20 {
      try env.write { txn in
        for key in UInt64(batch * 50)..<UInt64(batch * 50 + 50) {
          try txn.put(db, key, [UInt8](repeating: UInt8(truncatingIfNeeded: key), count: 600))
        }
      }
    }
    return path
  }

  static func openError(_ path: String) -> LMDBError? {
    do {
      _ = try Environment.open(path: path)
      return nil
    } catch {
      return error as? LMDBError
    }
  }

  @Test(arguments: [0, 4_096, 8_192, 40_000])
  func aTruncatedFileIsRefusedBeforeLMDBMapsIt(size: Int) throws {
    let path = try Self.environment()
    defer { try? FileManager.default.removeItem(atPath: path) }
    #expect(truncate(path + "/data.mdb", off_t(size)) == 0)
    let error = try #require(Self.openError(path))
    #expect(error.isDamagedFile, "\(error)")
    #expect(error.message.contains(size == 0 ? "empty" : "truncated"), "\(error.message)")
    // Nothing was written to the file: LMDB did not get to make a new environment of it.
    #expect((try FileManager.default.attributesOfItem(atPath: path + "/data.mdb")[.size] as? Int) == size)
  }

  @Test func aDamagedCurrentMetaPageIsNamedWithTheOtherOnesState() throws {
    let path = try Self.environment()
    defer { try? FileManager.default.removeItem(atPath: path) }
    let health = try #require(try DataFileHealth.examine(path: path + "/data.mdb"))
    let current = try #require(health.current)
    let older = try #require(health.metaPages[1 - current.slot])
    #expect(older.transactionID + 1 == current.transactionID)
    let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path + "/data.mdb"))
    try handle.seek(toOffset: UInt64(current.slot * current.pageSize + 16))
    handle.write(Data([0, 0, 0, 0]))  // the magic number
    try handle.close()
    let error = try #require(Self.openError(path))
    #expect(error.isDamagedFile)
    #expect(
      error.message.contains("meta page \(current.slot) is damaged: its magic number is 0x0"),
      "\(error.message)")
    #expect(error.message.contains("meta page \(older.slot) (transaction \(older.transactionID)) is intact"))
    let damaged = try #require(try DataFileHealth.examine(path: path + "/data.mdb"))
    #expect(damaged.newestIntactMetaPage == older)
    #expect(!damaged.newestIntactIsCurrent)
  }

  @Test func aDamagedOlderMetaPageDoesNotKeepTheFileFromOpening() throws {
    let path = try Self.environment()
    defer { try? FileManager.default.removeItem(atPath: path) }
    let current = try #require(try DataFileHealth.examine(path: path + "/data.mdb")?.current)
    // The older page's main-database root, past the end of the file: LMDB never reads it.
    let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path + "/data.mdb"))
    try handle.seek(toOffset: UInt64((1 - current.slot) * current.pageSize + 16 + 24 + 48 + 40))
    handle.write(Data([0xFF, 0xFF, 0xFF, 0x00, 0, 0, 0, 0]))
    try handle.close()
    #expect(Self.openError(path) == nil)
    let check = try StructureCheck.run(path: path + "/data.mdb")
    #expect(
      check.damage.contains { $0.contains("meta page \(1 - current.slot), the older one") }, "\(check.damage)"
    )
  }

  @Test func anEnvironmentOpenInThisProcessCannotBeHeldExclusively() throws {
    let path = try Self.environment()
    defer { try? FileManager.default.removeItem(atPath: path) }
    do {
      let env = try Environment.open(path: path)
      #expect(throws: LMDBError.self) { _ = try ExclusiveAccess(path: path) }
      _ = env
    }
    let access = try ExclusiveAccess(path: path)
    try access.invalidateLockFile()
    access.release()
    // A process that opens next finds the lock file invalid and initializes it afresh.
    let env = try Environment.open(path: path)
    #expect(try env.read { $0.transactionID } > 0)
  }
}
