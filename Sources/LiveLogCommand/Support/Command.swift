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

  /// Opens the store, read-only when the command only reads. A store of an older format is
  /// upgraded first (which takes one write), with a note on standard error. With `--nats`, a
  /// store opened for writing writes through the stream, and has caught up with it unless
  /// `catchingUp` is false.
  func openStore(readOnly: Bool = false, durability: StoreOptions? = nil, catchingUp: Bool = true) throws
    -> Store
  {
    var options = durability ?? StoreOptions()
    options.readOnly = readOnly
    if let maximumMapSize { options.maximumMapSize = maximumMapSize }
    let store: Store
    do {
      store = try Store(directory: storePath, options: options)
    } catch StoreError.upgradeRequired(_, let found) {
      printError("note: upgrading \(storePath) from format \(found) to the current format (one transaction)")
      var writable = options
      writable.readOnly = false
      writable.progress = { printError("  \($0)") }
      // Opened and closed before the read-only open: one environment per process at a time.
      _ = try Store(directory: storePath, options: writable)
      store = try Store(directory: storePath, options: options)
    }
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
