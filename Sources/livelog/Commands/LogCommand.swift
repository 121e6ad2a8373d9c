import Foundation
import LiveLog

let logCommand = Command(
  name: "log",
  summary: "print the events of the log",
  help: """
    usage: livelog log [--from LSN] [--to LSN] [--follow] [--format text|ndjson]

    Prints events in LSN order, checking each one's checksum.

    options:
      --from LSN            first event to print (default 1)
      --to LSN              last event to print (default: the end)
      --follow              after the end, keep printing events as other processes commit them
      --format text|ndjson  a line of text per event (default), or one JSON object per line:
                            {"lsn", "time", "op": "upsert"|"delete", "id", "commit_end", "record"}
    """,
  run: { arguments, context in
    let from = try arguments.integer("--from", in: UInt64(1)...UInt64.max) ?? 1
    let to = try arguments.integer("--to", in: UInt64(1)...UInt64.max)
    let follow = arguments.flag("--follow")
    let format = try arguments.choice("--format", ["text", "ndjson"]) ?? "text"
    try arguments.finish()
    if let to, to < from { throw UsageError(message: "--to \(to) is before --from \(from)") }

    let store = try context.openStore(readOnly: true)
    let output = context.output
    output.lineBuffered = follow
    func emit(_ event: Event) {
      if format == "ndjson" {
        output.line(bytes: event.jsonBytes)
      } else {
        switch event.mutation {
        case .upsert(let repository):
          output.line(
            "\(event.lsn)\t\(event.time.iso8601)\tupsert\t\(repository.id)\t\(TerminalSafe.escaped(repository.fullName))"
              + (event.endsCommit ? "\t·" : "")
          )
        case .delete(let id):
          output.line("\(event.lsn)\t\(event.time.iso8601)\tdelete\t\(id)\(event.endsCommit ? "\t·" : "")")
        }
      }
    }
    var next = from
    let last = to ?? UInt64.max
    while true {
      try store.forEachEvent(from: next, through: min(last, try store.version())) { event in
        emit(event)
        next = event.lsn + 1
        return true
      }
      guard follow, next <= last else { break }
      output.flush()
      // Polling the version is a read transaction and a cursor seek: microseconds.
      while try store.version() < next { usleep(20_000) }
    }
    return 0
  }
)
