import Dispatch
import Foundation
import LiveLog
import Synchronization

let watchCommand = Command(
  name: "watch",
  summary: "print a query's results, then a changeset for each commit that changes them",
  help: """
    usage: livelog watch 'PREDICATE' [--collection NAME] [--sort FIELD[:asc|:desc]]... [--limit N]
                         [--arg VALUE | --arg-json JSON]... [--from LSN] [--until LSN]
                         [--key-paths FIELD,...] [--format text|json] [--ids]

    Prints the initial result, then one changeset per commit that changes it, whoever commits
    (this or another process; others' commits are seen within about 10 ms). Commits that leave the
    result as it is print nothing.

      --collection N   the collection to watch (default: repositories)
      --arg, --arg-json the values of the query's %@ and %K placeholders, as for query
      --from LSN       start from the result at version LSN and print one changeset for each
                       later commit, catching up from the log, then go on live
      --until LSN      exit after the store reaches version LSN
      --key-paths F,…  only changes to these fields count as modifications
      --format json    one object per line, flushed per line: {"kind": "initial"|"update",
                       "lsn", "count", "deletions", "insertions", "modifications",
                       "modifications_new", "moves": [[from, to], ...], "ids"?}
      --ids            include the keys of the results after each change
    """,
  run: { arguments, context in
    let collection = try CollectionOption(&arguments)
    let queryArguments = try CollectionOption.queryArguments(&arguments)
    let sorts = try arguments.values("--sort")
    let limit = try arguments.integer("--limit", in: 0...Int.max)
    let from = try arguments.integer("--from", in: UInt64(0)...UInt64.max)
    let until = try arguments.integer("--until", in: UInt64(0)...UInt64.max)
    let keyPaths = try arguments.value("--key-paths").map { $0.split(separator: ",").map(String.init) }
    let format = try arguments.choice("--format", ["text", "json"]) ?? "text"
    let withIDs = arguments.flag("--ids")
    let positional = try arguments.remaining()
    guard positional.count == 1, let text = positional.first else {
      throw UsageError(message: "watch needs exactly one PREDICATE (quote it)")
    }
    let store = try context.openStore(readOnly: true)
    let query = try collection.query(text, in: store, arguments: queryArguments, sorts: sorts, limit: limit)
    if let from, from > (try store.version()) {
      throw UsageError(message: "--from \(from) is past the store's version \(try store.version())")
    }
    let output = context.output
    output.lineBuffered = true
    let printer = DispatchQueue(label: "livelog.watch")
    let failure = Mutex<String?>(nil)
    let token = try collection.objects(in: store).with(query).observe(
      keyPaths: keyPaths, since: from, coalescing: false, on: printer,
      onError: { error in
        failure.withLock {
          $0 = "the live query stopped: \(FaultReport.message(error, storePath: context.storePath))"
        }
      }
    ) { change in
      do {
        try printChange(change, format: format, withIDs: withIDs, to: output)
      } catch {
        failure.withLock { $0 = FaultReport.message(error, storePath: context.storePath) }
      }
    }
    defer { token.invalidate() }
    while true {
      usleep(20_000)
      if let message = failure.withLock({ $0 }) { throw ExitStatus(status: 1, message: "error: \(message)") }
      if let until, try store.version() >= until {
        store.synchronizeLiveQueries()
        printer.sync {}
        return 0
      }
    }
  }
)

/// Prints one delivery of a live query as `watch` does (also used by `search --once`).
func printChange(_ change: ResultsChange<RecordValues>, format: String, withIDs: Bool, to output: Output)
  throws
{
  let results = change.results
  let ids = withIDs ? try results.keys() : nil
  switch (change, format) {
  case (.initial, "json"):
    output.line(
      ChangesetJSON.object(
        kind: "initial", lsn: results.version, count: results.count, changeset: .empty, ids: ids))
  case (.update(_, let changeset), "json"):
    output.line(
      ChangesetJSON.object(
        kind: "update", lsn: results.version, count: results.count, changeset: changeset, ids: ids))
  case (.initial, _):
    output.line("initial at \(results.version): \(results.count) results")
    for index in results.indices {
      output.line("  [\(index)] \(RecordText.title(try results.record(at: index)))")
    }
  case (.update(_, let changeset), _):
    output.line(
      "update at \(results.version): \(results.count) results; \(changeset.deletionsExcludingMoves.count) deleted, "
        + "\(changeset.insertionsExcludingMoves.count) inserted, \(changeset.modifications.count) modified, "
        + "\(changeset.moves.count) moved")
    for index in changeset.insertionsExcludingMoves {
      output.line("  + [\(index)] \(RecordText.title(try results.record(at: index)))")
    }
    for index in changeset.modificationsNew {
      output.line("  ~ [\(index)] \(RecordText.title(try results.record(at: index)))")
    }
    for move in changeset.moves {
      output.line("  ↕ [\(move.from)→\(move.to)] \(RecordText.title(try results.record(at: move.to)))")
    }
    for index in changeset.deletionsExcludingMoves { output.line("  - [\(index)]") }
  }
}
