import Foundation
import LiveLog
import LiveLogReplication

let statsCommand = Command(
  name: "stats",
  summary: "counts, sizes, version and map usage of the store",
  help: """
    usage: livelog stats [--collection NAME] [--format text|json]

    Prints the store's version (last LSN), the number of records (of each collection) and
    events, the size of each database, the memory map's use and the reader slots: readers_used is LMDB's high-water
    mark of slots, readers_active the slots held now by other processes' read transactions, and
    stale_readers_cleared the slots of dead processes that opening the store just cleared.
    With --collection, the counts and databases of that collection only. A store that
    replicates shows its stream position (the stream's sequence of the last commit it applied, and
    its version then); with --nats and --stream, also the stream's head and the store's lag.
    """,
  run: { arguments, context in
    let format = try arguments.choice("--format", ["text", "json"]) ?? "text"
    let only = try arguments.value("--collection")
    try arguments.finish()
    let store = try context.openStore(readOnly: true)
    var stats = try store.statistics()
    var replication = try Replication.storedStatus(of: store)
    if let configuration = context.replication {
      if replication == nil {
        replication = ReplicationStatus(stream: configuration.stream, sequence: 0, version: 0)
      }
      replication?.streamHead = try Replication.streamHead(configuration)
    }
    if let only {
      guard stats.collections.contains(where: { $0.name == only }) else {
        throw StoreError.unknownCollection(name: only, known: stats.collections.map(\.name))
      }
      stats.collections = stats.collections.filter { $0.name == only }
      stats.records = stats.collections.reduce(0) { $0 + $1.records }
      stats.databases = stats.databases.filter { $0.name.hasPrefix(only + ".") }
    }
    if format == "json" {
      var parts = [
        "\"path\":\(jsonString(store.directory))", "\"format\":\(stats.format)",
        "\"version\":\(stats.version)",
        "\"records\":\(stats.records)", "\"events\":\(stats.events)", "\"map_size\":\(stats.mapSize)",
        "\"map_used\":\(stats.mapUsed)", "\"file_size\":\(stats.fileSize)",
        "\"readers_used\":\(stats.readersUsed)", "\"max_readers\":\(stats.maxReaders)",
        "\"readers_active\":\(stats.readersActive)", "\"stale_readers_cleared\":\(stats.staleReadersCleared)",
      ]
      let collections = stats.collections.map {
        "\(jsonString($0.name)):{\"records\":\($0.records),\"schema_version\":\($0.schemaVersion),\"bytes\":\($0.bytes)}"
      }
      parts.append("\"collections\":{\(collections.joined(separator: ","))}")
      let databases = stats.databases.map {
        "\(jsonString($0.name)):{\"entries\":\($0.entries),\"bytes\":\($0.bytes)}"
      }
      parts.append("\"databases\":{\(databases.joined(separator: ","))}")
      if let replication {
        parts.append(
          "\"replication\":{\"stream\":\(jsonString(replication.stream)),\"sequence\":\(replication.sequence),"
            + "\"version\":\(replication.version)"
            + (replication.streamHead.map { ",\"stream_head\":\($0)" } ?? "")
            + (replication.lag.map { ",\"lag\":\($0)" } ?? "") + "}")
      }
      context.output.line("{\(parts.joined(separator: ","))}")
    } else {
      let out = context.output
      out.line("store:        \(TerminalSafe.escaped(store.directory)) (format \(stats.format))")
      out.line("version:      \(stats.version) (last LSN)")
      out.line("records:      \(grouped(stats.records))")
      for collection in stats.collections {
        out.line(
          "  \(TerminalSafe.escaped(collection.name).padding(toLength: 22, withPad: " ", startingAt: 0))"
            + "\(grouped(collection.records).leftPadded(10)) records  schema v\(collection.schemaVersion)  "
            + byteSize(collection.bytes))
      }
      out.line("events:       \(grouped(stats.events))")
      if let replication {
        out.line(
          "replication:  stream \(TerminalSafe.escaped(replication.stream)) at sequence \(replication.sequence) "
            + "(version \(replication.version))"
            + (replication.streamHead.map { "; the stream is at \($0), lag \(replication.lag ?? 0)" } ?? ""))
      }
      let percent = stats.mapSize > 0 ? Double(stats.mapUsed) * 100 / Double(stats.mapSize) : 0
      out.line(
        "map:          \(byteSize(stats.mapUsed)) used of \(byteSize(stats.mapSize)) (\(String(format: "%.1f", percent))%)"
      )
      out.line("file:         \(byteSize(stats.fileSize))")
      out.line(
        "readers:      \(stats.readersActive) active, \(stats.readersUsed) of \(stats.maxReaders) slots ever used"
          + (stats.staleReadersCleared > 0 ? ", \(stats.staleReadersCleared) stale cleared at open" : ""))
      out.line("databases:")
      for database in stats.databases {
        out.line(
          "  \(TerminalSafe.escaped(database.name).padding(toLength: 34, withPad: " ", startingAt: 0))"
            + "\(grouped(database.entries).leftPadded(12)) entries  \(byteSize(database.bytes).leftPadded(10))"
        )
      }
    }
    return 0
  }
)

/// A JSON string literal.
func jsonString(_ text: String) -> String {
  var result = "\""
  for scalar in text.unicodeScalars {
    switch scalar {
    case "\"": result += "\\\""
    case "\\": result += "\\\\"
    case "\n": result += "\\n"
    case "\r": result += "\\r"
    case "\t": result += "\\t"
    case _ where scalar.value < 0x20: result += String(format: "\\u%04x", scalar.value)
    default: result.unicodeScalars.append(scalar)
    }
  }
  return result + "\""
}

extension String {
  func leftPadded(_ width: Int) -> String {
    count >= width ? self : String(repeating: " ", count: width - count) + self
  }
}
