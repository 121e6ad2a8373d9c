import Foundation
import LMDB

extension Store {
  /// Rebuilds a store in `directory` (new or empty) from every intact event of the data file at
  /// `dataFile` — typically a damaged store's `data.mdb`, which is only read, with `pread`, never
  /// mapped — like SQLite's `.recover`. See `LogSalvage` for how events are found.
  ///
  /// The new store holds the longest run of whole commits from LSN 1: events after the first gap
  /// are not applied, since each may replace a version the gap held, and a partial commit is not
  /// applied either. They are written, in the format of `export`, one file per run of LSNs, to
  /// `directory/unapplied-events-FIRST-LAST.ndjson`, from where `import` takes them once the gap
  /// before them is filled from another copy of the log. Until the salvage is done, the new store refuses to open.
  public static func salvage(
    dataFile: String, into directory: String, options: StoreOptions = StoreOptions(),
    progress: (String) -> Void = { _ in }
  ) throws -> SalvageReport {
    if StorePath.entryExists(directory) {
      let entries = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? ["?"]
      guard entries.isEmpty else {
        throw StoreError.unusablePath(
          path: directory,
          reason: "it is not empty; a salvage builds a new store, give a new or empty directory")
      }
    }
    progress("reading \(dataFile)")
    var salvage = try LogSalvage(path: dataFile)
    salvage.collect()
    let found = salvage.events.keys.sorted()
    let end = max(salvage.expectedLastLSN ?? 0, found.last ?? 0)
    var lost = LSNRanges()
    var next: UInt64 = 1
    for lsn in found {
      if lsn > next { lost.append(next...(lsn - 1)) }
      next = lsn + 1
    }
    if end >= next { lost.append(next...end) }

    // The prefix of whole commits, checked against the state as a replay checks it.
    var prefix = SalvageFollower()
    var lastWhole: UInt64 = 0
    var lsn: UInt64 = 1
    while let event = salvage.events[lsn] {
      guard let bytes = salvage.bytes(of: lsn), (try? prefix.follow(bytes, lsn: lsn)) != nil else { break }
      if event.endsCommit { lastWhole = lsn }
      lsn += 1
    }

    progress("building the new store")
    var options = options
    options.readOnly = false
    let target = try Store(directory: directory, options: options)
    guard try target.version() == 0 else {
      throw StoreError.unusablePath(path: directory, reason: "it holds a store with events already")
    }
    try target.environment.write { try target.markReplayIncomplete($0) }
    var first: UInt64 = 1
    while first <= lastWhole {
      let last = min(lastWhole, first + UInt64(Replayer.eventsPerTransaction) - 1)
      var batch: [(lsn: UInt64, bytes: [UInt8])] = []
      for lsn in first...last {
        guard let bytes = salvage.bytes(of: lsn) else {
          throw StoreError.corruptEvent(lsn: lsn, reason: "it can no longer be read from \(dataFile)")
        }
        batch.append((lsn, bytes))
      }
      try target.appendRawEvents(batch)
      progress("applied \(last.formatted()) of \(lastWhole.formatted()) events")
      first = last + 1
    }
    let unapplied = LSNRanges(ascending: found.filter { $0 > lastWhole })
    // One file per run: `import` takes a run once the log reaches it.
    var unappliedFiles: [String] = []
    // The collections as every found event defines them, so that records after a gap decode
    // under the schema version they were written with.
    var catalog = ReplayCatalog()
    for lsn in found {
      guard let bytes = salvage.bytes(of: lsn) else { continue }
      try? bytes.withUnsafeBytes { raw in
        let header = try EventCodec.header(raw, lsn: lsn)
        if header.kind == .schema { try catalog.follow(schemaEvent: header) }
      }
    }
    for run in unapplied.ranges {
      let path = directory + "/unapplied-events-\(run.lowerBound)-\(run.upperBound).ndjson"
      var text: [UInt8] = []
      for lsn in run {
        guard let bytes = salvage.bytes(of: lsn) else {
          throw StoreError.corruptEvent(lsn: lsn, reason: "it can no longer be read from \(dataFile)")
        }
        // An event whose collection's schema event was lost cannot be written as JSON: its
        // stored bytes are kept instead, for an import once the gap is filled.
        let line =
          (try? bytes.withUnsafeBytes { raw -> [UInt8] in
            let header = try EventCodec.header(raw, lsn: lsn)
            let schema = header.kind == .schema ? nil : try catalog.schema(for: header)
            return LogExport.line(
              header, try header.event(recordSchema: schema), checksum: LogExport.storedChecksum(raw))
          }) ?? LogExport.rawLine(lsn: lsn, bytes: bytes)
        text += line
        text.append(0x0A)
      }
      try Data(text).write(to: URL(fileURLWithPath: path))
      unappliedFiles.append(path)
    }
    try target.environment.write {
      _ = try $0.delete(target.meta, StoreLayout.incompleteReplayKey)
    }
    try target.sync()
    var applied = LSNRanges()
    if lastWhole > 0 { applied.append(1...lastWhole) }
    return SalvageReport(
      source: dataFile, pageSize: salvage.pageSize, pages: salvage.file.pageCount(pageSize: salvage.pageSize),
      notes: salvage.notes, fromTree: salvage.fromTree, fromScan: salvage.fromScan,
      expectedLastLSN: salvage.expectedLastLSN, lengthIsFinal: salvage.lengthIsFinal,
      recovered: LSNRanges(ascending: found), lost: lost,
      ambiguous: salvage.ambiguous.sorted(), applied: applied, unapplied: unapplied,
      unappliedFiles: unappliedFiles, target: directory,
      records: try target.collections().reduce(0) { $0 + $1.records },
      digest: try target.digest())
  }
}

/// Follows events from LSN 1 as a replay does — the collections their schema events make, and
/// each collection's rows — so that a salvage applies only a prefix that agrees with itself.
private struct SalvageFollower {
  private var catalog = ReplayCatalog()
  private var trackers: [UInt32: RowTracker] = [:]

  mutating func follow(_ bytes: [UInt8], lsn: UInt64) throws {
    try bytes.withUnsafeBytes { raw in
      let header = try EventCodec.header(raw, lsn: lsn)
      if header.kind == .schema {
        try catalog.follow(schemaEvent: header)
        return
      }
      let schema = try catalog.schema(for: header)
      let entry = try catalog.entry(for: header)
      guard let current = entry.versions.last?.schema else {
        throw StoreError.corruptEvent(lsn: lsn, reason: "its collection has no schema")
      }
      if header.isUpsert {
        do {
          try RecordCodec.check(header.payload, schema: schema)
        } catch {
          throw StoreError.corruptEvent(lsn: lsn, reason: "\(error)")
        }
      }
      try trackers[entry.id, default: RowTracker()].follow(
        FollowedEvent(header, key: try header.key(current.primaryKey)))
    }
  }
}
