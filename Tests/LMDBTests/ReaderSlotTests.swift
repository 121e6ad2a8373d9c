import Foundation
import LMDB
import Testing

@Suite struct ReaderSlotTests {
  @Test func activeReadersCountsOpenSnapshotsOnly() throws {
    let path = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: path) }
    let env = try Environment.open(path: path)
    #expect(env.staleReadersCleared == 0)
    #expect(!env.isUnlocked)
    #expect(env.activeReaders() == 0)
    var snapshots = [try env.makeSnapshot(), try env.makeSnapshot()]
    #expect(env.activeReaders() == 2)
    #expect(try env.read { _ in env.activeReaders() } == 3)
    snapshots.removeLast()
    #expect(env.activeReaders() == 1)
    snapshots.removeAll()
    #expect(env.activeReaders() == 0)
  }
}
