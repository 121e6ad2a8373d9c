import Foundation
import LMDB
import Testing

@testable import LiveLog

/// replay, verify, repair, diff, export and import through the executable, on the real API data.
@Suite struct CommandLineHistoryTests {
  private func ingestedStore() throws -> (TemporaryDirectory, CommandLineTool) {
    let directory = try TemporaryDirectory()
    let tool = CommandLineTool(store: directory.child("store"))
    #expect(try tool.run(["ingest", "--durability", "no-sync"] + Fixtures.apiRepoFiles).status == 0)
    let tetris = ["05", "11", "06"].map(Fixtures.searchResponse)
    #expect(try tool.run(["ingest", "--every-version", "--durability", "no-sync"] + tetris).status == 0)
    return (directory, tool)
  }

  @Test func replayVerifiesExportImportsAndACorruptIndexEntryIsFoundAndRepaired() throws {
    let (directory, tool) = try ingestedStore()
    let verified = try tool.run(["replay", "--verify"])
    #expect(verified.status == 0, "\(verified.stderr)")
    #expect(verified.stdout.contains("equals the live state"))
    let digest = try #require(verified.stdout.split(separator: "digest ").last?.prefix(16))

    // Export, then import into a new store: the same digest; importing again changes nothing.
    let export = try tool.run(["export"])
    let exportPath = directory.child("log.ndjson")
    try Data(export.stdout.utf8).write(to: URL(fileURLWithPath: exportPath))
    let copy = CommandLineTool(store: directory.child("copy"))
    #expect(try copy.run(["import", exportPath]).status == 0)
    #expect(try copy.run(["import", exportPath]).stdout.contains("0 events appended"))
    #expect(try copy.run(["verify"]).stdout.contains("digest \(digest)"))
    #expect(try copy.run(["export"]).stdout == export.stdout)

    // A damaged line is refused and writes nothing.
    var lines = export.stdout.split(separator: "\n").map(String.init)
    lines[lines.count - 1] = lines[lines.count - 1].replacingOccurrences(
      of: "\"stargazers_count\":", with: "\"stargazers_count\":9")
    let damaged = directory.child("damaged.ndjson")
    try Data(lines.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: damaged))
    let fresh = CommandLineTool(store: directory.child("fresh"))
    let refused = try fresh.run(["import", damaged])
    #expect(refused.status == 2 && refused.stderr.contains("checksum"))

    // Corrupt one equality-index entry behind the store's back: a Swift repository leaves the
    // list of its language in its segment.
    do {
      let store = try Store(directory: directory.child("store"))
      let collection = try store.repositoriesCollection()
      try store.environment.write { txn in
        let segments = try collection.directory(txn)
        let term = IndexKeys.termPrefix(field: 9, value: "Swift")
        let rows = try IndexReader(collection: collection, txn: txn).rows(of: term, kind: .term)
        let row = try #require(rows.first { segments.segment(of: $0) != nil })
        let segment = try #require(segments.segment(of: row))
        try SegmentEditor(
          index: collection.databases.index, segment: segments.starts[segment], txn: txn,
          coversKeys: segments.coversKeys
        )
        .apply([
          PostingEdit(kind: .term, key: term, row: row, positions: nil)
        ])
      }
    }
    let failed = try tool.run(["replay", "--verify"])
    #expect(failed.status == 1)
    #expect(failed.stderr.contains("repositories.indexes"), "\(failed.stderr)")
    #expect(try tool.run(["verify"]).status == 1)
    let repaired = try tool.run(["replay", "--in-place"])
    #expect(repaired.status == 0, "\(repaired.stderr)")
    #expect(try tool.run(["replay", "--verify"]).stdout.contains("digest \(digest)"))
  }

  /// A replay that meets a damaged event fails naming it, and takes the directory it made along.
  @Test func aFailedReplayIntoANewDirectoryLeavesNothing() throws {
    let (directory, tool) = try ingestedStore()
    do {
      let store = try Store(directory: directory.child("store"))
      let lsn = try store.version() - 10
      try store.environment.write { txn in
        var bytes = try #require(try txn.get(store.log.database, lsn).map { Array($0) })
        bytes[bytes.count / 2] ^= 0x40
        try txn.put(store.log.database, lsn, bytes)
      }
    }
    let target = directory.child("rebuilt")
    let failed = try tool.run(["replay", "--into", target])
    #expect(failed.status == 1, "\(failed.stderr)")
    #expect(failed.stderr.contains("checksum"), "\(failed.stderr)")
    #expect(!FileManager.default.fileExists(atPath: target))
  }

  @Test func diffAndAsOfFollowTheTetrisStream() throws {
    let (directory, tool) = try ingestedStore()
    defer { withExtendedLifetime(directory) {} }
    // After file 05 (2014) the rename had not happened; at the end it had.
    let before = try tool.run([
      "query", "full_name == 'cjauvin/tetris-c64'", "--as-of", "3975", "--format", "ndjson",
    ])
    #expect(before.stdout.split(separator: "\n").count == 1, "\(before.stderr)")
    let after = try tool.run(["query", "full_name == 'cjauvin/tetris-c64'", "--format", "ndjson"])
    #expect(after.stdout.isEmpty)
    let diff = try tool.run([
      "diff", "full_name CONTAINS[c] 'tetris'", "--sort", "stargazers_count:desc", "--from", "3975", "--to",
      "4025",
      "--format", "json",
    ])
    let object = try JSONSerialization.jsonObject(with: Data(diff.stdout.utf8)) as? [String: Any]
    // Sorted by stars, grown star counts reorder rows: moves.
    #expect((object?["moves"] as? [[Int]])?.isEmpty == false)
    // In insertion order nothing moves: edits are modifications.
    let unsorted = try tool.run([
      "diff", "full_name CONTAINS[c] 'tetris'", "--from", "3975", "--to", "4025", "--format", "json",
    ])
    let plain = try JSONSerialization.jsonObject(with: Data(unsorted.stdout.utf8)) as? [String: Any]
    #expect((plain?["modifications"] as? [Int])?.isEmpty == false)
    #expect((plain?["moves"] as? [[Int]])?.isEmpty == true)
  }
}
