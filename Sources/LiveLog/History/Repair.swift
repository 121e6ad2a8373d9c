import Foundation
import LMDB

/// Checks of a store's log and state, for `livelog verify` and `replay --verify`.
public struct VerificationReport: Sendable {
  /// Events read and checked (checksum, contiguous LSN, version links).
  public var events: UInt64
  /// The live state's digest.
  public var digest: StateDigest
  /// The first difference between the live state and the state rebuilt from the log, if any.
  public var difference: StateDifference?

  /// Whether the log is sound and the live state equals its replay.
  public var passed: Bool { difference == nil }
}

extension Store {
  /// Reads every event, checking its checksum, that LSNs are contiguous and that each event's
  /// version link points back in the log. Returns the number of events.
  public func checkLog(progress: (UInt64, UInt64) -> Void = { _, _ in }) throws -> UInt64 {
    try checkLog(in: environment.makeSnapshot(), progress: progress)
  }

  /// `checkLog` as of one snapshot of the store.
  func checkLog(in snapshot: Snapshot, progress: (UInt64, UInt64) -> Void) throws -> UInt64 {
    try snapshot.read { txn in
      let last = try log.lastLSN(txn)
      var count: UInt64 = 0
      try log.forEachHeader(from: 1, through: last, txn) { header in
        count += 1
        if count % 50_000 == 0 { progress(count, last) }
      }
      progress(count, last)
      return count
    }
  }

  /// Checks the log and rebuilds the state from it in a scratch store (under `scratchParent`, by
  /// default the system's temporary directory; its directory is removed as soon as the store is
  /// open, so that nothing is left behind however the process ends) and compares it with the live
  /// state: their digests (`StateDigest`, 64 bits per database) and, when those differ, entry by
  /// entry to name the first difference.
  ///
  /// Everything is as of one snapshot of the live store, taken first: the log is checked, replayed
  /// and compared up to that snapshot's version, so commits that other threads or processes make
  /// meanwhile are neither checked nor reported as differences.
  public func verify(
    scratchParent: String? = nil, progress: (String, UInt64, UInt64) -> Void = { _, _, _ in }
  ) throws -> VerificationReport {
    let (live, state) = try makeSnapshot()
    let version = try live.read { try log.lastLSN($0) }
    let parent = scratchParent ?? FileManager.default.temporaryDirectory.path
    ScratchDirectories.sweep(in: parent, prefix: "livelog-verify-")
    let scratch = ScratchDirectories.path(in: parent, prefix: "livelog-verify-")
    var scratchOptions = StoreOptions()
    scratchOptions.durability = .noSync
    scratchOptions.mapSize = max(scratchOptions.mapSize, environment.info.mapSize)
    let rebuilt = try Store(directory: scratch, options: scratchOptions)
    // Gone from the directory before the replay starts: a verify killed at any moment leaves no
    // scratch store behind.
    ScratchDirectories.detach(scratch)
    // The live digest meanwhile, on the core the replay leaves idle in its serial steps.
    let liveDigest = BackgroundWork { try live.read { try self.digest($0, state) } }
    // Not left running past the call, even when the replay fails.
    defer { _ = try? liveDigest.value() }
    // The scratch state without its indexes: what they would hold is fingerprinted from the
    // records, which the comparison needs, rather than laid out in pages, which it does not.
    var replayer = Replayer(source: self, target: rebuilt)
    replayer.buildsIndexes = false
    // Nor its log: the copy would be the events the replay checks, byte for byte. The rows and
    // the checkpoints compare without it; only naming a difference reads it (below).
    replayer.copiesLog = false
    // Nor its key tables: their digests, from the records' keys, cost a fraction of a put per key.
    replayer.writesKeys = false
    let unwritten = try replayer.run(through: version) {
      // The first step checks the log, copying nothing.
      let step = $0.step == .copyingLog ? $0.description(naming: "checking the log") : $0.description
      progress(step, $0.completed, $0.total)
    }
    // The marker a replay without indexes, log or keys leaves is not content: the scratch store, gone
    // from its directory, is never opened again.
    try rebuilt.environment.write { txn in _ = try txn.delete(rebuilt.meta, StoreLayout.incompleteReplayKey) }
    // A replay's log is the live one's events 1 ... version copied byte for byte (events are
    // never rewritten, only appended after), all of which the replay checked: the live log's
    // digest stands for it. Unless the live log holds other entries too (a key outside them,
    // which the replay's walk skips): the scratch digest then has no log, so the digests
    // disagree and the comparison below, with the copy written, names the difference.
    let logName = rebuilt.log.database.name
    // The key tables the replay computed digests for in place of writing them (the others, of
    // collections without events, are empty and read as such).
    var rebuiltDigest = try rebuilt.read {
      try rebuilt.digest(
        $0, $1, indexFingerprints: unwritten.indexFingerprints,
        skipping: Set([logName] + unwritten.keyDigests.keys))
    }
    rebuiltDigest.databases.merge(unwritten.keyDigests) { _, computed in computed }
    let digest = try liveDigest.value()
    if let liveLog = digest.databases[log.database.name], liveLog.entries == version {
      rebuiltDigest.databases[logName] = liveLog
    }
    // The replay checked every event as `checkLog` does (checksum, contiguous LSNs from 1, each
    // version link) and more (each link names the key's current version), so the log is not read
    // a third time.
    let events = version
    // The comparison entry by entry, which reads both stores again, only to name the first
    // difference when the digests disagree.
    guard digest != rebuiltDigest else {
      return VerificationReport(events: events, digest: digest, difference: nil)
    }
    // Entry by entry needs the scratch's log, keys and indexes themselves.
    try copyLog(through: version, from: live, into: rebuilt)
    let copyState = try rebuilt.catalog.refresh()
    try rebuilt.environment.write { txn in
      for collection in copyState.all {
        try collection.rebuildKeys(txn)
        try collection.rebuildIndexes(txn)
      }
    }
    return VerificationReport(
      events: events, digest: digest, difference: try firstDifference(from: rebuilt, live: live, state))
  }

  /// Copies the events `1 ... version` of this store's log, as `live` sees them, into the log of
  /// `scratch`, a verification's replay that holds none, byte for byte.
  private func copyLog(through version: UInt64, from live: Snapshot, into scratch: Store) throws {
    var next: UInt64 = 1
    while next <= version {
      let end = min(version, next + UInt64(Replayer.eventsPerTransaction) - 1)
      try live.read { source in
        try scratch.environment.write { txn in
          try log.forEachRaw(from: next, through: end, source) { lsn, bytes in
            try scratch.log.append(bytes, at: lsn, txn)
            return true
          }
        }
      }
      next = end + 1
    }
  }

  /// Rebuilds the store in `directory` from its log and swaps the rebuilt state in, for a store
  /// whose materialized state (records or indexes) is damaged. The old data file is kept beside
  /// it as `data.mdb.before-repair`.
  ///
  /// Crash-atomic: killed at any moment, the store holds either its old data file or the rebuilt
  /// one, both complete. It refuses to start while another process has the store open
  /// (`StoreError.inUse`), and processes that open the store meanwhile wait for it. See
  /// `InPlaceRepair`.
  public static func repair(
    directory: String, options: StoreOptions = StoreOptions(),
    progress: (ReplayProgress) -> Void = { _ in }
  ) throws -> StateDigest {
    try InPlaceRepair(directory: directory, options: options).run(progress: progress)
  }
}
