import LiveLog
import LiveLogReplication
import Synchronization

/// What every command gets: the store's directory, its map limit and the buffered output.
struct CommandContext {
  var storePath: String
  /// `--max-map-size`: the largest the store's map may grow to, or nil for no limit.
  var maximumMapSize: Int? = nil
  var output: Output
  /// `--nats` and `--stream`: a store opened for writing writes through this stream.
  var replication: ReplicationConfiguration? = nil
  /// The replications of the stores opened for writing, kept for the command's life.
  let held = HeldReplications()

  var replications: [Replication] { held.list.withLock { $0 } }

  /// Opens the store, read-only when the command only reads. A store of a format older than 8 is
  /// upgraded first, with a note and its progress on standard error: by a writing command, and by
  /// a reading one when the store is older than a read-only open reads as it is (format 7); a
  /// writing command's own open marks a store of format 8 up, without a note. With
  /// `--nats`, a store opened for writing writes through the stream, and has caught up with it
  /// unless `catchingUp` is false.
  func openStore(readOnly: Bool = false, durability: StoreOptions? = nil, catchingUp: Bool = true) throws
    -> Store
  {
    var options = durability ?? StoreOptions()
    options.readOnly = readOnly
    if let maximumMapSize { options.maximumMapSize = maximumMapSize }
    // A reading command reads a store it can read as it is, writing nothing: it may lack write
    // access, and another process (of an older build) may have the store open.
    if let found = Store.formatAwaitingUpgrade(directory: storePath),
      !readOnly || found < Store.oldestFormatReadAsIs
    {
      noteUpgrade(from: found)
      var writable = options
      writable.readOnly = false
      writable.progress = { printError("  \($0)") }
      // Opened and closed before the command's own open: one environment per process at a time.
      _ = try Store(directory: storePath, options: writable)
    }
    let store = try Store(directory: storePath, options: options)
    if let replication, !readOnly {
      // A writing command starts from the stream's head, so that what it checks first (a
      // collection's schema) is what the stream holds.
      let attached = try Replication(store: store, configuration: replication)
      if catchingUp { try attached.catchUp() }
      held.list.withLock { $0.append(attached) }
    }
    if store.isUnlocked {
      printError(
        "note: \(storePath) is not writable by this user: reading without LMDB's lock file, which is "
          + "safe only while no other process writes the store")
    }
    return store
  }
}

extension CommandContext {
  /// Says, before it starts, what an upgrade of the store from format `found` does and leaves.
  func noteUpgrade(from found: Int) {
    let store = TerminalSafe.escaped(storePath)
    printError(
      "note: upgrading \(store) from format \(found) to format \(Store.currentFormat): its log is replayed "
        + "into a new data file, which replaces the old one; the old one is kept as "
        + "\(store)/data.mdb.before-repair (delete it once `verify` passes)")
  }
}

/// A subcommand of `livelog`.
struct Command: Sendable {
  var name: String
  /// One line for `livelog --help`.
  var summary: String
  /// The full help of `livelog NAME --help`.
  var help: String
  var run: @Sendable (inout Arguments, CommandContext) throws -> Int32
}

/// What keeps a command's replications open while it runs.
final class HeldReplications: Sendable {
  let list = Mutex<[Replication]>([])
}
