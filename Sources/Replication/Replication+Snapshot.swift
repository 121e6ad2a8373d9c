import Foundation
@_spi(Replication) public import LiveLog

extension Replication {
  /// Writes a snapshot of the store to the file `path`: a compacted copy of its LMDB
  /// environment, taken in one read transaction while writers go on, stamped with the stream
  /// position that copy holds (stream, sequence, version, checksum of the last event). The
  /// stamp is read from the copy itself, so it is the position of exactly the state copied.
  /// The file is written beside `path` and renamed into place when complete; its position is
  /// recorded as the stream's newest snapshot, below which `purge` may remove messages.
  ///
  /// The snapshot is of the store as it is: call `catchUp()` first for one at the stream's head.
  @discardableResult
  public func writeSnapshot(to path: String) throws -> SnapshotStamp {
    let scratch = path + ".copy-\(ProcessInfo.processInfo.processIdentifier)"
    try? FileManager.default.removeItem(atPath: scratch)
    defer { try? FileManager.default.removeItem(atPath: scratch) }
    try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: false)
    let made = try Store.restore(into: scratch) { _ in try store.writeEnvironmentCopy(into: scratch) }
    let stamp = try Self.stampOfCopy(scratch, stream: configuration.stream)
    try SnapshotFile.write(stamp, dataFile: made, to: path)
    try registry.recordSnapshot(at: stamp.sequence)
    return stamp
  }

  /// The position the store copied into `directory` holds, read from the copy.
  private static func stampOfCopy(_ directory: String, stream: String) throws -> SnapshotStamp {
    var options = StoreOptions()
    options.readOnly = true
    let copy = try Store(directory: directory, options: options)
    guard let position = try copy.streamPosition(), position.stream == stream, position.sequence > 0 else {
      throw ReplicationError.badSnapshot(
        path: directory,
        reason: "the store has applied nothing of stream \(stream) yet, so there is nothing to snapshot")
    }
    let last = try copy.lastEvent()
    guard last.version == position.lsn else {
      throw ReplicationError.notInStream(path: directory, version: last.version, streamPosition: position.lsn)
    }
    return SnapshotStamp(
      stream: stream, sequence: position.sequence, version: position.lsn, lastChecksum: last.checksum)
  }

  /// Makes a new replica in `directory` (absent, or an empty directory) from the snapshot file
  /// `path`, and returns it replicating through `configuration`'s stream from the snapshot's
  /// position: `follow` or `catchUp` then apply the commits after it, and writes go through the
  /// stream as on any replica. The restored store gets a replica id of its own. A snapshot an
  /// older LiveLog wrote is upgraded as the restored store opens (`Store.restore`), with
  /// `options.progress`.
  ///
  /// Refused, with nothing left in `directory`: a damaged or truncated file
  /// (`ReplicationError.badSnapshot`, naming the file), a snapshot of another stream
  /// (`snapshotOfOtherStream`), one beyond the stream's head or below its first message
  /// (`snapshotNotInStream`), and one of another history under the same stream name — the
  /// stream's message at the snapshot's position is not the snapshot's last commit
  /// (`diverged`, as on any replica).
  public static func bootstrap(
    from path: String, into directory: String, configuration: ReplicationConfiguration,
    options: StoreOptions = StoreOptions()
  ) throws -> Replication {
    let (stamp, offset, length) = try SnapshotFile.stamp(path)
    guard stamp.stream == configuration.stream else {
      throw ReplicationError.snapshotOfOtherStream(
        path: path, stream: stamp.stream, asked: configuration.stream)
    }
    let jetStream = try JetStream(configuration)
    let state = try jetStream.streamState(configuration.stream)
    let head = state?.lastSequence ?? 0
    let notInStream = { (reason: String) in
      ReplicationError.snapshotNotInStream(
        path: path, stream: stamp.stream, sequence: stamp.sequence, reason: reason)
    }
    guard stamp.sequence <= head else {
      throw notInStream(
        state == nil
          ? "the servers have no such stream"
          : "the stream's head is \(head): the snapshot is of another stream of that name, or the stream lost "
            + "acknowledged commits")
    }
    if let state, state.firstSequence > max(stamp.sequence, 1) {
      throw notInStream(
        "the stream was purged below \(state.firstSequence), past it: write a newer snapshot on a current replica"
      )
    }
    let existed = FileManager.default.fileExists(atPath: directory)
    try Store.restore(into: directory) { dataFile in
      try SnapshotFile.copyData(of: path, at: offset, length: length, to: dataFile)
    }
    do {
      return try open(
        restored: directory, stamp: stamp, path: path, configuration: configuration, options: options)
    } catch {
      Store.removeRestored(directory, keepingDirectory: existed)
      throw error
    }
  }

  /// Opens the store restored from a snapshot, checks that it holds the stamp's position, and
  /// replicates it.
  private static func open(
    restored directory: String, stamp: SnapshotStamp, path: String, configuration: ReplicationConfiguration,
    options: StoreOptions
  ) throws -> Replication {
    let store = try Store(directory: directory, options: options)
    let last = try store.lastEvent()
    guard let position = try store.streamPosition(), position.sequence == stamp.sequence,
      position.lsn == stamp.version, last.version == stamp.version, last.checksum == stamp.lastChecksum
    else {
      throw ReplicationError.badSnapshot(
        path: path, reason: "the store in it does not hold the position stamped on it")
    }
    try store.forgetReplicaID()
    return try Replication(store: store, configuration: configuration)
  }
}
