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
                   indexes or row tables, or to upgrade a store of an older format); the old
                   data file is kept as data.mdb.before-repair. The stream position of a
                   replica is kept. No other process may have the store open.
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
      // An older format's store is rebuilt the same way: the rebuild is its upgrade.
      if let found = Store.formatAwaitingUpgrade(directory: context.storePath) {
        context.noteUpgrade(from: found)
      }
      let bar = ProgressBar("rebuilding", total: 1000)
      let started = Date()
      let digest = try Store.repair(directory: context.storePath) { progress in
        bar.update(
          ProgressBar.thousandths(progress.completed, of: progress.total), detail: progress.description)
      }
      bar.finish()
      let store = TerminalSafe.escaped(context.storePath)
      output.line("rebuilt \(store) in place from its log in \(seconds(since: started)); digest \(digest)")
      output.line("the previous data file is kept as \(store)/data.mdb.before-repair")
      return 0
    }
    let store = try context.openStore(readOnly: true)
    let version = try store.version()
    if let to, to > version {
      throw UsageError(message: "--to \(to) is past the store's version \(version)")
    }
    let target = to ?? version
    let started = Date()
    // Progress in thousandths: no count from the store or the command line is converted to Int.
    let bar = ProgressBar("replaying", total: 1000)
    if verify {
      let report = try store.verify { stage, done, total in
        bar.update(ProgressBar.thousandths(done, of: total), detail: "\(stage): \(grouped(done))")
      }
      bar.finish()
      guard let difference = report.difference else {
        output.line(
          "verified: \(grouped(report.events)) events, the rebuilt state equals the live state "
            + "(digest \(report.digest), \(seconds(since: started)))")
        return 0
      }
      throw ExitStatus(
        status: 1,
        message: "verification failed: \(difference). The log is sound: `livelog --store "
          + "\(TerminalSafe.escaped(context.storePath)) replay --in-place` rebuilds the state from it")
    }
    let scratchParent = FileManager.default.temporaryDirectory.path
    if into == nil { ScratchDirectories.sweep(in: scratchParent, prefix: "livelog-replay-") }
    let directory = into ?? ScratchDirectories.path(in: scratchParent, prefix: "livelog-replay-")
    // A directory this command creates goes again if the replay fails: what is left of a replay
    // cut short is of no use (and refuses to open). lstat, not fileExists: a dangling link is
    // something this command did not create, and must not remove.
    let created = !StorePath.entryExists(directory)
    var succeeded = false
    defer {
      if into == nil || (created && !succeeded) { try? FileManager.default.removeItem(atPath: directory) }
    }
    var options = StoreOptions()
    options.durability = .noSync
    let rebuilt = try store.replay(into: directory, through: target, options: options) { progress in
      bar.update(
        ProgressBar.thousandths(progress.completed, of: progress.total), detail: progress.description)
    }
    try rebuilt.sync()
    succeeded = true
    bar.finish()
    let elapsed = Date().timeIntervalSince(started)
    let rate = elapsed > 0 ? UInt64(min(Double(target) / elapsed, 1e18)) : 0
    output.line(
      "replayed \(grouped(target)) events in \(seconds(since: started)) (\(grouped(rate)) events/s); "
        + "\(grouped(try rebuilt.collections().reduce(0) { $0 + $1.records })) records; digest \(try rebuilt.digest())"
    )
    if into != nil { output.line("rebuilt store: \(TerminalSafe.escaped(directory))") }
    return 0
  }
)

let verifyCommand = Command(
  name: "verify",
  summary: "check the log (checksums, contiguous LSNs) and that the state equals its replay",
  help: """
    usage: livelog verify [--in-process]

    First reads every page of the data file without LMDB: both meta pages, the file's size, and
    every page of every database (bounds, order of keys, counts, the free list), naming each
    damaged page. Then reads every event of the log, checking its checksum, that LSNs are
    contiguous and that each event's link to the version it replaces points back in the log;
    rebuilds the state from the log and compares it with the live state. Exits 1 naming the
    problems, and what to run next (`replay --in-place` or `salvage`).

    The checks through LMDB run in a child process, so that a fault on a damaged page becomes a
    report; --in-process runs only them, in this process.
    """,
  run: { arguments, context in
    let inProcess = arguments.flag("--in-process")
    try arguments.finish()
    guard inProcess else { return try VerifyRun(context: context).run() }
    let store = try context.openStore(readOnly: true)
    let bar = ProgressBar("verifying", total: 1000)
    let started = Date()
    let report = try store.verify { stage, done, total in
      bar.update(ProgressBar.thousandths(done, of: total), detail: stage)
    }
    bar.finish()
    context.output.line("log: \(grouped(report.events)) events, checksums and LSNs sound")
    if let difference = report.difference {
      throw ExitStatus(
        status: 1,
        message: "state: differs from its replay: \(difference). The log is sound: `livelog --store "
          + "\(TerminalSafe.escaped(context.storePath)) replay --in-place` rebuilds the state from it")
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
      context.output.line(
        "\(TerminalSafe.escaped(query.text)): \(diff.from.count) results at \(from), \(diff.to.count) at \(to)"
      )
      for index in diff.changeset.deletionsExcludingMoves {
        context.output.line("- [\(index)] \(TerminalSafe.escaped(before[index].description))")
      }
      for index in diff.changeset.insertionsExcludingMoves {
        context.output.line("+ [\(index)] \(ids.map { TerminalSafe.escaped($0[index].description) } ?? "?")")
      }
      for (old, new) in zip(diff.changeset.modifications, diff.changeset.modificationsNew) {
        context.output.line("~ [\(old)→\(new)] \(TerminalSafe.escaped(before[old].description))")
      }
      for move in diff.changeset.moves {
        context.output.line(
          "↕ [\(move.from)→\(move.to)] \(TerminalSafe.escaped(before[move.from].description))")
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
