import Foundation
import LiveLog

let logCommand = Command(
  name: "log",
  summary: "print the events of the log",
  help: """
    usage: livelog log [--from LSN] [--to LSN] [--collection NAME] [--follow] [--format text|ndjson]

    Prints events in LSN order, checking each one's checksum.

    options:
      --from LSN            first event to print (default 1)
      --to LSN              last event to print (default: the end)
      --collection NAME     only the events of this collection (all collections by default)
      --follow              after the end, keep printing events as other processes commit them
      --format text|ndjson  a line of text per event (default), or one JSON object per line:
                            {"lsn", "time", "collection", "schema_version", "op": "upsert"|"delete"|
                            "schema", "key", "commit_end", "record" (upserts), "schema" (schema
                            events)}
    """,
  run: { arguments, context in
    let from = try arguments.integer("--from", in: UInt64(1)...UInt64.max) ?? 1
    let to = try arguments.integer("--to", in: UInt64(1)...UInt64.max)
    let follow = arguments.flag("--follow")
    let collection = try arguments.value("--collection")
    let format = try arguments.choice("--format", ["text", "ndjson"]) ?? "text"
    try arguments.finish()
    if let to, to < from { throw UsageError(message: "--to \(to) is before --from \(from)") }

    let store = try context.openStore(readOnly: true)
    let output = context.output
    output.lineBuffered = follow
    func emit(_ event: Event) {
      if format == "ndjson" {
        output.line(bytes: event.jsonBytes)
        return
      }
      let ends = event.endsCommit ? "\t·" : ""
      // Repositories keep the columns they always had; other collections are named.
      let place = event.collection == Repository.schema.declaration.name ? "" : "\(event.collection)\t"
      switch event.change {
      case .upsert(let record):
        let key = record.primaryKey?.description ?? "?"
        output.line(
          "\(event.lsn)\t\(event.time.iso8601)\tupsert\t\(place)\(key)\t\(RecordText.title(record))\(ends)")
      case .delete(let key):
        output.line("\(event.lsn)\t\(event.time.iso8601)\tdelete\t\(place)\(key)\(ends)")
      case .schema:
        output.line(
          "\(event.lsn)\t\(event.time.iso8601)\tschema\t\(event.collection)\tversion \(event.schemaVersion)\(ends)"
        )
      }
    }
    var next = from
    let last = to ?? UInt64.max
    while true {
      let end = min(last, try store.version())
      try store.forEachEvent(from: next, through: end, collection: collection) { event in
        emit(event)
        return true
      }
      next = max(next, end + 1)
      guard follow, next <= last else { break }
      output.flush()
      // Polling the version is a read transaction and a cursor seek: microseconds.
      while try store.version() < next { usleep(20_000) }
    }
    return 0
  }
)
