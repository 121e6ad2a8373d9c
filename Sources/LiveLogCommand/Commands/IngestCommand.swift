import Foundation
import LiveLog
import Synchronization

let ingestCommand = Command(
  name: "ingest",
  summary: "add repositories from search responses, JSON arrays, NDJSON or CSV",
  help: """
    usage: livelog ingest [--collection NAME] [--batch N [--writers N]] [--format text|json]
                          [--input-format FORMAT] [--durability durable|no-meta-sync|no-sync]
                          [--every-version] [--progress-lsn] FILE...

    Reads each FILE (- for standard input) and commits its mutations: a search-API response
    ({"items": [...]}), a JSON array of records, NDJSON whose lines are records,
    {"upsert": {...}} or {"delete": KEY}, or CSV whose header names fields. Records are
    repositories (GitHub's API objects), or with --collection objects shaped by that
    collection's schema (see `livelog collection`); KEY is the primary key's JSON value.

    Every input is checked completely before anything is committed: a malformed record stops the
    ingest with exit status 2, a message naming file, line, column and field, and nothing written.
    Each file is one atomic commit, or with --batch N each run of N mutations. Within a commit
    the last mutation on a key wins; an upsert identical to the stored record writes no event.
    Files are mapped, not read into memory; standard input from a pipe is first copied to a
    temporary file in $TMPDIR, deleted when the command ends. A commit's pages are held in
    memory until it is written, so --batch N bounds the memory a large input takes.

    options:
      --collection NAME    the collection to ingest into (default: repositories)
      --batch N            commit every N mutations instead of once per file
      --writers N          commit N batches at once from N threads (default 1), as concurrent
                           writers of an app do: commits that arrive together share one fsync
                           (group commit), each acknowledged once durable, in any order. The
                           ingest keeps only each key's last mutation, so the order of the
                           batches changes no record; not with --every-version, whose versions
                           must keep their order
      --format text|json   the summary as text (default) or one JSON object with first_lsn,
                           last_lsn, inserted, updated, unchanged, deleted, commits
      --input-format F     search-response, array, ndjson or csv (default: detected)
      --durability D       durable (default: fsync every commit), no-meta-sync, or no-sync
                           (fastest; an operating-system crash may lose recent commits)
      --every-version      commit every input's version of a record, even when a later
                           input of this ingest replaces it (to record observations as history)
      --progress-lsn       print each commit's last LSN on its own line as soon as it is
                           committed (before the summary), for drivers that must know what
                           was acknowledged when the ingest is interrupted

    A commit that fails (a full disk, the map limit of --max-map-size) writes nothing: the
    commits before it are kept, and the message names them.
    """,
  run: { arguments, context in
    let collection = try CollectionOption(&arguments)
    let batchSize = try arguments.integer("--batch", in: 1...10_000_000)
    let format = try arguments.choice("--format", ["text", "json"]) ?? "text"
    let inputFormat = try arguments.choice("--input-format", InputFormat.allCases.map(\.rawValue))
      .flatMap(InputFormat.init(rawValue:))
    let durability = try arguments.choice("--durability", ["durable", "no-meta-sync", "no-sync"])
    let everyVersion = arguments.flag("--every-version")
    let progressLSN = arguments.flag("--progress-lsn")
    let writers = try arguments.integer("--writers", in: 1...64) ?? 1
    let paths = try arguments.remaining()
    guard !paths.isEmpty else {
      throw UsageError(message: "ingest needs at least one FILE (- for standard input)")
    }
    if writers > 1 && batchSize == nil {
      throw UsageError(message: "--writers needs --batch N: the writers commit batches")
    }
    if writers > 1 && everyVersion {
      throw UsageError(
        message:
          "--writers cannot go with --every-version: concurrent commits would not keep the versions' order")
    }

    var options = StoreOptions()
    switch durability {
    case "no-meta-sync": options.durability = .noMetaSync
    case "no-sync": options.durability = .noSync
    default: options.durability = .durable
    }
    // Repositories are read without the store, which is opened (and created) only once the
    // input has passed its checks; another collection's schema is the store's.
    var opened: Store?
    if !collection.isRepositories { opened = try context.openStore(durability: options) }
    let input = try opened.map { try collection.input(in: $0) } ?? RecordInput(Repository.self)

    // Check everything before writing anything.
    let files = try paths.map { try RecordFile(path: $0, format: inputFormat) }
    let totalBytes = files.reduce(0) { $0 + $1.byteCount }
    let checking = ProgressBar("checking", total: totalBytes)
    var kept: [[Mutation]?] = []
    var keptCount = 0
    var checkedBytes = 0
    // The position, in the whole input stream, of the last mutation of each key.
    var lastPosition: [PrimaryKey?: Int] = [:]
    var position = 0
    for file in files {
      var mutations: [Mutation] = []
      // One commit per file reuses the checked mutations (up to a bound); batches decode again.
      var keep = batchSize == nil && keptCount < 500_000
      try file.forEachMutation(for: input) { mutation, bytesRead in
        lastPosition[mutation.key] = position
        position += 1
        if keep {
          mutations.append(mutation)
          if keptCount + mutations.count >= 500_000 {
            keep = false
            mutations = []
          }
        }
        checking.update(checkedBytes + bytesRead)
      }
      checkedBytes += file.byteCount
      kept.append(keep ? mutations : nil)
      if keep { keptCount += mutations.count }
    }
    checking.finish()

    let store = try opened ?? context.openStore(durability: options)
    let writing = ProgressBar("ingesting", total: totalBytes)
    var total = CommitSummary()
    var lines: [String] = []
    var writtenBytes = 0
    context.output.lineBuffered = progressLSN
    position = 0
    /// Whether a later mutation of this ingest replaces the one at `position`.
    func isSuperseded(_ mutation: Mutation) -> Bool {
      defer { position += 1 }
      return !everyVersion && lastPosition[mutation.key] != position
    }
    for (index, file) in files.enumerated() {
      var fileSummary = CommitSummary()
      /// Commits `batches`, all at once from a thread each when there are several; reports each
      /// commit's LSN as soon as it returned, and fails with what was kept.
      func commit(_ batches: [[Mutation]]) throws {
        let results = Mutex<[Result<CommitSummary, any Error>?]>(Array(repeating: nil, count: batches.count))
        let output = context.output
        let write: @Sendable (Int) -> Void = { index in
          let result = Result { try store.write(batches[index]) }
          results.withLock { results in
            // Under the lock: the writers share the output.
            if progressLSN, case .success(let summary) = result, let last = summary.lastLSN {
              output.line("\(last)")
            }
            results[index] = result
          }
        }
        if batches.count == 1 {
          write(0)
        } else {
          // Threads of their own, not a pool sized to the cores: a commit spends most of its
          // time waiting for its fsync, and group commit needs the others to arrive meanwhile.
          let finished = DispatchGroup()
          for index in batches.indices {
            finished.enter()
            Thread {
              write(index)
              finished.leave()
            }.start()
          }
          finished.wait()
        }
        // Every commit that succeeded counts, even one that finished after another failed.
        var failed: (count: Int, mutations: Int, error: (any Error)?) = (0, 0, nil)
        for (index, result) in results.withLock({ $0 }).enumerated() {
          switch result {
          case .success(let summary): fileSummary.accumulate(summary)
          case .failure(let error):
            failed = (failed.count + 1, failed.mutations + batches[index].count, failed.error ?? error)
          case nil: break
          }
        }
        guard let error = failed.error else { return }
        var done = total
        done.accumulate(fileSummary)
        var message = "error: \(error)"
        let what =
          failed.count == 1
          ? "the failed commit of \(failed.mutations) mutations wrote nothing"
          : "the \(failed.count) failed commits of \(failed.mutations) mutations in all wrote nothing"
        if let first = done.firstLSN, let last = done.lastLSN {
          let plural = done.commits == 1 ? "" : "s"
          let which = writers > 1 ? "other" : "earlier"
          message +=
            "\nthe \(done.commits) \(which) commit\(plural) of this ingest (LSN \(first)–\(last)) are kept; \(what)."
        } else if !(error is StoreError) {
          // A StoreError says itself that nothing of the commit was written.
          message += "\nnothing was written."
        }
        throw ExitStatus(status: 1, message: message)
      }
      if let mutations = kept[index], batchSize == nil {
        try commit([mutations.filter { !isSuperseded($0) }])
      } else {
        var pending: [Mutation] = []
        // Full batches waiting for the other writers' batches.
        var together: [[Mutation]] = []
        let limit = batchSize ?? Int.max
        try file.forEachMutation(for: input) { mutation, bytesRead in
          if isSuperseded(mutation) { return }
          pending.append(mutation)
          if pending.count >= limit {
            together.append(pending)
            pending.removeAll(keepingCapacity: true)
            if together.count == writers {
              try commit(together)
              together.removeAll()
              writing.update(writtenBytes + bytesRead, detail: "\(grouped(fileSummary.events)) events")
            }
          }
        }
        if !pending.isEmpty { together.append(pending) }
        if !together.isEmpty { try commit(together) }
      }
      writtenBytes += file.byteCount
      writing.update(writtenBytes, detail: "\(grouped(total.events + fileSummary.events)) events")
      total.accumulate(fileSummary)
      lines.append("\(TerminalSafe.escaped(file.source)): \(describe(fileSummary))")
    }
    if options.durability != .durable { try store.sync() }
    writing.finish()

    let version = try store.version()
    let count = try store.count(in: collection.name)
    if format == "json" {
      var object: [String] = []
      object.append("\"first_lsn\":\(total.firstLSN.map(String.init) ?? "null")")
      object.append("\"last_lsn\":\(total.lastLSN.map(String.init) ?? "null")")
      object.append("\"inserted\":\(total.inserted)")
      object.append("\"updated\":\(total.updated)")
      object.append("\"unchanged\":\(total.unchanged)")
      object.append("\"deleted\":\(total.deleted)")
      object.append("\"commits\":\(total.commits)")
      object.append("\"version\":\(version)")
      context.output.line("{" + object.joined(separator: ",") + "}")
    } else {
      for line in lines { context.output.line(line) }
      if files.count > 1 { context.output.line("total: \(describe(total))") }
      let plural = total.commits == 1 ? "" : "s"
      let records = collection.isRepositories ? "repositories" : "records in \(collection.name)"
      context.output.line(
        "\(total.commits) commit\(plural); store version \(version); \(grouped(count)) \(records)")
    }
    return 0
  }
)

private func describe(_ summary: CommitSummary) -> String {
  var text =
    "\(grouped(summary.inserted)) inserted, \(grouped(summary.updated)) updated, "
    + "\(grouped(summary.unchanged)) unchanged, \(grouped(summary.deleted)) deleted"
  if let first = summary.firstLSN, let last = summary.lastLSN {
    text += first == last ? " (LSN \(first))" : " (LSN \(first)–\(last))"
  } else {
    text += " (no events)"
  }
  return text
}
