import Foundation
import Testing

@testable import LiveLog

/// `livelog salvage`: a new store from every intact event of a data file, the LSN ranges lost
/// named exactly, events after a gap kept aside for `import`.
@Suite(.serialized) struct SalvageTests {
  /// `salvage --format json` as a dictionary, and its LSN runs as sets.
  static func salvage(_ store: String, into: String) throws -> (status: Int32, report: [String: Any]) {
    let result = try CommandLineTool(store: store).run(["salvage", "--into", into, "--format", "json"])
    DamageSupport.expectNoSignal(result, "salvage")
    let report = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any] ?? [:]
    return (result.status, report)
  }

  static func lsns(_ runs: Any?) -> Set<UInt64> {
    var set = Set<UInt64>()
    for run in runs as? [[Int]] ?? [] where run.count == 2 {
      set.formUnion((UInt64(run[0])...UInt64(run[1])))
    }
    return set
  }

  @Test func aSoundStoreSalvagesToTheSameLogAndState() throws {
    let directory = try TemporaryDirectory()
    let store = directory.child("store")
    try DamageSupport.makeStore(at: store, count: 400, batch: 25)
    let (status, report) = try Self.salvage(store, into: directory.child("new"))
    #expect(status == 0, "\(report)")
    #expect((report["lost"] as? [Any])?.isEmpty == true)
    #expect(try DamageSupport.export(directory.child("new")) == (try DamageSupport.export(store)))
    let verify = try CommandLineTool(store: directory.child("new")).run(["verify"])
    #expect(verify.status == 0)
    let digest = try #require(report["digest"] as? String)
    #expect(try CommandLineTool(store: store).run(["verify"]).stdout.contains("digest \(digest)"))
  }

  /// On a sound file, the page scan alone finds every event of the log: what lets a salvage do
  /// without the tree where the tree is damaged.
  @Test func thePageScanAloneFindsEveryEvent() throws {
    let directory = try TemporaryDirectory()
    let store = directory.child("store")
    let last = try #require(try DamageSupport.makeStore(at: store, count: 500, batch: 10).last)
    let copies = try DataFileLayout.eventCopies(store + "/data.mdb")
    #expect(Set(copies.keys) == Set(1...UInt64(last)))
  }

  /// A zeroed leaf page of the log: exactly its events are lost (those with no other copy in the
  /// file), the whole commits before the first of them are applied, the rest is written aside;
  /// and the documented way out works: an export of the missing part from another copy of the
  /// log fills the gap, and the events set aside follow.
  @Test func aDamagedLogPageLosesExactlyItsEventsAndTheGapCanBeFilled() throws {
    let directory = try TemporaryDirectory()
    let store = directory.child("store")
    let backup = directory.child("backup")
    let last = try #require(try DamageSupport.makeStore(at: store, count: 600, batch: 15).last)
    try DamageSupport.copy(store, to: backup)
    let dataFile = store + "/data.mdb"
    let leaves = try DataFileLayout.logLeafPages(dataFile)
    let page = leaves[leaves.count / 3]
    let copies = try DataFileLayout.eventCopies(dataFile)
    let expectedLost = Set(copies.filter { $0.value.allSatisfy { $0.page == page } }.keys)
    try DamageSupport.overwrite(dataFile, at: Int(page) * 4096, count: 4096)
    let salvaged = directory.child("new")
    let (status, report) = try Self.salvage(store, into: salvaged)
    #expect(status == (expectedLost.isEmpty ? 0 : 1), "\(report)")
    #expect(Self.lsns(report["lost"]) == expectedLost, "\(report["lost"] ?? "")")
    #expect(Self.lsns(report["recovered"]) == Set(1...UInt64(last)).subtracting(expectedLost))
    guard let firstLost = expectedLost.min() else { return }
    // Applied: whole commits only, all before the gap.
    let applied = Self.lsns(report["applied"])
    let appliedEnd = applied.max() ?? 0
    #expect(applied == Set(appliedEnd == 0 ? [] : Array(1...appliedEnd)))
    #expect(appliedEnd < firstLost)
    let ends = try DamageSupport.export(backup).split(separator: "\n").filter {
      $0.contains("\"commit_end\":true")
    }
    .compactMap { line in line.split(separator: ",").first.flatMap { UInt64($0.dropFirst("{\"lsn\":".count)) }
    }
    #expect(appliedEnd == (ends.filter { $0 < firstLost }.max() ?? 0))
    #expect(try Reliability.version(CommandLineTool(store: salvaged)) == Int(appliedEnd))
    #expect(try CommandLineTool(store: salvaged).run(["verify"]).status == 0)
    // The events set aside cannot go in over the gap...
    let aside = try #require(report["unapplied_files"] as? [String])
    let refused = try CommandLineTool(store: salvaged).run(["import", try #require(aside.last)])
    #expect(refused.status == 2, "\(refused.stderr)")
    #expect(refused.stderr.contains("gap"), "\(refused.stderr)")
    // ...until an export from another copy fills it; then they follow, and the log is whole again.
    let fill = try CommandLineTool(store: backup).run(["export", "--from", String(appliedEnd + 1)])
    let gap = directory.child("gap.ndjson")
    try Reliability.write(
      fill.stdout.split(separator: "\n").filter { line in
        let lsn = line.split(separator: ",").first.flatMap { UInt64($0.dropFirst("{\"lsn\":".count)) } ?? 0
        return lsn <= expectedLost.max() ?? 0
      }.joined(separator: "\n") + "\n", to: gap)
    #expect(try CommandLineTool(store: salvaged).run(["import", gap]).status == 0)
    for file in aside {
      let rest = try CommandLineTool(store: salvaged).run(["import", file])
      #expect(rest.status == 0, "\(file): \(rest.stderr)")
    }
    #expect(try DamageSupport.export(salvaged) == (try DamageSupport.export(backup)))
  }

  /// The LSN at the start of an exported line, of either form.
  static func lsn(ofLine line: Substring) -> UInt64 {
    line.split(separator: ",").first.flatMap { UInt64($0.dropFirst("{\"lsn\":".count)) } ?? 0
  }

  /// A gap that holds the schema event of a collection: the events of that collection found
  /// after it cannot be written as JSON (their collection has no name or schema yet), so they
  /// are kept aside as their stored bytes — before, they were dropped while the report counted
  /// them recovered — and once the gap is filled the log is whole again.
  @Test func eventsAfterALostSchemaEventAreKeptAsideAsTheirBytes() throws {
    let directory = try TemporaryDirectory()
    let store = directory.child("store")
    let backup = directory.child("backup")
    try DamageSupport.makeStore(at: store, count: 200, batch: 20)
    let schema = directory.child("bookmarks.json")
    try Reliability.write(
      #"{"primary_key": "id", "fields": [{"name": "id", "type": "string"}, "#
        + #"{"name": "title", "type": "string", "indexes": ["substring"]}, "#
        + #"{"name": "stars", "type": "integer", "indexes": ["ordered"]}]}"#, to: schema)
    let tool = CommandLineTool(store: store)
    #expect(try tool.run(["collection", "create", "bookmarks", "--schema", schema]).status == 0)
    let bookmarks = directory.child("bookmarks.ndjson")
    try Reliability.write(
      (0..<150).map { #"{"id": "b\#($0)", "title": "bookmark number \#($0)", "stars": \#($0 % 17)}"# }
        .joined(separator: "\n") + "\n", to: bookmarks)
    #expect(try tool.run(["ingest", "--collection", "bookmarks", "--batch", "10", bookmarks]).status == 0)
    try DamageSupport.copy(store, to: backup)
    let exported = try DamageSupport.export(backup).split(separator: "\n")
    let schemaLine = try #require(
      exported.first { $0.contains(#""op":"schema""#) && $0.contains(#""collection":"bookmarks""#) })
    let schemaLSN = Self.lsn(ofLine: schemaLine)
    let dataFile = store + "/data.mdb"
    // Every copy of the schema event goes, with whatever else its pages held.
    let copies = try DataFileLayout.eventCopies(dataFile)
    let pages = Set(try #require(copies[schemaLSN]).map(\.page))
    for page in pages { try DamageSupport.overwrite(dataFile, at: Int(page) * 4096, count: 4096) }
    let expectedLost = Set(copies.filter { $0.value.allSatisfy { pages.contains($0.page) } }.keys)
    #expect(expectedLost.contains(schemaLSN))

    let salvaged = directory.child("new")
    let (status, report) = try Self.salvage(store, into: salvaged)
    #expect(status == 1, "\(report)")
    #expect(Self.lsns(report["lost"]) == expectedLost, "\(report["lost"] ?? "")")
    let appliedEnd = Self.lsns(report["applied"]).max() ?? 0
    #expect(appliedEnd < schemaLSN)
    // Every event recovered past the applied prefix is in a file set aside, bookmarks included.
    let aside = try #require(report["unapplied_files"] as? [String])
    var keptAside = Set<UInt64>()
    var rawLines = 0
    for file in aside {
      for line in try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n") {
        keptAside.insert(Self.lsn(ofLine: line))
        if line.contains(#""event_bytes""#) { rawLines += 1 }
      }
    }
    let recovered = Self.lsns(report["recovered"])
    #expect(keptAside == recovered.filter { $0 > appliedEnd })
    #expect(rawLines > 0)
    // Filling the gap from the backup lets the events set aside follow: the log is whole again.
    let fill = try CommandLineTool(store: backup).run(["export", "--from", String(appliedEnd + 1)])
    let gap = directory.child("gap.ndjson")
    try Reliability.write(
      fill.stdout.split(separator: "\n").filter { Self.lsn(ofLine: $0) <= expectedLost.max() ?? 0 }
        .joined(separator: "\n") + "\n", to: gap)
    let filled = try CommandLineTool(store: salvaged).run(["import", gap])
    #expect(filled.status == 0, "\(filled.stderr)")
    for file in aside {
      let rest = try CommandLineTool(store: salvaged).run(["import", file])
      #expect(rest.status == 0, "\(file): \(rest.stderr)")
    }
    #expect(try DamageSupport.export(salvaged) == (try DamageSupport.export(backup)))
    #expect(try CommandLineTool(store: salvaged).run(["verify"]).status == 0)
  }

  /// A line of stored bytes whose checksum fails is refused, naming its line and field.
  @Test func aDamagedLineOfStoredBytesIsRefused() throws {
    let directory = try TemporaryDirectory()
    let store = directory.child("store")
    try DamageSupport.makeStore(at: store, count: 30, batch: 10)
    let exported = try DamageSupport.export(store).split(separator: "\n")
    let target = directory.child("target")
    let head = directory.child("head.ndjson")
    try Reliability.write(exported.prefix(5).joined(separator: "\n") + "\n", to: head)
    #expect(try CommandLineTool(store: target).run(["import", head]).status == 0)
    // Event 6 as stored, with one bit flipped: base64 of the bytes the next import expects.
    let source = try Store(
      directory: store,
      options: {
        var o = StoreOptions()
        o.readOnly = true
        return o
      }())
    var bytes = try source.environment.read { txn in
      try #require(try txn.get(source.log.database, 6)).map { $0 }
    }
    bytes[bytes.count / 2] ^= 0x10
    let line = directory.child("raw.ndjson")
    try Reliability.write(
      #"{"lsn":6,"event_bytes":""# + Data(bytes).base64EncodedString() + "\"}\n", to: line)
    let refused = try CommandLineTool(store: target).run(["import", line])
    #expect(refused.status == 2, "\(refused.stderr)")
    #expect(
      refused.stderr.contains("raw.ndjson:1:") && refused.stderr.contains("event_bytes"), "\(refused.stderr)")
    bytes[bytes.count / 2] ^= 0x10
    try Reliability.write(
      #"{"lsn":6,"event_bytes":""# + Data(bytes).base64EncodedString() + "\"}\n", to: line)
    let taken = try CommandLineTool(store: target).run(["import", line])
    #expect(taken.status == 0, "\(taken.stderr)")
    #expect(try Reliability.version(CommandLineTool(store: target)) == 6)
  }

  @Test func salvageRefusesATargetThatHoldsSomething() throws {
    let directory = try TemporaryDirectory()
    let store = directory.child("store")
    try DamageSupport.makeStore(at: store, count: 50, batch: 10)
    let target = directory.child("full")
    try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: true)
    try Reliability.write("keep me", to: target + "/notes.txt")
    let result = try CommandLineTool(store: store).run(["salvage", "--into", target])
    #expect(result.status == 1)
    #expect(result.stderr.contains("is not empty"), "\(result.stderr)")
    #expect(try String(contentsOfFile: target + "/notes.txt", encoding: .utf8) == "keep me")
  }
}
