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

  /// Rebuilds the state from the log in a scratch directory (`scratchParent`, by default the
  /// system's temporary directory) and compares it with the live state, entry by entry.
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
    let parent = scratchParent.map { URL(fileURLWithPath: $0) } ?? FileManager.default.temporaryDirectory
    let scratch = parent.appendingPathComponent("livelog-verify-\(UUID().uuidString)").path
    defer { try? FileManager.default.removeItem(atPath: scratch) }
    var scratchOptions = StoreOptions()
    scratchOptions.durability = .noSync
    let rebuilt = try replay(into: scratch, through: version, options: scratchOptions) {
      progress($0.description, $0.completed, $0.total)
    }
    return VerificationReport(
      events: events, digest: try live.read { try digest($0, state) },
      difference: try firstDifference(from: rebuilt, live: live, state))
  }

  /// Rebuilds the store in `directory` from its log and swaps the rebuilt state in, for a store
  /// whose materialized state (records or indexes) is damaged. The live files change only once the
  /// rebuild is complete; the old data file is kept beside it as `data.mdb.before-repair`.
  ///
  /// No other process may have the store open while it runs.
  public static func repair(
    directory: String, options: StoreOptions = StoreOptions(),
    progress: (ReplayProgress) -> Void = { _ in }
  ) throws -> StateDigest {
    let manager = FileManager.default
    let root = URL(fileURLWithPath: directory)
    let scratch = root.appendingPathComponent(".rebuild-\(UUID().uuidString)")
    defer { try? manager.removeItem(at: scratch) }
    var scratchOptions = options
    scratchOptions.durability = .noSync
    do {
      let live = try Store(directory: directory, options: options)
      _ = try live.checkLog()
      let rebuilt = try live.replay(into: scratch.path, options: scratchOptions, progress: progress)
      try rebuilt.sync()
    }
    let data = root.appendingPathComponent("data.mdb")
    let kept = root.appendingPathComponent("data.mdb.before-repair")
    try? manager.removeItem(at: kept)
    try manager.moveItem(at: data, to: kept)
    try manager.moveItem(at: scratch.appendingPathComponent("data.mdb"), to: data)
    // The old lock file describes readers of the old file.
    try? manager.removeItem(at: root.appendingPathComponent("lock.mdb"))
    return try Store(directory: directory, options: options).digest()
  }
}
