import Dispatch
import LMDB
import Synchronization

/// The second half of a replay: each collection's surviving records written into the target,
/// in row order, one segment of `StoredCollection.rebuiltSegmentRows` row numbers per write
/// transaction.
extension Replayer {
  /// Writes the state of the records `trackers` followed (by collection id), reading them from
  /// the source as of `snapshot`. Returns what stands for the tables it leaves unwritten.
  /// `meanwhile`, other writes of the replay, runs once on this thread: while the first segment is
  /// laid out (or, without indexes, while the segments are fingerprinted) on the others, so that
  /// no core waits for it; at the latest after the state.
  func writeState(
    of trackers: [UInt32: RowTracker], from snapshot: Snapshot, _ sourceCatalog: CatalogState,
    progress: (ReplayProgress) -> Void, meanwhile: () throws -> Void
  ) throws -> UnwrittenTables {
    let state = try target.catalog.refresh()
    let total = UInt64(trackers.values.reduce(0) { $0 + $1.count })
    var written: UInt64 = 0
    var unwritten = UnwrittenTables()
    func advance(by rows: Int) {
      written += UInt64(rows)
      progress(ReplayProgress(step: .buildingState, completed: written, total: total))
    }
    var waiting = true
    func runMeanwhile() throws {
      guard waiting else { return }
      waiting = false
      try meanwhile()
    }
    for collection in state.all {
      guard let tracker = trackers[collection.id] else { continue }
      // Each key's bytes made in row order, the order in which the writes and the segments' work
      // read them: made in the tracker's order, they lay scattered, and a verification of a
      // million rows took about a tenth of a second longer.
      let survivors = tracker.survivors { ($0, $1, $2) }.map { key, row, lsn in
        StoredCollection.RebuiltRow(
          row: Row(truncatingIfNeeded: row), lsn: lsn, key: collection.keyBytes(key))
      }
      let segments = StoredCollection.rebuiltSegments(of: survivors.map(\.row))
      // The key table (or its digest) is written while the first segment is laid out, not after
      // the last one, when no other work is left to run beside it.
      func keysAndMeanwhile() throws {
        let inKeyOrder = collection.inKeyOrder(survivors)
        if writesKeys {
          try target.environment.write { txn in try collection.appendKeys(inKeyOrder, txn) }
        } else {
          unwritten.keyDigests[collection.databases.keys.name] = StoredCollection.keyTableDigest(
            of: inKeyOrder)
        }
        try runMeanwhile()
      }
      if buildsIndexes {
        try writeIndexed(
          collection, survivors, segments, from: snapshot, sourceCatalog, meanwhile: keysAndMeanwhile,
          done: advance)
      } else {
        unwritten.indexFingerprints[collection.id] = try writeFingerprinted(
          collection, survivors, segments, from: snapshot, sourceCatalog, meanwhile: keysAndMeanwhile,
          done: advance)
      }
      try target.environment.write { txn in
        try collection.finishRebuilt(count: survivors.count, nextRow: tracker.nextRow, txn)
      }
    }
    try runMeanwhile()
    return unwritten
  }

  /// Writes the rows and index pages of each segment. The segments' pages are laid out on other
  /// threads, one segment after another, each layout starting the next one's when it ends, so
  /// that the layouts, the longer part, run back to back while this thread writes (and, at
  /// first, runs `meanwhile`). Before it starts the next, a layout waits for the write of the
  /// segment before its own, so that at most two segments' pages are held unwritten. A layout
  /// happens before its write transaction, which may run again when it outgrows the map.
  private func writeIndexed(
    _ collection: StoredCollection, _ survivors: [StoredCollection.RebuiltRow],
    _ segments: [(rows: Range<Int>, start: Row)], from snapshot: Snapshot, _ sourceCatalog: CatalogState,
    meanwhile: () throws -> Void, done: (_ rows: Int) -> Void
  ) throws {
    var directory = try target.environment.read { try collection.directory($0) }
    directory.begin(for: collection.schema)
    let coversKeys = directory.coversKeys
    let source = self.source
    // Handed from each segment's layout to the next's, which run one after another.
    let buffers = SegmentBuffers()
    let schema = collection.schema
    let stopped = StopFlag()
    // A layout that ends takes a place before it starts the next one; a segment's write gives
    // one back. Made with none and given its first: a semaphore freed holding less than it was
    // made with traps, as this one may when a failed write stops the chain.
    let room = DispatchSemaphore(value: 0)
    room.signal()
    @Sendable func layOut(_ segment: Int) -> BackgroundWork<LaidOutSegment> {
      let chunk = Array(survivors[segments[segment].rows])
      let start = segments[segment].start
      return BackgroundWork {
        // The records are read inside the work's own read, by the build's threads: they point
        // into the source's map.
        let indexes = try source.readState(snapshot, sourceCatalog) { read in
          try read.prepareForRecordsOnEveryCore()
          let shared = MapShared(read)
          return try StoredCollection.rebuiltIndexes(
            schema: schema, rows: chunk.map(\.row), segment: start, coversKeys: coversKeys,
            buffers: buffers
          ) { try shared.value.record(at: chunk[$0].lsn) }
        }
        guard segment + 1 < segments.count else { return LaidOutSegment(indexes: indexes, next: nil) }
        room.wait()
        return LaidOutSegment(indexes: indexes, next: stopped.isSet ? nil : layOut(segment + 1))
      }
    }
    var next = segments.isEmpty ? nil : layOut(0)
    // Not left running past the call, even when a write fails: the chain is stopped, and the
    // layout under way (which may be waiting for room) let go and waited for.
    defer {
      stopped.set()
      while let work = next {
        room.signal()
        next = (try? work.value())?.next
      }
    }
    try meanwhile()
    for segment in segments.indices {
      guard let work = next else { break }
      let laidOut = try work.value()
      next = laidOut.next
      let chunk = Array(survivors[segments[segment].rows])
      try target.environment.write { txn in
        try collection.appendRebuilt(
          chunk, indexes: laidOut.indexes, segment: segments[segment].start, coversKeys: coversKeys, txn)
      }
      room.signal()
      done(chunk.count)
    }
  }

  /// Writes the rows of each segment alone, and returns the fingerprints of the index entries
  /// their records would file (`buildsIndexes` false). The fingerprints are computed on other
  /// threads, segment after segment, each segment's work starting the next one's when it ends:
  /// they run ahead of the writes, which have one thread, and of `meanwhile` (the key digest,
  /// and the wait for the checkpoints' summary and its write), so that no core waits for either.
  private func writeFingerprinted(
    _ collection: StoredCollection, _ survivors: [StoredCollection.RebuiltRow],
    _ segments: [(rows: Range<Int>, start: Row)], from snapshot: Snapshot, _ sourceCatalog: CatalogState,
    meanwhile: () throws -> Void, done: (_ rows: Int) -> Void
  ) throws -> StateContent.IndexFingerprints {
    let source = self.source
    // Read once: each read of a collection's schema copies its latest version out of the list.
    let schema = collection.schema
    let name = collection.name
    let stopped = StopFlag()
    @Sendable func fingerprint(_ segment: Int) -> BackgroundWork<FingerprintedSegment> {
      let chunk = Array(survivors[segments[segment].rows])
      return BackgroundWork {
        // The records are read inside the work's own read, by the workers: they point into the
        // source's map.
        let fingerprints = try source.readState(snapshot, sourceCatalog) { read in
          try read.prepareForRecordsOnEveryCore()
          let shared = MapShared(read)
          // Each part of the rows summed on its own: fingerprints are sums.
          let parts = try ParallelMap.mapParts(chunk.count, minimum: 1_024) { part in
            var fingerprints = StateContent.IndexFingerprints(base: part.first.map { chunk[$0].row } ?? 0)
            var scratch = StateContent.FingerprintScratch()
            for index in part {
              let row = chunk[index].row
              let record = try shared.value.record(at: chunk[index].lsn)
              let (sum, count): (UInt64, Int)
              do {
                (sum, count) = try StateContent.fingerprint(
                  ofRecord: record, schema: schema, row: row, &scratch)
              } catch {
                throw StoreError.undecodable(recordAt: row, in: name, error)
              }
              fingerprints.add(sum: sum, entries: count, row: row)
            }
            return fingerprints
          }
          var fingerprints = StateContent.IndexFingerprints(base: chunk.first?.row ?? 0)
          for part in parts { fingerprints.merge(part) }
          return fingerprints
        }
        let next = segment + 1 < segments.count && !stopped.isSet ? fingerprint(segment + 1) : nil
        return FingerprintedSegment(fingerprints: fingerprints, next: next)
      }
    }
    var fingerprints = StateContent.IndexFingerprints()
    var next = segments.isEmpty ? nil : fingerprint(0)
    // Not left running past the call, even when a write fails: the chain is stopped, and the
    // work under way waited for.
    defer {
      stopped.set()
      while let work = next { next = (try? work.value())?.next }
    }
    try meanwhile()
    for segment in segments.indices {
      let chunk = Array(survivors[segments[segment].rows])
      try target.environment.write { txn in try collection.appendRebuiltRows(chunk, txn) }
      guard let work = next else { break }
      let fingerprinted = try work.value()
      fingerprints.merge(fingerprinted.fingerprints)
      next = fingerprinted.next
      done(chunk.count)
    }
    return fingerprints
  }
}

/// One segment's pages (`Replayer.writeIndexed`), and the work laying out the next segment's,
/// started when this one ended.
private struct LaidOutSegment: Sendable {
  var indexes: StoredCollection.RebuiltIndexes
  var next: BackgroundWork<LaidOutSegment>?
}

/// One segment's fingerprints (`Replayer.writeFingerprinted`), and the work fingerprinting the
/// next segment, started when this one ended.
private struct FingerprintedSegment: Sendable {
  var fingerprints: StateContent.IndexFingerprints
  var next: BackgroundWork<FingerprintedSegment>?
}

/// A flag one thread sets and others read: work that is no longer wanted starts no more.
private final class StopFlag: Sendable {
  private let flag = Atomic<Bool>(false)

  var isSet: Bool { flag.load(ordering: .acquiring) }

  func set() { flag.store(true, ordering: .releasing) }
}
