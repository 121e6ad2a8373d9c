import Foundation
import Testing

/// The map limit and a full disk reached in the middle of an ingest: a clear error, nothing of
/// the failed commit visible, and a store that reads and writes again once there is room.
@Suite(.serialized) struct LimitTests {
  /// Each committed LSN an `ingest --progress-lsn` printed.
  static func progress(_ output: String) -> [Int] {
    output.split(separator: "\n").compactMap { Int($0) }
  }

  @Test func theMapLimitStopsABatchWholeAndARaisedLimitLetsItThrough() throws {
    let directory = try TemporaryDirectory()
    let tool = CommandLineTool(store: directory.child("store"))
    let input = directory.child("big.ndjson")
    // 3,000 repositories with 1 KB descriptions: about 10 MB of map with their indexes.
    try Reliability.write(
      Reliability.repositories(from: 1, count: 3_000, tag: "first", descriptionBytes: 1_000), to: input)
    let limited = try tool.run([
      "--max-map-size", "2M", "ingest", "--batch", "250", "--progress-lsn", "--format", "json", input,
    ])
    #expect(limited.status == 1, "\(limited.stderr)")
    #expect(!limited.signalled)
    #expect(limited.stderr.contains("beyond its maximum of 2097152 bytes"), "\(limited.stderr)")
    #expect(limited.stderr.contains("wrote nothing"), "\(limited.stderr)")
    let acknowledged = Self.progress(limited.stdout)
    #expect(!acknowledged.isEmpty, "some batches fit under 2 MiB")
    #expect(acknowledged.count < 12)
    // Exactly the acknowledged commits are visible: nothing of the batch that failed.
    let figures = try Reliability.statistics(tool)
    #expect(figures["version"] as? Int == acknowledged.last)
    // One record per event, after the schema event that made the collection.
    #expect(figures["records"] as? Int == acknowledged.last.map { $0 - 1 })
    #expect(try tool.run(["verify"]).status == 0)
    // Readable under the limit, and writable again once it is raised.
    let query = try tool.run(["--max-map-size", "2M", "query", "id <= 3", "--format", "json"])
    #expect(query.status == 0, "\(query.stderr)")
    let raised = try tool.run([
      "--max-map-size", "64M", "ingest", "--batch", "250", "--format", "json", input,
    ])
    #expect(raised.status == 0, "\(raised.stderr)")
    #expect(try Reliability.statistics(tool)["records"] as? Int == 3_000)
    #expect(try tool.run(["verify"]).status == 0)
  }

  @Test func aFullDiskStopsACommitWholeAndTheStoreWorksOnceSpaceIsFreed() throws {
    let directory = try TemporaryDirectory()
    let mountPoint = directory.child("small-disk")
    try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: true)
    if let reason = try Reliability.mountTmpfs(at: mountPoint, megabytes: 16) {
      try Test.cancel("skipped: no tmpfs to fill (\(reason))")
    }
    defer { Reliability.unmount(mountPoint) }
    let tool = CommandLineTool(store: mountPoint + "/store")
    let small = directory.child("small.ndjson")
    try Reliability.write(Reliability.repositories(from: 1, count: 100, tag: "small"), to: small)
    #expect(try tool.run(["ingest", small]).status == 0)
    // Fill the disk but for 256 KB; 4,000 repositories of 1 KB (12 MB with the log and indexes)
    // cannot fit.
    let free =
      try FileManager.default.attributesOfFileSystem(forPath: mountPoint)[.systemFreeSize] as? Int ?? 0
    let filler = mountPoint + "/filler"
    #expect(FileManager.default.createFile(atPath: filler, contents: Data(count: max(0, free - (256 << 10)))))
    let big = directory.child("big.ndjson")
    try Reliability.write(
      Reliability.repositories(from: 1_000, count: 4_000, tag: "big", descriptionBytes: 1_000), to: big)
    let full = try tool.run(["ingest", big])
    #expect(full.status == 1, "\(full.stderr)")
    #expect(!full.signalled)
    #expect(full.stderr.contains("is full"), "\(full.stderr)")
    #expect(full.stderr.contains("nothing"), "\(full.stderr)")
    #expect(try Reliability.version(tool) == 101)
    #expect(try tool.run(["verify"]).status == 0)
    // Free the space: the same ingest goes through.
    try FileManager.default.removeItem(atPath: filler)
    let again = try tool.run(["ingest", big])
    #expect(again.status == 0, "\(again.stderr)")
    #expect(try Reliability.statistics(tool)["records"] as? Int == 4_100)
    #expect(try tool.run(["verify"]).status == 0)
  }
}
