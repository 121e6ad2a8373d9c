import Foundation
import LiveLog

let replayCommand = Command(
  name: "replay",
  summary: "rebuild the state from the log; verify it or repair the store",
  help: """
    usage: livelog replay [--to LSN] [--into DIR] [--verify] [--in-place]

    Rebuilds the materialized state — records and every index — from the log.

      --to LSN     stop after event LSN (default: the end); the rebuilt store is then the store
                   as it was at that version
      --into DIR   rebuild into DIR (a new or empty directory) and keep it there
      --verify     compare the rebuilt state with the live one, entry by entry; on any
                   difference name the first one and exit 1
      --in-place   rebuild and swap the rebuilt state into the store (to repair damaged
                   records or indexes); the old data file is kept as data.mdb.before-repair.
                   No other process may have the store open.
    Without --into or --in-place, the rebuild goes to a scratch directory that is removed.
    """,
  run: { arguments, context in
    let to = try arguments.integer("--to", in: UInt64(0)...UInt64.max)
    let into = try arguments.value("--into")
    let verify = arguments.flag("--verify")
    let inPlace = arguments.flag("--in-place")
    try arguments.finish()
    if inPlace && (into != nil || to != nil) {
      throw UsageError(message: "--in-place rebuilds the whole store: it takes neither --into nor --to")
    }
    if verify && to != nil {
      throw UsageError(message: "--verify compares with the live state: it does not take --to")
    }
    let output = context.output
    if inPlace {
      let bar = ProgressBar("rebuilding", total: 1000)
      let started = Date()
      let digest = try Store.repair(directory: context.storePath) { progress in
        bar.update(Int(progress.fractionOfStep * 1000), detail: progress.description)
      }
      bar.finish()
      output.line(
        "rebuilt \(context.storePath) in place from its log in \(seconds(since: started)); digest \(digest)")
      output.line("the previous data file is kept as \(context.storePath)/data.mdb.before-repair")
      return 0
    }
    let store = try context.openStore(readOnly: true)
    let version = try store.version()
    let target = to ?? version
    let started = Date()
    let bar = ProgressBar("replaying", total: Int(max(target, 1)))
    if verify {
      let report = try store.verify { stage, done, total in
        bar.update(Int(done * UInt64(max(target, 1)) / max(total, 1)), detail: "\(stage): \(grouped(done))")
      }
      bar.finish()
      guard let difference = report.difference else {
        output.line(
          "verified: \(grouped(report.events)) events, the rebuilt state equals the live state "
            + "(digest \(report.digest), \(seconds(since: started)))")
        return 0
      }
      throw ExitStatus(status: 1, message: "verification failed: \(difference)")
    }
    let directory =
      into
      ?? FileManager.default.temporaryDirectory.appendingPathComponent("livelog-replay-\(UUID().uuidString)")
      .path
    // A directory this command creates goes again if the replay fails: what is left of a replay
    // cut short is of no use (and refuses to open).
    let created = !FileManager.default.fileExists(atPath: directory)
    var succeeded = false
    defer {
      if into == nil || (created && !succeeded) { try? FileManager.default.removeItem(atPath: directory) }
    }
    var options = StoreOptions()
    options.durability = .noSync
    let rebuilt = try store.replay(into: directory, through: target, options: options) { progress in
      bar.update(Int(progress.fractionOfStep * Double(max(target, 1))), detail: progress.description)
    }
    try rebuilt.sync()
    succeeded = true
    bar.finish()
    let elapsed = Date().timeIntervalSince(started)
    let rate = elapsed > 0 ? Int(Double(target) / elapsed) : 0
    output.line(
      "replayed \(grouped(target)) events in \(seconds(since: started)) (\(grouped(rate)) events/s); "
        + "\(grouped(try rebuilt.collections().reduce(0) { $0 + $1.records })) records; digest \(try rebuilt.digest())"
    )
    if into != nil { output.line("rebuilt store: \(directory)") }
    return 0
  }
)

let verifyCommand = Command(
  name: "verify",
  summary: "check the log (checksums, contiguous LSNs) and that the state equals its replay",
  help: """
    usage: livelog verify

    Reads every event of the log, checking its checksum, that LSNs are contiguous and that each
    event's link to the version it replaces points back in the log; then rebuilds the state from
    the log and compares it with the live state. Exits 1 naming the first problem.
    """,
  run: { arguments, context in
    try arguments.finish()
    let store = try context.openStore(readOnly: true)
    let bar = ProgressBar("verifying", total: 1000)
    let started = Date()
    let report = try store.verify { stage, done, total in
      bar.update(Int(done * 1000 / max(total, 1)), detail: stage)
    }
    bar.finish()
    context.output.line("log: \(grouped(report.events)) events, checksums and LSNs sound")
    if let difference = report.difference {
      throw ExitStatus(status: 1, message: "state: differs from its replay: \(difference)")
    }
    context.output.line("state: equals its replay (digest \(report.digest)); \(seconds(since: started))")
    return 0
  }
)

let diffCommand = Command(
  name: "diff",
  summary: "the changeset of a query between two versions of the store",
  help: """
    usage: livelog diff 'PREDICATE' [--collection NAME] [--sort FIELD[:asc|:desc]]... --from LSN --to LSN
                        [--arg VALUE | --arg-json JSON]... [--format text|json] [--ids]

    Runs the query as of both versions and prints the changeset that turns the first result into
    the second: deletions and modifications index the result at --from, insertions and
    modifications_new the result at --to, moves are (from, to) pairs (UIKit batch-update
    semantics). json: one object with the keys of `watch` plus "from" and "to". --ids adds
    the keys of the records at --to.
    """,
  run: { arguments, context in
    let collection = try CollectionOption(&arguments)
    let queryArguments = try CollectionOption.queryArguments(&arguments)
    let sorts = try arguments.values("--sort")
    guard let from = try arguments.integer("--from", in: UInt64(0)...UInt64.max),
      let to = try arguments.integer("--to", in: UInt64(0)...UInt64.max)
    else { throw UsageError(message: "diff needs --from LSN and --to LSN") }
    let format = try arguments.choice("--format", ["text", "json"]) ?? "text"
    let withIDs = arguments.flag("--ids")
    let positional = try arguments.remaining()
    guard positional.count == 1, let text = positional.first else {
      throw UsageError(message: "diff needs exactly one PREDICATE (quote it)")
    }
    guard from <= to else { throw UsageError(message: "--from \(from) is after --to \(to)") }
    let store = try context.openStore(readOnly: true)
    let query = try collection.query(text, in: store, arguments: queryArguments, sorts: sorts, limit: nil)
    let diff = try collection.objects(in: store).with(query).diff(from: from, to: to)
    let ids = withIDs || format == "text" ? try diff.to.keys() : nil
    if format == "json" {
      var line = ChangesetJSON.object(
        kind: "diff", lsn: to, count: diff.to.count, changeset: diff.changeset, ids: withIDs ? ids : nil)
      line.removeLast()
      context.output.line(line + ",\"from\":\(from),\"to\":\(to)}")
    } else {
      let before = try diff.from.keys()
      context.output.line("\(query.text): \(diff.from.count) results at \(from), \(diff.to.count) at \(to)")
      for index in diff.changeset.deletionsExcludingMoves {
        context.output.line("- [\(index)] \(before[index])")
      }
      for index in diff.changeset.insertionsExcludingMoves {
        context.output.line("+ [\(index)] \(ids.map { $0[index].description } ?? "?")")
      }
      for (old, new) in zip(diff.changeset.modifications, diff.changeset.modificationsNew) {
        context.output.line("~ [\(old)→\(new)] \(before[old])")
      }
      for move in diff.changeset.moves {
        context.output.line("↕ [\(move.from)→\(move.to)] \(before[move.from])")
      }
    }
    return 0
  }
)

let exportCommand = Command(
  name: "export",
  summary: "write the log as portable NDJSON",
  help: """
    usage: livelog export [--from LSN] [--collection NAME]

    Writes one JSON object per event to standard output: lsn, time, time_us, format, collection,
    schema_version, op (upsert, delete or schema), id (the key), row, previous (the LSN of the version
    replaced), commit_end, record (upserts, shaped by the event's schema version), schema
    (schema events: the new version) and checksum (the event's CRC-32C). The same log always
    exports to the same bytes. `livelog import` reads it back; `export --from N` sends a follower
    what it lacks. With --collection, only that collection's events (such an export is for
    reading, not for import, which needs every event).
    """,
  run: { arguments, context in
    let from = try arguments.integer("--from", in: UInt64(1)...UInt64.max) ?? 1
    let collection = try arguments.value("--collection")
    try arguments.finish()
    let store = try context.openStore(readOnly: true)
    try store.export(from: from, collection: collection) { context.output.line(bytes: $0) }
    return 0
  }
)

let importCommand = Command(
  name: "import",
  summary: "append an export's events; what the store holds already is skipped",
  help: """
    usage: livelog import FILE   (- for standard input)

    Reads an export. Events at or below the store's version must equal the stored ones and are
    skipped, so importing twice changes nothing; the rest must continue the log without a gap.
    A damaged line (bad checksum), a conflicting event or a gap is refused with exit status 2,
    and nothing is written.
    """,
  run: { arguments, context in
    let paths = try arguments.remaining()
    guard paths.count == 1, let path = paths.first else { throw UsageError(message: "import needs one FILE") }
    let file = try RecordFile(path: path, format: .ndjson)
    let store = try context.openStore()
    do {
      let summary = try store.importEvents(from: file)
      context.output.line(
        "\(grouped(summary.appended)) events appended, \(grouped(summary.skipped)) already present; "
          + "store version \(summary.version)")
    } catch let error as StoreError {
      throw ExitStatus(status: 2, message: "error: \(error)\nnothing was written.")
    }
    return 0
  }
)

func seconds(since start: Date) -> String {
  String(format: "%.2f s", Date().timeIntervalSince(start))
}
