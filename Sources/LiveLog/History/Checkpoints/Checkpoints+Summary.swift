import LMDB

extension Checkpoints {
  /// The checkpoint entries of a whole log, worked out in memory from a read transaction (on any
  /// thread) and then written in key order with `MDB_APPEND` (`replaceAll(with:_:)`): what a
  /// replay and a verification rebuild.
  ///
  /// A commit puts its entries where their keys fall (`TransactionEntries`), and a row's versions
  /// and changes scatter over the database: for a whole log that was a put and a search through
  /// the tree per update. Held here, they take memory in proportion to the log's updates
  /// (`Docs/Replay.md`, Checkpoints, has the figure).
  struct Summary: Sendable, CheckpointEntries {
    let interval: UInt64
    /// The last event summarized.
    let through: UInt64
    private var versions = TagEntries()
    private var changes = TagEntries()
    private var firstCreated = TagEntries()
    /// The interval whose versions `versionedRows` holds: the events come in log order, so a
    /// summary asks only about the interval it is in.
    private var versionedInterval: UInt64 = 0
    private var versionedRows: Set<CollectionRow> = []

    private struct CollectionRow: Hashable {
      var collection: UInt32
      var row: UInt64
    }

    /// Summarizes the events `1 ... last` of `log`, read in `events`, in intervals of `interval`.
    init(log: EventLog, through last: UInt64, interval: UInt64, _ events: some ReadableTransaction) throws {
      let interval = max(interval, 1)
      var recorder = Recorder(interval: interval, entries: Summary(interval: interval, through: last))
      try recorder.follow(log, from: 1, through: last, events)
      self = recorder.entries
    }

    private init(interval: UInt64, through: UInt64) {
      self.interval = interval
      self.through = through
    }

    mutating func noteCreated(collection: UInt32, interval: UInt64, row: UInt64) {
      firstCreated.append {
        Checkpoints.appendCreatedKey(collection: collection, interval: interval, to: &$0)
      } value: {
        $0.appendLittleEndian(row)
      }
    }

    mutating func noteVersion(collection: UInt32, row: UInt64, interval: UInt64, previous: UInt64) {
      if interval != versionedInterval {
        precondition(interval > versionedInterval, "a summary follows the log in order")
        versionedInterval = interval
        versionedRows.removeAll(keepingCapacity: true)
      }
      versionedRows.insert(CollectionRow(collection: collection, row: row))
      versions.append {
        Checkpoints.appendVersionKey(collection: collection, row: row, interval: interval, to: &$0)
      } value: {
        $0.appendLittleEndian(previous)
      }
    }

    func hasVersion(collection: UInt32, row: UInt64, interval: UInt64) -> Bool {
      interval == versionedInterval && versionedRows.contains(CollectionRow(collection: collection, row: row))
    }

    mutating func noteChanged(collection: UInt32, interval: UInt64, slot: UInt16, row: UInt64) {
      changes.append {
        Checkpoints.appendChangedKey(
          collection: collection, interval: interval, slot: slot, row: row, to: &$0)
      } value: {
        $0.append(contentsOf: Checkpoints.changedValue)
      }
    }

    /// Appends every entry to `database`, which holds nothing past the header: the tags in
    /// order, each tag's keys sorted. Of equal keys the last noted is written, as a put over an
    /// earlier one would leave it.
    func write(into database: Database, _ txn: WriteTransaction) throws {
      for entries in [versions, changes, firstCreated] { try entries.write(into: database, txn) }
    }
  }

  /// One tag's entries, end to end in one buffer: each a key and a value, all keys of one length
  /// and all values of another.
  private struct TagEntries: Sendable {
    private var bytes: [UInt8] = []
    private var keyLength = 0
    private var entryLength = 0

    mutating func append(key: (inout [UInt8]) -> Void, value: (inout [UInt8]) -> Void) {
      let start = bytes.count
      key(&bytes)
      let keyLength = bytes.count - start
      value(&bytes)
      let entryLength = bytes.count - start
      if start == 0 {
        self.keyLength = keyLength
        self.entryLength = entryLength
      }
      precondition(
        keyLength == self.keyLength && entryLength == self.entryLength, "a tag's entries have one length")
    }

    func write(into database: Database, _ txn: WriteTransaction) throws {
      guard entryLength > 0 else { return }
      let count = bytes.count / entryLength
      try bytes.withUnsafeBytes { buffer in
        guard let base = buffer.baseAddress else { return }
        let (keyLength, entryLength) = (keyLength, entryLength)
        func key(_ index: Int) -> UnsafeRawBufferPointer {
          UnsafeRawBufferPointer(start: base + index * entryLength, count: keyLength)
        }
        // LMDB's order; equal keys keep the order they were noted in.
        let order = (0..<count).sorted { a, b in
          let comparison = ByteOrder.compare(key(a), key(b))
          return comparison < 0 || (comparison == 0 && a < b)
        }
        for (position, index) in order.enumerated() {
          if position + 1 < order.count, ByteOrder.compare(key(index), key(order[position + 1])) == 0 {
            continue
          }
          let value = UnsafeRawBufferPointer(
            start: base + index * entryLength + keyLength, count: entryLength - keyLength)
          try txn.put(database, key(index), value, flags: .append)
        }
      }
    }
  }
}
