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

  /// Rebuilds the state from the log in a scratch store (under `scratchParent`, by default the
  /// system's temporary directory; its directory is removed as soon as the store is open, so
  /// that nothing is left behind however the process ends) and compares it with the live state:
  /// their digests (`StateDigest`, 64 bits per database) and, when those differ, entry by entry
  /// to name the first difference.
  ///
  /// Everything is as of one snapshot of the live store, taken first: the log is checked, replayed
  /// and compared up to that snapshot's version, so commits that other threads or processes make
  /// meanwhile are neither checked nor reported as differences.
  public func verify(
    scratchParent: String? = nil, progress: (String, UInt64, UInt64) -> Void = { _, _, _ in }
  ) throws -> VerificationReport {
    let (live, state) = try makeSnapshot()
    let version = try live.read { try log.lastLSN($0) }
    let events = try checkLog(in: live) { progress("checking the log", $0, $1) }
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
    try Replayer(source: self, target: rebuilt).run(through: version) {
      progress($0.description, $0.completed, $0.total)
    }
    let (copy, copyState) = try rebuilt.makeSnapshot()
    // Both digests at once, one per core; the comparison entry by entry, which reads both stores
    // again, only to name the first difference when the digests disagree.
    let digests = try ParallelMap.map(2, minimumPerWorker: 1) { side in
      side == 0
        ? try live.read { try self.digest($0, state) } : try copy.read { try rebuilt.digest($0, copyState) }
    }
    return VerificationReport(
      events: events, digest: digests[0],
      difference: digests[0] == digests[1] ? nil : try firstDifference(from: rebuilt, live: live, state))
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
