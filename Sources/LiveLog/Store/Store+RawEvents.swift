import LMDB

extension Store {
  /// Appends events given as their LSN and their bytes in the log's own format, and materializes
  /// them commit by commit: the entry point of `importEvents` and `salvage`. The events must
  /// continue the log without a gap; each must agree with the state it lands on (see
  /// `EventApplier`). Written in transactions of `Replayer.eventsPerTransaction` events.
  func appendRawEvents(_ events: [(lsn: UInt64, bytes: [UInt8])]) throws {
    guard !options.readOnly else { throw StoreError.readOnly(path: directory) }
    var start = 0
    while start < events.count {
      let end = min(start + Replayer.eventsPerTransaction, events.count)
      try EventApplier(target: self).apply(Array(events[start..<end]))
      start = end
    }
  }
}
