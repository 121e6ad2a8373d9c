import Foundation
import LMDB

/// `Store.repair`: rebuilds a store's state from its log and swaps the rebuilt data file in, so
/// that no crash at any moment loses a committed event.
///
/// - It holds the store alone (`ExclusiveAccess`): it refuses to start while any other process
///   has the store open, and a process that opens it meanwhile waits until the repair is done.
///   Without this, a writer beside the repair would go on committing into the old file.
/// - `data.mdb` names a complete data file at every moment: the old file gets its second name
///   (`data.mdb.before-repair`) by a hard link, and the rebuilt file, synced first, replaces
///   `data.mdb` in one rename. Each step is synced before the next one relies on it.
/// - It never starts from a missing or empty `data.mdb` while `data.mdb.before-repair` exists
///   (see `InterruptedRepair`), nor from a damaged one (that is for `salvage`).
struct InPlaceRepair {
  let directory: String
  let options: StoreOptions

  private var data: String { directory + "/" + InterruptedRepair.dataName }
  private var kept: String { directory + "/" + InterruptedRepair.keptName }
  /// The hard link that becomes `kept` in one rename, so that an older kept copy is replaced
  /// atomically.
  private var pendingKept: String { kept + ".new" }
  static let scratchPrefix = ".rebuild-"

  /// Rebuilds the store, upgrading it when it is of an older format, and returns the digest of
  /// the rebuilt state.
  func run(progress: (ReplayProgress) -> Void) throws -> StateDigest {
    try rebuild(progress: progress)
    return try Store(directory: directory, options: options).digest()
  }

  /// Rebuilds the store: its log is copied as it is, its state is replayed from the log in the
  /// current format, and a store of an older format is marked with the current one once the
  /// rebuilt file is in place. Its stream position and replica id are kept
  /// (`Store.copyReplication`): the log they describe is the same.
  func rebuild(progress: (ReplayProgress) -> Void) throws {
    guard StorePath.entryExists(directory) else {
      if let problem = StorePath.problem(creating: directory) {
        throw StoreError.unusablePath(path: directory, reason: problem)
      }
      throw StoreError.noStore(path: directory)
    }
    // The marker check of a normal open, without creating anything.
    let format = try StoreDirectory(path: directory).prepare(readOnly: true)
    let upgrading = format < StoreDirectory.currentFormat
    let access = try ExclusiveAccess.store(at: directory)
    CrashPoint.reached("invalidate \(access.lockFilePath)")
    try access.invalidateLockFile()
    try removeLeftovers()
    try InterruptedRepair.check(directory: directory)
    guard DurableFiles.size(data) != nil else { throw StoreError.noStore(path: directory) }

    let scratch = directory + "/" + InPlaceRepair.scratchPrefix + "\(getpid())"
    do {
      // Only the log is read (and the stream position copied): the state is what is rebuilt, so
      // damage to it, or an older format's layout of it, does not stop the rebuild. A store of
      // format 1 is opened writable for the empty catalog database a writable open makes (it
      // had none), which changes nothing it holds.
      var live = options
      live.readOnly = !upgrading
      live.exclusive = true
      live.logOnly = true
      live.recordTypes = []
      let store = try Store(directory: directory, options: live)
      _ = try store.checkLog()
      var scratchOptions = options
      scratchOptions.durability = .noSync
      let rebuilt = try store.replay(into: scratch, options: scratchOptions, progress: progress)
      try store.copyReplication(to: rebuilt)
      try rebuilt.sync()
    } catch {
      try? FileManager.default.removeItem(atPath: scratch)
      throw error
    }
    try swap(in: scratch)
    if upgrading { try StoreDirectory(path: directory).writeMarker() }
    // Released only now: a process that waited opens the rebuilt file.
    access.release()
  }

  /// The rebuilt data file replaces the live one; the live one stays as `data.mdb.before-repair`.
  private func swap(in scratch: String) throws {
    let rebuilt = scratch + "/" + InterruptedRepair.dataName
    try DurableFiles.sync(rebuilt)
    try DurableFiles.sync(scratch)
    try DurableFiles.unlink(pendingKept)
    do {
      try DurableFiles.link(data, pendingKept)
    } catch {
      guard [EXDEV, EPERM, EMLINK, ENOTSUP, EOPNOTSUPP].contains(error.code) else { throw error }
      // No hard links here: two renames, between which `data.mdb` is missing for a moment. A
      // crash there leaves the state `InterruptedRepair` refuses to open, and says how to resume.
      try DurableFiles.rename(data, pendingKept)
    }
    try DurableFiles.sync(directory)
    try DurableFiles.rename(pendingKept, kept)
    // Renaming one name of a file onto another name of the same file does nothing: so it is when
    // an earlier repair was cut short after its own rename.
    if DurableFiles.exists(pendingKept) { try DurableFiles.unlink(pendingKept) }
    try DurableFiles.sync(directory)
    try DurableFiles.rename(rebuilt, data)
    try DurableFiles.sync(directory)
    try removeScratch(scratch)
  }

  /// What an earlier repair cut short left behind: its scratch directories (no repair can be
  /// running, this one holds the store) and a pending hard link.
  private func removeLeftovers() throws {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
    for name in names where name.hasPrefix(InPlaceRepair.scratchPrefix) {
      try removeScratch(directory + "/" + name)
    }
    if DurableFiles.exists(pendingKept) { try DurableFiles.unlink(pendingKept) }
  }

  private func removeScratch(_ scratch: String) throws {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: scratch)) ?? []
    for name in names { try DurableFiles.unlink(scratch + "/" + name) }
    try DurableFiles.removeDirectory(scratch)
  }
}
