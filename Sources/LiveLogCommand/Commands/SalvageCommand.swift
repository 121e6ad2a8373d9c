import Foundation
import LiveLog

let salvageCommand = Command(
  name: "salvage",
  summary: "rebuild a new store from every intact event of a damaged store's log",
  help: """
    usage: livelog salvage --into DIR [--from FILE] [--format text|json]

    For a store whose data file is damaged (`verify` names the damage), like SQLite's .recover:
    reads the data file (default: the store's data.mdb; --from FILE reads another, such as
    data.mdb.before-repair) without LMDB and without changing it, finds every intact event of
    the log — through the log's B-tree from each intact meta page, and by reading every page of
    the file where the tree does not reach — and builds a new store in DIR (new or empty) from
    them. An event is intact when its checksum, which covers its LSN, holds.

    The new store holds the whole commits from LSN 1 up to the first missing event. Events found
    after a gap are not applied (each may replace a version the gap held); they are written, in
    the format of `export`, one file per run of LSNs, to DIR/unapplied-events-FIRST-LAST.ndjson,
    which `import` takes once the gap before it is filled from another copy of the log. The
    report names the LSN ranges recovered, lost and not applied. json: one object with
    "recovered", "lost", "applied", "unapplied" (arrays of [first, last] LSN pairs),
    "unapplied_files", "expected_last_lsn", "length_is_final", "from_tree", "from_scan",
    "records", "digest", "notes".

    Exit status: 0 when the new store holds every event of the log, 1 when events were lost or
    not applied (the new store is made all the same), 2 for a usage error.
    """,
  run: { arguments, context in
    guard let into = try arguments.value("--into") else {
      throw UsageError(message: "salvage needs --into DIR")
    }
    let from = try arguments.value("--from") ?? context.storePath + "/data.mdb"
    let format = try arguments.choice("--format", ["text", "json"]) ?? "text"
    try arguments.finish()
    guard StorePath.entryExists(from) else {
      throw ExitStatus(
        status: 1,
        message: "error: \(TerminalSafe.escaped(from)) does not exist: there is no data file to salvage")
    }
    var options = StoreOptions()
    if let limit = context.maximumMapSize { options.maximumMapSize = limit }
    let report = try Store.salvage(dataFile: from, into: into, options: options)
    let output = context.output
    if format == "json" {
      func ranges(_ value: LSNRanges) -> String {
        "[" + value.ranges.map { "[\($0.lowerBound),\($0.upperBound)]" }.joined(separator: ",") + "]"
      }
      let parts = [
        "\"source\":\(jsonString(report.source))", "\"into\":\(jsonString(report.target))",
        "\"page_size\":\(report.pageSize)", "\"pages\":\(report.pages)",
        "\"expected_last_lsn\":\(report.expectedLastLSN.map(String.init) ?? "null")",
        "\"length_is_final\":\(report.lengthIsFinal)",
        "\"from_tree\":\(report.fromTree)", "\"from_scan\":\(report.fromScan)",
        "\"recovered\":\(ranges(report.recovered))", "\"lost\":\(ranges(report.lost))",
        "\"ambiguous\":[\(report.ambiguous.map(String.init).joined(separator: ","))]",
        "\"applied\":\(ranges(report.applied))", "\"unapplied\":\(ranges(report.unapplied))",
        "\"unapplied_files\":[\(report.unappliedFiles.map(jsonString).joined(separator: ","))]",
        "\"records\":\(report.records)", "\"digest\":\"\(report.digest)\"",
        "\"notes\":[\(report.notes.map(jsonString).joined(separator: ","))]",
      ]
      output.line("{" + parts.joined(separator: ",") + "}")
    } else {
      output.line(
        "salvage of \(TerminalSafe.escaped(report.source)): \(grouped(report.pages)) pages of "
          + "\(grouped(report.pageSize)) bytes")
      for note in report.notes { output.line("  " + TerminalSafe.escaped(note)) }
      output.line("recovered: \(report.recovered)")
      if !report.lengthIsFinal {
        let last = report.recovered.ranges.last.map { " after LSN \(grouped($0.upperBound))" } ?? ""
        output.line(
          "lost: \(report.lost); the log's length is not known for certain (no intact current meta page "
            + "leads to its record), so events\(last) may be lost too")
      } else {
        output.line("lost: \(report.lost)")
      }
      if !report.ambiguous.isEmpty {
        output.line(
          "ambiguous (two different intact events, counted as lost): "
            + report.ambiguous.prefix(20).map { "LSN \($0)" }.joined(separator: ", "))
      }
      output.line(
        "new store \(TerminalSafe.escaped(report.target)): "
          + (report.applied.isEmpty ? "no events" : "\(report.applied)") + ", "
          + "\(grouped(report.records)) records, digest \(report.digest)")
      if !report.unappliedFiles.isEmpty {
        output.line(
          "not applied (after the first gap): \(report.unapplied); written, one file per run, to "
            + report.unappliedFiles.map(TerminalSafe.escaped).joined(separator: ", "))
        output.line(
          "  `livelog --store \(TerminalSafe.escaped(report.target)) import FILE` takes a run once the gap "
            + "before it is filled, e.g. from `livelog export --from N` of a backup or a replica")
      }
    }
    guard report.isComplete else {
      throw ExitStatus(
        status: 1,
        message: "error: the salvage is not complete: \(report.lost.count) events lost, "
          + "\(report.unapplied.count) not applied (see the report); the new store holds "
          + (report.applied.isEmpty ? "no events" : "\(report.applied)"))
    }
    return 0
  }
)
