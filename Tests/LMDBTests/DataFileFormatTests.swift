import Foundation
import Testing

@testable import LMDB

/// The layer's own reader of LMDB's file format, checked against LMDB: the same meta figures,
/// the same entries in the same order, every page accounted for, on files LMDB wrote with
/// branch pages, overflow values, deletes (free pages) and several named databases.
@Suite struct DataFileFormatTests {
  /// Writes `rounds` random transactions into three databases; returns what each holds.
  static func populate(
    _ env: Environment, seed: UInt64, rounds: Int, afterEach: (Int) throws -> Void = { _ in }
  ) throws -> [String: [[UInt8]: [UInt8]]] {
    var random = Congruential(seed: seed)
    let names = ["log", "records", "index.terms"]
    let databases = try env.write { txn in
      try names.map { name in
        try env.openDatabase(name, flags: name == "index.terms" ? [] : .integerKey, create: true, in: txn)
      }
    }
    var contents: [String: [[UInt8]: [UInt8]]] = [:]
    for round in 0..<rounds {
      try env.write { txn in
        for _ in 0..<40 {
          let which = Int(random.next() % 3)
          let database = databases[which]
          let key: [UInt8] =
            which == 2
            ? Array("term-\(random.next() % 400)".utf8)
            : withUnsafeBytes(of: random.next() % 2_000) { Array($0) }
          if random.next() % 5 == 0 {
            try txn.delete(database, key)
            contents[names[which], default: [:]][key] = nil
          } else {
            // Now and then a value beyond half a page, which goes to overflow pages.
            let size = random.next() % 9 == 0 ? 3_000 + Int(random.next() % 9_000) : Int(random.next() % 300)
            let value = (0..<size).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            try txn.put(database, key, value)
            contents[names[which], default: [:]][key] = value
          }
        }
      }
      try afterEach(round)
    }
    return contents
  }

  @Test(arguments: [1, 2, 3] as [UInt64])
  func theStructureCheckReadsWhatLMDBWrote(seed: UInt64) throws {
    let path = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: path) }
    let expected: [String: [[UInt8]: [UInt8]]]
    let info: EnvironmentInfo
    do {
      let env = try Environment.open(path: path)
      // Sound after every commit, the state one commit older included.
      expected = try Self.populate(env, seed: seed, rounds: 60) { _ in
        let check = try StructureCheck.run(path: path + "/data.mdb")
        #expect(check.damage == [], "\(check.damage)")
      }
      info = env.info
    }
    let check = try StructureCheck.run(path: path + "/data.mdb")
    #expect(check.damage == [], "\(check.damage)")
    let meta = try #require(check.health.current)
    #expect(meta.pageSize == info.pageSize)
    #expect(Int(meta.lastPage) + 1 == info.pagesUsed)
    #expect(Int(meta.transactionID) == info.lastTransactionID)
    #expect(check.freePages > 0)
    #expect(Set(check.databases.map(\.name)) == Set(expected.keys))
    // The walker's entries are LMDB's, key for key, value for value, in LMDB's order.
    let file = try DataFile(path: path + "/data.mdb")
    for database in check.databases {
      let walker = TreeWalker(
        file: file, pageSize: meta.pageSize, lastPage: meta.lastPage,
        integerKeys: database.record.flags & PageFormat.DatabaseFlag.integerKey != 0)
      var keys: [[UInt8]] = []
      var values: [[UInt8]: [UInt8]] = [:]
      var damage: [TreeWalker.Damage] = []
      _ = walker.walk(
        root: database.record.root,
        onEntry: { entry in
          keys.append(Array(entry.key))
          values[Array(entry.key)] = walker.read(entry.value)
        }, onDamage: { damage.append($0) })
      #expect(damage.isEmpty)
      #expect(values == expected[database.name] ?? [:], "\(database.name)")
      #expect(keys.count == Int(database.record.entries))
      let env = try Environment.open(path: path)
      let order: [[UInt8]] = try env.read { txn in
        let handle = try env.openDatabase(
          database.name, flags: database.record.flags & 0x08 != 0 ? .integerKey : [], create: false, in: txn)
        return try txn.withCursor(handle) { cursor in
          var result: [[UInt8]] = []
          var entry = try cursor.first()
          while let current = entry {
            result.append(Array(current.key))
            entry = try cursor.next()
          }
          return result
        }
      }
      #expect(keys == order, "\(database.name)")
    }
  }
}

/// A small deterministic generator (Knuth's MMIX linear congruential step, high bits).
struct Congruential {
  var state: UInt64
  init(seed: UInt64) { state = seed }
  mutating func next() -> UInt64 {
    state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
    return state >> 17 ^ state << 47
  }
}
