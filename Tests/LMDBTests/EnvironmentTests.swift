import Foundation
import LMDB
import Testing

/// A fresh directory under the temporary directory, removed by the caller.
func temporaryDirectory(_ name: String = #function) throws -> String {
  let path = FileManager.default.temporaryDirectory
    .appendingPathComponent("lmdb-tests-\(UUID().uuidString)").path
  try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
  return path
}

private func bytes(_ value: UInt64) -> [UInt8] { withUnsafeBytes(of: value) { Array($0) } }

@Suite struct EnvironmentTests {
  @Test func putGetAndCursorOrder() throws {
    let path = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: path) }
    let env = try Environment.open(path: path)
    let db = try env.write { try env.openDatabase("numbers", flags: .integerKey, create: true, in: $0) }
    let keys: [UInt64] = (0..<500).map { ($0 * 7919) % 1000 }
    try env.write { txn in
      for key in keys { try txn.put(db, key, [UInt8]("value \(key)".utf8)) }
    }
    let scanned: [UInt64] = try env.read { txn in
      try txn.withCursor(db) { cursor in
        var result: [UInt64] = []
        var entry = try cursor.first()
        while let current = entry {
          result.append(current.integerKey ?? .max)
          entry = try cursor.next()
        }
        return result
      }
    }
    #expect(scanned == keys.sorted())
    let value = try env.read { txn in try txn.get(db, 7919 % 1000).map { Array($0) } }
    #expect(value.map { String(decoding: $0, as: UTF8.self) } == "value 919")
  }

  @Test func appendRejectsOutOfOrderKeysAndAbortsTheWholeTransaction() throws {
    let path = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: path) }
    let env = try Environment.open(path: path)
    let db = try env.write { try env.openDatabase("log", flags: .integerKey, create: true, in: $0) }
    try env.write { txn in
      try txn.put(db, 1, [1], flags: .append)
      try txn.put(db, 2, [2], flags: .append)
    }
    #expect(throws: LMDBError.self) {
      try env.write { txn in
        try txn.put(db, 3, [3], flags: .append)
        try txn.put(db, 2, [9], flags: .append)
      }
    }
    let count = try env.read { try $0.statistics(db).entries }
    #expect(count == 2)
  }

  @Test func writesGrowTheMapUntilTheConfiguredMaximum() throws {
    let path = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: path) }
    var options = EnvironmentOptions()
    options.mapSize = 1 << 20
    options.maximumMapSize = 8 << 20
    let env = try Environment.open(path: path, options: options)
    let db = try env.write { try env.openDatabase("blobs", flags: .integerKey, create: true, in: $0) }
    let blob = [UInt8](repeating: 0xAB, count: 100_000)
    // 3 MB fits only after the map grew past its initial 1 MiB.
    try env.write { txn in
      for key in 0..<30 { try blob.withUnsafeBytes { try txn.put(db, UInt64(key), $0) } }
    }
    #expect(env.info.mapSize > 1 << 20)
    // 20 MB more cannot fit under 8 MiB: the whole batch fails and none of it is visible.
    let error = #expect(throws: LMDBError.self) {
      try env.write { txn in
        for key in 30..<230 { try blob.withUnsafeBytes { try txn.put(db, UInt64(key), $0) } }
      }
    }
    #expect(error?.isMapLimitReached == true)
    #expect(try env.read { try $0.statistics(db).entries } == 30)
    // The store still takes writes that fit.
    try env.write { txn in try blob.withUnsafeBytes { try txn.put(db, 30, $0) } }
    #expect(try env.read { try $0.statistics(db).entries } == 31)
  }

  /// A map with less than a quarter left grows before the next write, and only then, so that a
  /// write smaller than the quarter never fills it and runs its body twice; at the maximum, writes
  /// that fit still go through. Sized in pages, whatever their size.
  @Test func theMapGrowsAheadOfWritesSoNoBodyRunsTwice() throws {
    for atMaximum in [false, true] {
      let path = try temporaryDirectory()
      defer { try? FileManager.default.removeItem(atPath: path) }
      let pageSize = Int(getpagesize())
      var options = EnvironmentOptions()
      options.mapSize = 256 * pageSize
      options.maximumMapSize = atMaximum ? 256 * pageSize : nil
      let env = try Environment.open(path: path, options: options)
      #expect(env.info.pageSize == pageSize)
      let db = try env.write { try env.openDatabase("blobs", flags: .integerKey, create: true, in: $0) }
      // Values of whole pages: 14 of 25 overfill the map; at the maximum, 20 of 10 fill most of it.
      let blob = [UInt8](repeating: 0xCD, count: (atMaximum ? 10 : 25) * pageSize - 64)
      var grew = 0
      for key in 0..<(atMaximum ? 20 : 14) {
        let before = env.info
        let nearlyFull = before.mapSize - before.usedBytes < before.mapSize / 4
        var runs = 0
        try env.write { txn in
          runs += 1
          try blob.withUnsafeBytes { try txn.put(db, UInt64(key), $0) }
        }
        #expect(runs == 1, "write \(key) ran its body \(runs) times")
        let grown = env.info.mapSize > before.mapSize
        #expect(grown == (nearlyFull && !atMaximum), "write \(key): grown \(grown)")
        if grown { grew += 1 }
      }
      #expect(grew == (atMaximum ? 0 : 1))
      #expect(env.info.usedBytes > (atMaximum ? 192 : 256) * pageSize)
    }
  }

  @Test func snapshotsKeepTheirStateWhileWritersGoOnAndTheMapGrows() throws {
    let path = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: path) }
    var options = EnvironmentOptions()
    options.mapSize = 1 << 20
    let env = try Environment.open(path: path, options: options)
    let db = try env.write { try env.openDatabase("data", flags: .integerKey, create: true, in: $0) }
    try env.write { txn in try txn.put(db, 0, bytes(42)) }
    let snapshot = try env.makeSnapshot()
    let blob = [UInt8](repeating: 1, count: 64_000)
    try env.write { txn in
      for key in 1..<200 { try blob.withUnsafeBytes { try txn.put(db, UInt64(key), $0) } }
    }
    #expect(env.info.mapSize > 1 << 20)
    let seen = try snapshot.read { try $0.statistics(db).entries }
    #expect(seen == 1)
    #expect(try env.read { try $0.statistics(db).entries } == 200)
  }

  /// `read`, `withCursor` and a snapshot's `read` hand back what their bodies return — `nil` of an
  /// optional result too, which they carry through an optional of their own — and throw what
  /// their bodies throw.
  @Test func readsReturnTheirBodysValueNilIncludedAndThrowItsError() throws {
    let path = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: path) }
    let env = try Environment.open(path: path)
    let db = try env.write { try env.openDatabase("data", flags: .integerKey, create: true, in: $0) }
    try env.write { txn in try txn.put(db, 7, bytes(70)) }
    struct Refused: Error {}
    let snapshot = try env.makeSnapshot()
    let seven: (Transaction) throws -> UInt64? = { txn in
      try txn.withCursor(db) { cursor in try cursor.first().map { $0.value.loadUnaligned(as: UInt64.self) } }
    }
    let none: (Transaction) throws -> UInt64? = { txn in
      try txn.withCursor(db) { cursor -> UInt64? in
        _ = try cursor.first()
        return nil
      }
    }
    #expect(try env.read(seven) == 70)
    #expect(try snapshot.read(seven) == 70)
    #expect(try env.read(none) == nil)
    #expect(try snapshot.read(none) == nil)
    let nested: UInt64?? = try env.read { _ in .some(nil) }
    #expect(nested == .some(nil))
    #expect(throws: Refused.self) { try env.read { _ in throw Refused() } }
    #expect(throws: Refused.self) { try snapshot.read { _ in throw Refused() } }
    #expect(throws: Refused.self) { try env.read { txn in try txn.withCursor(db) { _ in throw Refused() } } }
    // A failed read leaves the environment as it was.
    #expect(try env.read(seven) == 70)
  }

  @Test func readersOnManyThreadsSeeCommittedStatesOnly() throws {
    let path = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: path) }
    var options = EnvironmentOptions()
    options.mapSize = 1 << 20
    let env = try Environment.open(path: path, options: options)
    let db = try env.write { try env.openDatabase("pairs", flags: .integerKey, create: true, in: $0) }
    // Writers keep keys 0 and 1 equal; a reader that sees them differ saw a torn state.
    let torn = Atomicish()
    DispatchQueue.concurrentPerform(iterations: 4) { worker in
      if worker == 0 {
        for round in 0..<300 {
          try? env.write { txn in
            let value = bytes(UInt64(round)) + [UInt8](repeating: 0, count: 8_000)
            try value.withUnsafeBytes { try txn.put(db, 0, $0) }
            try value.withUnsafeBytes { try txn.put(db, UInt64(2 + round), $0) }
            try value.withUnsafeBytes { try txn.put(db, 1, $0) }
          }
        }
      } else {
        for _ in 0..<2_000 {
          let same = try? env.read { txn -> Bool in
            let a = try txn.get(db, 0).map { $0.loadUnaligned(as: UInt64.self) }
            let b = try txn.get(db, 1).map { $0.loadUnaligned(as: UInt64.self) }
            return a == b
          }
          if same == false { torn.mark() }
        }
      }
    }
    #expect(!torn.value)
  }
}

/// A flag set from several threads.
final class Atomicish: @unchecked Sendable {
  private let lock = NSLock()
  private var flag = false
  func mark() { lock.withLock { flag = true } }
  var value: Bool { lock.withLock { flag } }
}
